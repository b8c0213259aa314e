/**
 * What the router does with a head's probabilities. Capabilities that are the same service offered by several
 * agents (near-identical cards) share their probability as one group, so replicas never split a clear answer.
 * Then, with p₁ and p₂ the best two groups' probabilities:
 *   - p₁ ≥ accept, and p₂ not close to p₁ → route to the best group;
 *   - the two close (p₂ ≥ ambiguity·p₁) and together ≥ accept → ambiguous: ask which, naming both;
 *   - escalate ≤ p₁ < accept → the escalation band: the LLM decides when one is configured, else refuse;
 *   - below → refuse.
 */
import type { HeadScore } from './head';

export interface HeadThresholds {
  accept: number;
  escalate: number;
  /** p₂/p₁ from which the best two count as too close to pick one. */
  ambiguity: number;
}

export interface ScoredGroup {
  keys: string[];
  probability: number;
}

export type HeadVerdict =
  | { kind: 'accept'; group: ScoredGroup }
  | { kind: 'ambiguous'; groups: [ScoredGroup, ScoredGroup] }
  | { kind: 'escalate'; groups: ScoredGroup[] }
  | { kind: 'refuse'; best?: ScoredGroup };

/** Groups of the same service, best first: each capability joins the first better one it is the same as. */
export function groupScores(ranked: readonly HeadScore[], same: (a: string, b: string) => boolean): ScoredGroup[] {
  const groups: ScoredGroup[] = [];
  for (const { key, probability } of ranked) {
    const group = groups.find((g) => same(g.keys[0]!, key));
    if (group) {
      group.keys.push(key);
      group.probability += probability;
    } else groups.push({ keys: [key], probability });
  }
  return groups.sort((a, b) => b.probability - a.probability);
}

/** Groups offered to the LLM in the escalation band. */
const ESCALATION_SHORTLIST = 5;

export function decideByHead(groups: readonly ScoredGroup[], thresholds: HeadThresholds): HeadVerdict {
  const [first, second] = groups;
  if (!first) return { kind: 'refuse' };
  const p1 = first.probability;
  const p2 = second?.probability ?? 0;
  if (second && p2 >= thresholds.ambiguity * p1 && p1 + p2 >= thresholds.accept) return { kind: 'ambiguous', groups: [first, second] };
  if (p1 >= thresholds.accept) return { kind: 'accept', group: first };
  if (p1 >= thresholds.escalate) return { kind: 'escalate', groups: groups.slice(0, ESCALATION_SHORTLIST) };
  return { kind: 'refuse', best: first };
}
