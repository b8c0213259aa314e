/**
 * The catalogue's capabilities in an order of their own words. A head's training depends on the order of its
 * classes: cross-validation deals each class's texts to folds from its position, and L-BFGS sums in that order. The
 * order the catalogue lists them in follows registration and agent ids (random per registration), so the same cards
 * registered again — a fresh start, another order — gave another operating point (synthetic catalogue: accept
 * 0.72, 0.66 or 0.94 by order alone). Sorted by what the head reads of each card, the same cards give the same head.
 */
import { createHash } from 'node:crypto';
import { byCodeUnits } from '../../rules/text';
import type { CapabilityCandidate } from '../candidates';

/** A digest of what the head reads of a capability: its agent's name and description, its card's texts, its lessons. */
function contentKey(candidate: CapabilityCandidate): string {
  const { agent_name, agent_description, capability, misroutes } = candidate;
  const read = [
    agent_name,
    agent_description,
    capability.name,
    capability.description,
    capability.tags,
    capability.examples,
    capability.counter_examples ?? [],
    misroutes ?? [],
  ];
  return createHash('sha256').update(JSON.stringify(read)).digest('hex');
}

/** The candidates sorted by their cards' content; identical cards (replicas) by key. */
export function canonicalOrder(candidates: readonly CapabilityCandidate[]): CapabilityCandidate[] {
  const keyed = candidates.map((c) => ({ c, content: contentKey(c) }));
  keyed.sort((a, b) => byCodeUnits(a.content, b.content) || byCodeUnits(a.c.key, b.c.key));
  return keyed.map(({ c }) => c);
}
