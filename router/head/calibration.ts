/**
 * A head's operating point, fitted from its own held-out predictions (cross-validation.ts) instead of fixed numbers.
 * Each held-out text gives the score the router would see (the best group's probability) and what accepting it
 * would mean: the right capability, a wrong one, an out-of-scope text accepted, or a capability taking a request its
 * own card excludes. The accept threshold is the balanced one — the most right answers kept for the fewest
 * refusable texts accepted (out-of-scope and excluded ones, each kind counting the same) — but never lower than the score that
 * keeps the accepted share of out-of-scope texts within `target`, nor than the score that keeps `keepRight` of the
 * right answers. That last bound matters where the catalogue's own negatives are easy (generic out-of-scope text far
 * below every right answer, as on a catalogue of distinct services): the balanced point then sits near zero, yet
 * the requests a user sends that should be refused — a near miss, a neighbouring service — score far closer than
 * those texts; the head refuses its least certain answers instead of accepting everything above the negatives.
 * The right answers both are fitted on are the capabilities' **card texts** (name, description, tags), when there are
 * enough of them: a held-out example still has its paraphrases among the texts its fold's head learned from, so it
 * scores higher than a request a user writes (CLINC150: the 5th percentile of held-out examples' right answers is
 * 0.32, of validation requests' 0.24), while a card's texts go out together and are phrased unlike any text left in.
 * Requests in the language of the chosen capability's card and cross-lingual ones score differently for the same
 * fit, so each direction is fitted apart; a direction with too few held-out texts of its own takes the thresholds
 * fitted on all of them.
 */

export type Outcome = 'right' | 'wrong' | 'out_of_scope' | 'excluded';

export interface CalibrationSample {
  score: number;
  /** The best group's card is in the other language than the text. */
  crossLingual: boolean;
  outcome: Outcome;
  /** A card text (name, description, tags) held out, rather than a request example. */
  card?: boolean;
}

export interface DirectionFit {
  accept: number;
  /** Lower end of the escalation band (an LLM decides between it and `accept`). */
  escalate: number;
  /** Held-out texts it was fitted on, by outcome. */
  samples: Record<Outcome, number>;
  /** At `accept`, on the held-out texts: share of right answers kept, of out-of-scope texts and of excluded ones accepted. */
  right_accepted: number;
  out_of_scope_accepted: number;
  excluded_accepted: number;
  /** Too few texts of this direction: fitted on all of them. */
  pooled: boolean;
  /** The right answers it was fitted on: the card texts', or all (too few card texts judged right). */
  fitted_on: 'card_texts' | 'all_texts';
  /** At `accept`, the share of held-out card texts judged right that it keeps. */
  card_right_accepted: number;
}

export interface Calibration {
  /** Share of out-of-scope texts the accept threshold lets through, at most. */
  target: number;
  /** Share of right answers the accept threshold keeps, at most. */
  keep_right: number;
  same_language: DirectionFit;
  cross_lingual: DirectionFit;
}

export interface CalibrationOptions {
  target: number;
  /** Share of held-out right answers the accept threshold keeps, at most. */
  keepRight: number;
  /** Share of out-of-scope texts the escalation band's lower end lets through (the LLM then judges them). */
  escalateTarget: number;
  /** A direction with fewer right answers or fewer refusable texts than this takes the pooled thresholds. */
  minSamples: number;
}

export const DEFAULT_CALIBRATION: CalibrationOptions = {
  target: 0.07,
  // 0.95 before Router 4's locked split; 0.93–0.94 give the tuning part its best figures (head alone: two near misses
  // more refused for two right answers): the middle of that band (docs/benchmarks.md, "Router 4: keepRight").
  keepRight: 0.935,
  escalateTarget: 0.2,
  minSamples: 20,
};

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

/**
 * The lowest threshold that accepts at most `share` of `scores` (accepting means score ≥ threshold): midway
 * between the highest score to be refused and the next one up. Empty input: 0 (nothing to guard against).
 */
export function thresholdFor(scores: readonly number[], share: number): number {
  if (scores.length === 0) return 0;
  const sorted = [...scores].sort((a, b) => b - a);
  const allowed = Math.floor(share * sorted.length + 1e-9);
  if (allowed >= sorted.length) return 0;
  const refused = sorted[allowed]!;
  const above = allowed > 0 ? sorted[allowed - 1]! : refused + 2e-3;
  return round((refused + above) / 2);
}

/** What a threshold can refuse: requests that no capability, or not the chosen one, should take. */
const REFUSABLE: readonly Outcome[] = ['out_of_scope', 'excluded'];

/**
 * The threshold that maximises (share of right answers accepted) − (mean share of refusable texts accepted, over
 * the kinds present: out-of-scope text, excluded request — each kind counts the same, however many texts it has):
 * midway between neighbouring scores. A wrong first choice is left out: refusing it does not make it right (and
 * on a catalogue of near-identical intents, weighing it pushes the threshold up to refuse many right answers).
 * Without right answers or refusable texts: 0.
 */
export function balancedThreshold(all: readonly CalibrationSample[]): number {
  const samples = all.filter((s) => s.outcome !== 'wrong');
  const right = samples.filter((s) => s.outcome === 'right').length;
  const kinds = REFUSABLE.filter((kind) => samples.some((s) => s.outcome === kind));
  if (right === 0 || kinds.length === 0) return 0;
  const sizes = Object.fromEntries(kinds.map((kind) => [kind, samples.filter((s) => s.outcome === kind).length]));
  const sorted = [...samples].sort((a, b) => b.score - a.score);
  let best = 0;
  let bestValue = 0;
  let value = 0;
  for (let i = 0; i < sorted.length; i++) {
    const s = sorted[i]!;
    value += s.outcome === 'right' ? 1 / right : -1 / (sizes[s.outcome]! * kinds.length);
    const next = sorted[i + 1];
    if (next && next.score === s.score) continue;
    if (value > bestValue + 1e-12) {
      bestValue = value;
      best = next ? (s.score + next.score) / 2 : s.score - 1e-6;
    }
  }
  return round(best);
}

function share(samples: readonly CalibrationSample[], outcome: Outcome, threshold: number): number {
  const of = samples.filter((s) => s.outcome === outcome);
  return round(of.filter((s) => s.score >= threshold).length / Math.max(1, of.length));
}

const cardRight = (s: CalibrationSample) => s.outcome === 'right' && s.card === true;

/**
 * The samples the threshold is fitted on: the card texts stand for the right answers when at least `minSamples` of
 * them were judged right (a catalogue of a few capabilities has too few); the other samples all count.
 */
export function fittingSamples(
  samples: readonly CalibrationSample[],
  minSamples: number,
): { samples: readonly CalibrationSample[]; fittedOn: DirectionFit['fitted_on'] } {
  if (samples.filter(cardRight).length < minSamples) return { samples, fittedOn: 'all_texts' };
  return { samples: samples.filter((s) => s.outcome !== 'right' || s.card === true), fittedOn: 'card_texts' };
}

type Point = Pick<DirectionFit, 'accept' | 'escalate' | 'pooled' | 'fitted_on'>;

function fit(all: readonly CalibrationSample[], options: CalibrationOptions, pooled: boolean): Point {
  const { samples, fittedOn } = fittingSamples(all, options.minSamples);
  const scores = (outcome: Outcome) => samples.filter((s) => s.outcome === outcome).map((s) => s.score);
  const outOfScope = scores('out_of_scope');
  const accept = Math.max(
    balancedThreshold(samples),
    thresholdFor(outOfScope, options.target),
    thresholdFor(scores('right'), options.keepRight),
  );
  return {
    accept,
    escalate: Math.min(accept, thresholdFor(outOfScope, options.escalateTarget)),
    pooled,
    fitted_on: fittedOn,
  };
}

function report(own: readonly CalibrationSample[], point: Point): DirectionFit {
  const count = (outcome: Outcome) => own.filter((s) => s.outcome === outcome).length;
  const cards = own.filter(cardRight);
  return {
    ...point,
    samples: {
      right: count('right'),
      wrong: count('wrong'),
      out_of_scope: count('out_of_scope'),
      excluded: count('excluded'),
    },
    right_accepted: share(own, 'right', point.accept),
    card_right_accepted: round(cards.filter((s) => s.score >= point.accept).length / Math.max(1, cards.length)),
    out_of_scope_accepted: share(own, 'out_of_scope', point.accept),
    excluded_accepted: share(own, 'excluded', point.accept),
  };
}

export function calibrate(
  samples: readonly CalibrationSample[],
  options: CalibrationOptions = DEFAULT_CALIBRATION,
): Calibration {
  const all = fit(samples, options, true);
  const direction = (crossLingual: boolean): DirectionFit => {
    const own = samples.filter((s) => s.crossLingual === crossLingual);
    const right = own.filter((s) => s.outcome === 'right').length;
    const refusable = own.filter((s) => REFUSABLE.includes(s.outcome)).length;
    const enough = right >= options.minSamples && refusable >= options.minSamples;
    return report(own, enough ? fit(own, options, false) : all);
  };
  return {
    target: options.target,
    keep_right: options.keepRight,
    same_language: direction(false),
    cross_lingual: direction(true),
  };
}
