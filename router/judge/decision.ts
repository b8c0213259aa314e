/**
 * When the judge is asked, and what its answer does (docs/routing.md, "The judge"). Pure functions.
 *
 * When: the head's best group, with r = p₁ / accept (its probability against its operating point), is
 *   accepted with r below UNCERTAIN_ABOVE (a narrow win), or with the runner-up close (p₂ ≥ CLOSE·p₁), or near a
 *   border: a fence (an exclusion clause, counter-example or lesson on the best capabilities' cards) about as near
 *   to the request as the chosen capability's own texts (gap > −NEAR_BORDER, card-borders.ts). Near misses score
 *   like right answers for the head, however sure it is; what sets them apart is a fence nearby. Reading every
 *   acceptance of a card that has fences (r < 4, the first rule) wanted half of zh/en dev's requests, so the share
 *   bound let the first-come ones through and read 13 of its 25 accepted near misses; the gap picks 28 % of the
 *   requests and reads 19 (docs/benchmarks.md).
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
/**
 * In cosine similarity of the multilingual model (multilingual-e5-small, whose similarities of related texts lie in
 * a narrow band, 0.8–0.95): a request whose nearest fence is within this of its capability's own nearest text is read.
 */
export const NEAR_BORDER = 0.03;
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
  /** The request's gap to the nearest fence (card-borders.ts): undefined when no card near it has one. */
  gap?: number;
}

export type JudgeReason = 'border' | 'uncertain' | 'close';

/** Why the judge should read this request, or undefined when the head's verdict stands unread. */
export function judgeReason(view: HeadView): JudgeReason | undefined {
  if (!(view.accept > 0) || !(view.best > 0)) return undefined;
  if (view.verdict !== 'accept') return undefined;
  const r = view.best / view.accept;
  if (r < UNCERTAIN_ABOVE) return 'uncertain';
  if (view.second >= CLOSE * view.best) return 'close';
  if (view.gap !== undefined && view.gap > -NEAR_BORDER) return 'border';
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
