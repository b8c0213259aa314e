/**
 * When the judge is asked, and what its answer does (docs/routing.md, "The judge"). Pure functions.
 *
 * When: the head's best group, with r = p₁ / accept (its probability against its operating point), is
 *   accepted with r below UNCERTAIN_ABOVE (a narrow win), or below BORDER_ABOVE when its card draws a border
 *   (exclusion clauses or counter-examples: near misses score like right answers there), or with the runner-up
 *   close (p₂ ≥ CLOSE·p₁).
 * Refusals are not judged: rescuing near refusals (r ≥ 0.4) was tried and in 70 judgements on zh/en dev and
 * CLINC150 never rescued a right answer (twice a wrong one), while spending the judge's share (docs/benchmarks.md).
 * Ambiguous and escalated verdicts are not judged either (the caller is asked which; the LLM chooses).
 *
 * What: neither the head nor the judge decides alone. The judge's log-odds and the head's log-ratio to its
 * threshold add up, and the request stays accepted when
 *     logit(P(yes)) + HEAD_WEIGHT · ln r ≥ BIAS
 * All constants were set before measuring, not fitted: the two evidences weigh the same and meet at zero, and both
 * are relative (r to the catalogue's own fitted threshold, P(yes) to the model's), so none depends on a catalogue.
 * On the zh/en dev set's recorded judgements this sits on the trade-off's frontier (docs/benchmarks.md).
 */

export const UNCERTAIN_ABOVE = 1.5;
export const BORDER_ABOVE = 4;
export const CLOSE = 0.5;
export const HEAD_WEIGHT = 1;
export const BIAS = 0;
/** P(yes) is clipped to [1 − CONFIDENCE_CAP, CONFIDENCE_CAP]: no single reading of a small model is certain. */
const CONFIDENCE_CAP = 0.99;

export interface HeadView {
  verdict: 'accept' | 'refuse' | 'ambiguous' | 'escalate';
  /** The best group's probability, its operating point's accept threshold, the runner-up's probability. */
  best: number;
  accept: number;
  second: number;
  /** The best capability's card states exclusions or has counter-examples. */
  border: boolean;
}

export type JudgeReason = 'border' | 'uncertain' | 'close';

/** Why the judge should read this request, or undefined when the head's verdict stands unread. */
export function judgeReason(view: HeadView): JudgeReason | undefined {
  if (!(view.accept > 0) || !(view.best > 0)) return undefined;
  if (view.verdict !== 'accept') return undefined;
  const r = view.best / view.accept;
  if (r < UNCERTAIN_ABOVE) return 'uncertain';
  if (view.second >= CLOSE * view.best) return 'close';
  if (view.border && r < BORDER_ABOVE) return 'border';
  return undefined;
}

function logit(p: number): number {
  const q = Math.min(CONFIDENCE_CAP, Math.max(1 - CONFIDENCE_CAP, p));
  return Math.log(q / (1 - q));
}

/** The combined evidence for taking the request; ≥ 0 accepts. */
export function combinedScore(yes: number, view: Pick<HeadView, 'best' | 'accept'>, weights = { head: HEAD_WEIGHT, bias: BIAS }): number {
  return logit(yes) + weights.head * Math.log(view.best / view.accept) - weights.bias;
}

export function judgedVerdict(yes: number, view: Pick<HeadView, 'best' | 'accept'>, weights = { head: HEAD_WEIGHT, bias: BIAS }): 'accept' | 'refuse' {
  return combinedScore(yes, view, weights) >= 0 ? 'accept' : 'refuse';
}
