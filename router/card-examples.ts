/**
 * What `GET /v1/router/status` says of a catalogue's cards: how many examples its capabilities give the head to learn
 * from, and which give fewest. The head learns each capability from its examples, and they bound how well it routes
 * requests nobody tuned for: on CLINC150 (head alone, the test sample) 5 examples per capability give 75.2 % of the
 * in-scope requests answered right, 10 give 83.0 %, 20 give 86.2 % (docs/benchmarks.md, "Router 4: a card's
 * examples"). Operators read it to know which cards to write more examples for.
 */
import { byCodeUnits } from '../rules/text';
import type { CapabilityCandidate } from './candidates';

/** A capability with fewer examples than this is listed as having few. */
export const FEW_EXAMPLES = 10;

/** Capabilities listed by name at most (fewest examples first); `count` says how many there are in all. */
export const LISTED_AT_MOST = 20;

export interface CardExamples {
  capabilities: number;
  /** Examples per capability. */
  examples: { min: number; median: number; max: number };
  few_examples: {
    under: number;
    count: number;
    /** `agent_id/capability` with its examples, fewest first, at most LISTED_AT_MOST. */
    capabilities: { capability: string; examples: number }[];
  };
}

function median(sorted: readonly number[]): number {
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The catalogue's capabilities by their examples; undefined for an empty catalogue. */
export function cardExamples(candidates: readonly CapabilityCandidate[]): CardExamples | undefined {
  if (candidates.length === 0) return undefined;
  const counts = candidates
    .map((c) => ({ capability: c.key, examples: c.capability.examples.length }))
    .sort((a, b) => a.examples - b.examples || byCodeUnits(a.capability, b.capability));
  const sorted = counts.map((c) => c.examples);
  const few = counts.filter((c) => c.examples < FEW_EXAMPLES);
  return {
    capabilities: counts.length,
    examples: { min: sorted[0]!, median: median(sorted), max: sorted[sorted.length - 1]! },
    few_examples: { under: FEW_EXAMPLES, count: few.length, capabilities: few.slice(0, LISTED_AT_MOST) },
  };
}
