/**
 * Held-out predictions for calibrating a head: the training texts are split into folds, and each fold's texts are
 * predicted by a head trained on the other folds only, so every text is judged as a request the head never saw.
 * A capability's examples are held out one by one, its card's texts (name, description, tags — they repeat each
 * other) all together; out-of-scope texts and excluded clauses are held out too, as the negatives.
 */
import { CARD_TEXTS_UNIT, predict, trainHead, type HeadModel, type HeadScore, type HeadTrainingInput } from './head';

export interface HeldOutSample {
  /** `example`: a text of class `label`; `none`: an out-of-scope text; `excluded`: a text class `label`'s card excludes. */
  kind: 'example' | 'none' | 'excluded';
  /** Class index (−1 for `none`). */
  label: number;
  chinese: boolean;
  /** An example of kind `example` that is one of its card's texts (name, description, tags), not a request example. */
  card: boolean;
  /** The capabilities most probable for it (at most `KEPT`), most probable first, and the probability of "none". */
  ranked: HeadScore[];
  none: number;
}

/** Capabilities kept per held-out prediction: enough to group replicas and see the runner-up. */
const KEPT = 5;

/** Fold of the i-th unit of class `label` (classes start at different folds, so folds stay balanced). */
function foldOf(unit: number, label: number, folds: number): number {
  return (unit + label + 1) % folds;
}

/** The training input without fold `fold`'s texts. */
function withoutFold(input: HeadTrainingInput, fold: number, folds: number): HeadTrainingInput {
  const keep = <T>(items: readonly T[], units: (i: number) => number, label: number) =>
    items.filter((_, i) => foldOf(units(i), label, folds) !== fold);
  return {
    ...input,
    classes: input.classes.map((c, label) => {
      const unitOf = (i: number) => c.units?.[i] ?? i;
      return {
        ...c,
        vectors: keep(c.vectors, unitOf, label),
        chinese: keep(c.chinese, unitOf, label),
        ...(c.units ? { units: keep(c.units, unitOf, label) } : {}),
        ...(c.excluded ? { excluded: keep(c.excluded, (i) => i, label) } : {}),
        ...(c.excludedChinese ? { excludedChinese: keep(c.excludedChinese, (i) => i, label) } : {}),
      };
    }),
    none: keep(input.none, (i) => i, -1),
    ...(input.noneChinese ? { noneChinese: keep(input.noneChinese, (i) => i, -1) } : {}),
  };
}

function heldOut(
  model: HeadModel,
  kind: HeldOutSample['kind'],
  label: number,
  vector: Float32Array,
  chinese: boolean,
  card = false,
): HeldOutSample {
  const prediction = predict(model, vector, chinese);
  return { kind, label, chinese, card, ranked: prediction.ranked.slice(0, KEPT), none: prediction.none };
}

/**
 * L-BFGS iterations of a fold's head. Each starts from the head trained on all texts, which is near its own
 * optimum (the objective is convex and the folds differ by a fifth of the texts), so it needs far fewer than a head
 * trained from scratch.
 */
export const FOLD_ITERATIONS = 20;

/** Held-out examples predicted at most (out-of-scope and excluded texts are always all predicted). */
export const MAX_PREDICTED_EXAMPLES = 4_000;

export interface HeldOutPredictions {
  samples: HeldOutSample[];
  /** Folds whose training the time guard cut short (head.ts `timeGuardMs`). */
  timeGuardCuts: number;
}

/**
 * Every training text's prediction by the head trained without its fold, starting from `full` (the head trained
 * on everything). Each fold's head trains for at most FOLD_ITERATIONS, under its own time guard. Classes keep their
 * index in every fold (a class whose texts are all held out simply has none to learn from).
 */
export async function heldOutPredictions(
  input: HeadTrainingInput,
  folds: number,
  full?: HeadModel,
  now: () => number = Date.now,
): Promise<HeldOutPredictions> {
  const samples: HeldOutSample[] = [];
  let timeGuardCuts = 0;
  // A huge catalogue predicts every n-th example only (each prediction scores every capability's prototype).
  const examples = input.classes.reduce((n, c) => n + c.vectors.length, 0);
  const every = Math.max(1, Math.ceil(examples / MAX_PREDICTED_EXAMPLES));
  let seen = 0;
  const start = full ? { initial: full.weights } : {};
  const iterations = full
    ? { maxIterations: Math.min(FOLD_ITERATIONS, input.options?.maxIterations ?? FOLD_ITERATIONS) }
    : {};
  for (let fold = 0; fold < folds; fold++) {
    const model = await trainHead(
      { ...withoutFold(input, fold, folds), ...start, options: { ...input.options, ...iterations } },
      now,
    );
    if (model.training.stopped === 'time_guard') timeGuardCuts++;
    input.classes.forEach((c, label) => {
      c.vectors.forEach((v, i) => {
        const unit = c.units?.[i] ?? i;
        if (foldOf(unit, label, folds) === fold && seen++ % every === 0)
          samples.push(heldOut(model, 'example', label, v, c.chinese[i]!, unit === CARD_TEXTS_UNIT));
      });
      c.excluded?.forEach((v, i) => {
        if (foldOf(i, label, folds) === fold)
          samples.push(heldOut(model, 'excluded', label, v, c.excludedChinese?.[i] ?? false));
      });
    });
    input.none.forEach((v, i) => {
      if (foldOf(i, -1, folds) === fold) samples.push(heldOut(model, 'none', -1, v, input.noneChinese?.[i] ?? false));
    });
  }
  return { samples, timeGuardCuts };
}
