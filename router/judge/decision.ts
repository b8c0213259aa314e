/**
 * When the judge is asked, and what its answer does (docs/routing.md, "The judge"; each constant's measurements in
 * docs/benchmarks.md, "The judge"). Pure functions.
 *
 * When: the head's best group, with r = p₁ / accept (its probability against its operating point), is
 *   accepted with r below UNCERTAIN_ABOVE (a narrow win), or with the runner-up close (p₂ ≥ CLOSE·p₁), or near a
 *   border: a fence (an exclusion clause, counter-example or lesson on the best capabilities' cards) about as near
 *   to the request as the chosen capability's own texts (gap > −NEAR_BORDER, card-borders.ts). Near misses score
 *   like right answers for the head, however sure it is; what sets them apart is a fence nearby. NEAR_BORDER was
 *   the widest band a share bound (since gone) could serve; 0.06 and 0.08, weighed since, read far more requests
 *   and do not raise the tuning part's smallest margin to the goals (docs/benchmarks.md, "Router 4: cross-lingual
 *   readings").
 * Where no card near the request states a fence (no gap), a narrow loss is read too (a refusal with r ≥
 *   NARROW_LOSS): there the only requests to refuse are out-of-scope ones, which the judge tells apart clearly, so
 *   it takes back right answers that fell just under the head's threshold. Where cards state fences, refusals are
 *   not read: a near miss the head refused would get a lukewarm answer, and rescuing near refusals rescued no right
 *   answer. Ambiguous and escalated verdicts are not judged (the caller is asked which; the LLM chooses).
 *
 * What: neither the head nor the judge decides alone. The judge's log-odds and the head's log-ratio to its
 * threshold add up, and the request stays accepted when
 *     logit(P(yes)) + NEAR_HEAD_WEIGHT · ln r ≥ BIAS        near a fence
 *     logit(P(yes)) + HEAD_WEIGHT · ln r ≥ FAR_BIAS         far from one (a narrow win or a close runner-up)
 *     logit(P(yes)) + HEAD_WEIGHT · ln r ≥ NO_FENCE_BIAS    where no card has one (a narrow win, close call or loss)
 * Near a fence a lukewarm "no" is what a near miss gets, and the head's certainty counts for less: a near miss is
 * by its nature what the head is sure of (BIAS is the middle of the band of biases that decide the tuning part's
 * border readings alike, Router 4; −0.4 before, chosen on all of dev to keep in-scope answers as with the full
 * weight). Far from every fence the model's "no" to a right answer it is unsure of is as lukewarm as to a wrong
 * one: FAR_BIAS is the midpoint, in log-odds, between its median answers to a catalogue's own unshown examples and
 * to generic out-of-scope text. Where no card states a fence only an out-of-scope-strength "no" counts
 * (NO_FENCE_BIAS, chosen by replay on CLINC150's sample and the rest of its test split). Both terms are relative
 * (r to the catalogue's own fitted threshold, P(yes) to the model's). A cross-lingual reading of the head's acceptance
 * (the request in the other language than the card) has its bias lowered by CROSS_LINGUAL_LENIENCE: across languages
 * the small model tells a right answer from a near miss worse, so its lukewarm "no" counts for less there; a
 * confident one still refuses.
 */

export const UNCERTAIN_ABOVE = 1.5;
/**
 * In cosine similarity of the multilingual model (multilingual-e5-small, whose similarities of related texts lie in
 * a narrow band, 0.8–0.95): a request whose nearest fence is within this of its capability's own nearest text is read.
 */
export const NEAR_BORDER = 0.04;
export const CLOSE = 0.5;
export const HEAD_WEIGHT = 1;
export const NEAR_HEAD_WEIGHT = 0.5;
export const BIAS = -0.3;
export const FAR_BIAS = -1.4;
export const NO_FENCE_BIAS = -2.2;
/**
 * Taken off the bias of a cross-lingual reading of the head's acceptance (not of a narrow loss: no zh/en request was
 * read as one, so it was never weighed there). The model's answers separate right answers from near misses less well
 * across languages (AUC 0.87 against 0.94 in one language, the tuning part's readings); 0.8 is the middle of the
 * band (0.6–1.0) that gives the tuning part the largest smallest margin to the judge-on goals, the rule keepRight was
 * chosen by (docs/benchmarks.md, "Router 4: cross-lingual readings").
 */
export const CROSS_LINGUAL_LENIENCE = 0.8;
/** Where no card states a fence, a refusal with r = p₁ / accept at least this is read (a narrow loss). */
export const NARROW_LOSS = 0.6;
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
  /** The request is in the other language than the best capability's card. */
  crossLingual?: boolean;
}

export type JudgeReason = 'border' | 'uncertain' | 'close' | 'narrow_loss';

/** Why the judge should read this request, or undefined when the head's verdict stands unread. */
export function judgeReason(view: HeadView): JudgeReason | undefined {
  if (!(view.accept > 0) || !(view.best > 0)) return undefined;
  const r = view.best / view.accept;
  if (view.verdict === 'refuse') return noFence(view) && r >= NARROW_LOSS ? 'narrow_loss' : undefined;
  if (view.verdict !== 'accept') return undefined;
  if (r < UNCERTAIN_ABOVE) return 'uncertain';
  if (view.second >= CLOSE * view.best) return 'close';
  if (nearFence(view)) return 'border';
  return undefined;
}

/** The request lies near a fence on the best cards (card-borders.ts): where near misses are. */
export function nearFence(view: Pick<HeadView, 'gap'>): boolean {
  return view.gap !== undefined && view.gap > -NEAR_BORDER;
}

/** No card near the request states a fence (card-borders.ts gives no gap): only out-of-scope requests to refuse. */
function noFence(view: Pick<HeadView, 'gap'>): boolean {
  return view.gap === undefined;
}

/** How the head's log-ratio and the bias weigh beside the judge: near a fence, far from one, where no card has one. */
export interface Weights {
  head: number;
  bias: number;
}

function weightsFor(view: Pick<HeadView, 'best' | 'accept' | 'gap' | 'crossLingual'>): Weights {
  const weights = weightsByFence(view);
  // The head's acceptances only (CROSS_LINGUAL_LENIENCE).
  const lenient = view.crossLingual === true && view.best >= view.accept;
  return lenient ? { ...weights, bias: weights.bias - CROSS_LINGUAL_LENIENCE } : weights;
}

function weightsByFence(view: Pick<HeadView, 'gap'>): Weights {
  if (noFence(view)) return { head: HEAD_WEIGHT, bias: NO_FENCE_BIAS };
  return nearFence(view) ? { head: NEAR_HEAD_WEIGHT, bias: BIAS } : { head: HEAD_WEIGHT, bias: FAR_BIAS };
}

function logit(p: number): number {
  const q = Math.min(CONFIDENCE_CAP, Math.max(1 - CONFIDENCE_CAP, p));
  return Math.log(q / (1 - q));
}

/** The combined evidence for taking the request; ≥ 0 accepts. */
export function combinedScore(
  yes: number,
  view: Pick<HeadView, 'best' | 'accept' | 'gap' | 'crossLingual'>,
  weights: Weights = weightsFor(view),
): number {
  return logit(yes) + weights.head * Math.log(view.best / view.accept) - weights.bias;
}

export function judgedVerdict(
  yes: number,
  view: Pick<HeadView, 'best' | 'accept' | 'gap' | 'crossLingual'>,
  weights: Weights = weightsFor(view),
): 'accept' | 'refuse' {
  return combinedScore(yes, view, weights) >= 0 ? 'accept' : 'refuse';
}
