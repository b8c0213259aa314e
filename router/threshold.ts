/**
 * Fitting the refusal threshold on labelled data. Each sample is the router's best match for one request and
 * whether that match was right; requests no capability should take are labelled `expected: null`. By default the
 * threshold maximises in-scope accuracy (right and accepted) plus refusal rate on the rest, each as a share of its
 * group; with `minRefusal`, in-scope accuracy under a refusal floor. Candidates are the midpoints between observed
 * scores; ties go to the lower threshold. Same data → same threshold.
 */

export interface ScoredSample {
  /** The best match score the router gave. */
  score: number;
  /** Whether some capability should take the request. */
  inScope: boolean;
  /** For in-scope requests: whether the best match was a right one. */
  correct: boolean;
}

export interface ThresholdFit {
  threshold: number;
  in_scope_accuracy: number;
  refusal_rate: number;
}

export function evaluate(samples: readonly ScoredSample[], threshold: number): ThresholdFit {
  const inScope = samples.filter((s) => s.inScope);
  const outOfScope = samples.filter((s) => !s.inScope);
  const accepted = inScope.filter((s) => s.correct && s.score >= threshold).length;
  const refused = outOfScope.filter((s) => s.score < threshold).length;
  return {
    threshold,
    in_scope_accuracy: inScope.length ? accepted / inScope.length : 0,
    refusal_rate: outOfScope.length ? refused / outOfScope.length : 0,
  };
}

export interface FitOptions {
  /**
   * When set, the threshold maximises in-scope accuracy among those refusing at least this share of the
   * out-of-scope requests (e.g. 0.6 for a "≥ 60 % out-of-scope recall" goal) instead of the balanced sum.
   */
  minRefusal?: number;
}

export function fitThreshold(samples: readonly ScoredSample[], options: FitOptions = {}): ThresholdFit {
  const scores = [...new Set(samples.map((s) => s.score))].sort((a, b) => a - b);
  const candidates = [scores[0]! - 1e-6, ...scores.slice(1).map((s, i) => (s + scores[i]!) / 2), scores.at(-1)! + 1e-6];
  const value = (fit: ThresholdFit) =>
    options.minRefusal === undefined
      ? fit.in_scope_accuracy + fit.refusal_rate
      : fit.refusal_rate >= options.minRefusal
        ? fit.in_scope_accuracy
        : fit.refusal_rate - 1; // below the floor: only ever chosen when no threshold reaches it
  let best: ThresholdFit | undefined;
  let bestValue = -Infinity;
  for (const threshold of candidates) {
    const fit = evaluate(samples, threshold);
    if (value(fit) > bestValue + 1e-12) {
      best = fit;
      bestValue = value(fit);
    }
  }
  return evaluate(samples, Math.round(best!.threshold * 10_000) / 10_000);
}
