/**
 * What the router does with a head's probabilities. Capabilities that are the same service offered by several
 * agents (near-identical cards) share their probability as one group, so replicas never split a clear answer.
 * Then, with p₁ and p₂ the best two groups' probabilities:
 *   - p₁ ≥ accept, and p₂ not close to p₁ → route to the best group;
 *   - the two close (p₂ ≥ ambiguity·p₁) and together ≥ accept → ambiguous: ask which, naming both;
 *   - escalate ≤ p₁ < accept → the escalation band: the LLM decides when one is configured, else refuse;
 *   - below → refuse.
 * A cross-lingual request (an English one for a capability described in Chinese, or the reverse) gets probabilities
 * lower than a same-language one that fits as well, since the head learned each capability from its own card's
 * language: its thresholds are divided by `crossLingual`.
 */
import type { HeadScore } from './head';

export interface HeadThresholds {
  accept: number;
  escalate: number;
  /** p₂/p₁ from which the best two count as too close to pick one. */
  ambiguity: number;
  /** How much lower the thresholds are for a group whose card is in the other language than the request. */
  crossLingual: number;
}

export interface ScoredGroup {
  keys: string[];
  probability: number;
  /** The group's card is written in the other language than the request. */
  crossLingual?: boolean;
}

export type HeadVerdict =
  | { kind: 'accept'; group: ScoredGroup }
  | { kind: 'ambiguous'; groups: [ScoredGroup, ScoredGroup] }
  | { kind: 'escalate'; groups: ScoredGroup[] }
  | { kind: 'refuse'; best?: ScoredGroup };

/** Groups of the same service, best first: each capability joins the first better one it is the same as. */
export function groupScores(ranked: readonly HeadScore[], same: (a: string, b: string) => boolean, crossLingual: ReadonlySet<string> = new Set()): ScoredGroup[] {
  const groups: ScoredGroup[] = [];
  for (const { key, probability } of ranked) {
    const group = groups.find((g) => same(g.keys[0]!, key));
    if (group) {
      group.keys.push(key);
      group.probability += probability;
    } else groups.push({ keys: [key], probability, ...(crossLingual.has(key) ? { crossLingual: true } : {}) });
  }
  return groups.sort((a, b) => b.probability - a.probability);
}

/** The group's probability as the thresholds see it: a cross-lingual group's scaled up by the factor. */
export function comparedProbability(group: ScoredGroup, thresholds: Pick<HeadThresholds, 'crossLingual'>): number {
  return group.probability * languageFactor(group, thresholds);
}

function languageFactor(group: ScoredGroup, thresholds: Pick<HeadThresholds, 'crossLingual'>): number {
  return group.crossLingual ? thresholds.crossLingual : 1;
}

/** Groups offered to the LLM in the escalation band. */
const ESCALATION_SHORTLIST = 5;

export function decideByHead(groups: readonly ScoredGroup[], thresholds: HeadThresholds): HeadVerdict {
  const [first, second] = groups;
  if (!first) return { kind: 'refuse' };
  // Both judged on the scale of the best group's language, so their ratio is untouched.
  const factor = languageFactor(first, thresholds);
  const p1 = first.probability * factor;
  const p2 = (second?.probability ?? 0) * factor;
  if (second && p2 >= thresholds.ambiguity * p1 && p1 + p2 >= thresholds.accept) return { kind: 'ambiguous', groups: [first, second] };
  if (p1 >= thresholds.accept) return { kind: 'accept', group: first };
  if (p1 >= thresholds.escalate) return { kind: 'escalate', groups: groups.slice(0, ESCALATION_SHORTLIST) };
  return { kind: 'refuse', best: first };
}
