/**
 * How much each of a catalogue's heads counts when their probabilities are averaged (head-set.ts). Which model
 * reads a catalogue best depends on the catalogue: on CLINC150's English intents bge-small-en, on the zh/en
 * catalogue USE. The weights are read off what the cross-validation already gives (cross-validation.ts): each head's
 * predictions for texts it was not trained on. On a grid of the simplex, the weights whose average gives the
 * held-out texts the highest mean log-probability of what they are (a request example its own capability, an
 * out-of-scope text "none") win; they are then moved halfway back to equal weights (SHRINK), because the held-out
 * texts are the catalogue's own examples and the equal average keeps what each model sees that they do not show
 * (the near misses: docs/benchmarks.md, *Router 4: the heads weighed by their held-out texts*). Deterministic: the
 * same held-out predictions give the same weights.
 */
import type { JudgingHead } from './held-out-scores';

/** The grid's divisions per head count: 0.05 for two or three heads, 0.1 for four; beyond, equal weights. */
const STEPS: Record<number, number> = { 2: 20, 3: 20, 4: 10 };
/** How far the fitted weights move back towards equal ones (0: the fitted ones, 1: equal). */
export const SHRINK = 0.5;
/** A held-out text's probability counts at least this (a head's shortlist may leave the text's own class out). */
const FLOOR = 1e-4;

/** Every way to split `steps` units among `n` heads, as weights summing to 1, in a fixed order. */
export function simplexGrid(n: number, steps: number): number[][] {
  return compositions(n, steps).map((units) => units.map((u) => u / steps));
}

/** Every way to write `total` as `n` non-negative integers, the first largest first. */
function compositions(n: number, total: number): number[][] {
  if (n === 1) return [[total]];
  const out: number[][] = [];
  for (let first = total; first >= 0; first--)
    for (const rest of compositions(n - 1, total - first)) out.push([first, ...rest]);
  return out;
}

/**
 * Per held-out text (an example or an out-of-scope text), each head's probability of what the text is; undefined
 * for a head that does not read the text's language.
 */
export function heldOutTruths(heads: readonly JudgingHead[]): (number | undefined)[][] {
  const first = heads[0];
  if (!first) return [];
  return first.heldOut.flatMap((text, i) => {
    if (text.kind !== 'example' && text.kind !== 'none') return [];
    const language = text.chinese ? 'zh' : 'en';
    const key = text.kind === 'example' ? first.model.keys[text.label] : undefined;
    return [
      heads.map((h) => {
        if (h.language && h.language !== language) return undefined;
        const sample = h.heldOut[i]!;
        return key === undefined ? sample.none : (sample.ranked.find((r) => r.key === key)?.probability ?? 0);
      }),
    ];
  });
}

/** Mean log-probability of the held-out texts under the weighted average of the heads that read each. */
export function meanLogProbability(truths: readonly (number | undefined)[][], weights: readonly number[]): number {
  let total = 0;
  for (const probabilities of truths) {
    let sum = 0;
    let weight = 0;
    probabilities.forEach((p, h) => {
      if (p === undefined) return;
      sum += weights[h]! * p;
      weight += weights[h]!;
    });
    total += Math.log(Math.max(weight > 0 ? sum / weight : 0, FLOOR));
  }
  return truths.length > 0 ? total / truths.length : 0;
}

/** The heads' weights, in their order (equal for one head, for more than four, or without held-out texts). */
export function headWeights(heads: readonly JudgingHead[]): number[] {
  const n = heads.length;
  const equal = heads.map(() => 1 / n);
  const steps = STEPS[n];
  const truths = heldOutTruths(heads);
  if (!steps || truths.length === 0) return equal;
  // Equal weights unless some point does better: heads that read the texts alike keep equal weights.
  let best = equal;
  let bestScore = meanLogProbability(truths, equal);
  for (const weights of simplexGrid(n, steps)) {
    const score = meanLogProbability(truths, weights);
    if (score > bestScore + 1e-12) {
      bestScore = score;
      best = weights;
    }
  }
  return best.map((w) => (1 - SHRINK) * w + SHRINK / n);
}
