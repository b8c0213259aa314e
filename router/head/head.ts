/**
 * A classifier head trained on one tenant's catalogue: each capability is a class learned from its examples and
 * its card text, plus a "none" class learned from generic out-of-scope text and the capabilities' counter-examples.
 * Vectors are centred on the catalogue's mean and, when the catalogue is written in both Chinese and English, the
 * "language direction" is projected out, so a request in one language finds a capability described in the other.
 * The head gives calibrated probabilities: the refusal score is the best capability's probability against "none"
 * and the runner-up, not a raw cosine whose scale differs from one catalogue to the next.
 */
import { seededRandom } from '../../util/random';
import { bestBy } from '../select';
import type { Calibration } from './calibration';
import type { StopReason } from './lbfgs';
import { fitLogistic, logit, type LinearWeights } from './logistic';

export interface ClassTexts {
  key: string;
  vectors: Float32Array[];
  /** Per vector: was the text Chinese? (for the language direction) */
  chinese: boolean[];
  /** Texts the card says the capability does not handle (its exclusion clauses): evidence against this class. */
  excluded?: Float32Array[];
  /** Per excluded text: was it Chinese? (for calibrating by language direction) */
  excludedChinese?: boolean[];
  /**
   * Per vector, the unit cross-validation holds out together (the card's texts repeat each other, so they go out
   * as one, unit CARD_TEXTS_UNIT); by default each vector is its own unit.
   */
  units?: number[];
}

/** The unit of a class's card texts (name, description, tags), held out together by cross-validation. */
export const CARD_TEXTS_UNIT = -1;

export interface HeadTrainingInput {
  classes: ClassTexts[];
  /** Vectors of out-of-scope text: the generic set shipped with Agent-Reach and the catalogue's counter-examples. */
  none: Float32Array[];
  /** Per "none" vector: was the text Chinese? (for calibrating by language direction) */
  noneChinese?: boolean[];
  options?: Partial<HeadOptions>;
  /** Weights to start from (a head trained on nearly the same texts); by default each class's prototype. */
  initial?: LinearWeights;
}

export interface HeadOptions {
  c: number;
  /** Total weight of the "none" class relative to one capability's. */
  noneWeight: number;
  /** Total weight of a capability's excluded texts relative to its own examples. */
  exclusionWeight: number;
  /** Classes each sample (and each query) is scored against, nearest first; "none" is always added. */
  shortlist: number;
  /** Texts of each language the catalogue needs before the language direction is projected out. */
  minPerLanguage: number;
  /** L-BFGS iterations at most: what bounds the work, so the same catalogue always gives the same head. */
  maxIterations: number;
  /**
   * A failure guard, not a budget: a training still running after this long stops with the weights reached, and
   * its head says so (`training.time_guard_cuts`). Far above any normal training, even on a busy machine.
   */
  timeGuardMs: number;
}

export const DEFAULT_HEAD_OPTIONS: HeadOptions = {
  c: 100,
  noneWeight: 3,
  exclusionWeight: 0.5,
  shortlist: 48,
  minPerLanguage: 4,
  maxIterations: 150,
  timeGuardMs: 600_000,
};

/** Past this many capabilities, training scores each sample against a shortlist of classes, not all of them. */
const LARGE_CATALOGUE = 1_000;
/** Rival classes per training sample in a large catalogue. */
const LARGE_SHORTLIST = 16;
/** Width of the random projection that finds those rivals. */
const PROJECTED_DIMS = 64;
/**
 * L-BFGS iterations at most in a large catalogue: each costs seconds there (plain loops over tens of thousands of
 * samples), and the prototypes it starts from are already a fair head (5,000 capabilities reached 5–8 iterations
 * in the 45 s the time budget used to allow).
 */
export const LARGE_CATALOGUE_ITERATIONS = 8;

/** Rows of `matrix` (n × dims) projected to `width` dimensions by a fixed seeded Gaussian matrix. */
function randomProjection(matrix: Float32Array, n: number, dims: number, width: number) {
  const random = seededRandom(0x9e3779b9);
  const basis = Float32Array.from(
    { length: dims * width },
    () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random()),
  );
  const project = (x: Float32Array) => {
    const out = new Float32Array(width);
    for (let j = 0; j < dims; j++) {
      const v = x[j]!;
      if (v !== 0) for (let w = 0; w < width; w++) out[w]! += v * basis[j * width + w]!;
    }
    return out;
  };
  const vectors = new Float32Array(n * width);
  for (let i = 0; i < n; i++) vectors.set(project(matrix.subarray(i * dims, (i + 1) * dims)), i * width);
  return { vectors, dims: width, project };
}

/** Logit scale of the starting weights: each class starts as its prototype, "none" as the generic texts' mean. */
const WARM_START_SCALE = 10;

function warmStart(prototypes: Float32Array, none: Float32Array[], classes: number, dims: number): Float32Array {
  const stride = dims + 1;
  const weights = new Float32Array((classes + 1) * stride);
  for (let k = 0; k < classes; k++) {
    for (let j = 0; j < dims; j++) weights[k * stride + j] = WARM_START_SCALE * prototypes[k * dims + j]!;
  }
  if (none.length > 0) {
    const mean = unit(average(none, dims));
    for (let j = 0; j < dims; j++) weights[classes * stride + j] = WARM_START_SCALE * mean[j]!;
  }
  return weights;
}

export interface HeadTraining {
  samples: number;
  iterations: number;
  stopped: StopReason;
  ms: number;
  held_out_ms?: number;
  /**
   * Trainings of this head (itself, its cross-validation folds) that the time guard cut short: their weights, and so
   * the operating point, depend on the machine's load. Absent when none was.
   */
  time_guard_cuts?: number;
}

export interface HeadModel {
  keys: string[];
  dims: number;
  mean: Float32Array;
  /** Unit vector of the language direction, when projected out. */
  language: Float32Array | null;
  /** (keys.length + 1) rows: the capabilities in order, then "none". */
  weights: LinearWeights;
  /** keys.length × dims: each class's mean feature vector, to shortlist the classes a query is scored against. */
  prototypes: Float32Array;
  /** Per class: 1 when most of its texts are Chinese (a query in the other language is a cross-lingual one). */
  chineseCard: Uint8Array;
  /** How the training went: samples, L-BFGS iterations and why they stopped, wall time (and that of the held-out heads). */
  training: HeadTraining;
  shortlist: number;
}

/** The fence nearest a request on the best cards, and its gap (card-borders.ts, `CardBorders.gaps`). */
export interface NearestFence {
  gap: number;
  fence: string;
}

/** The border a request crossed (card-borders.ts): the clause, or the lesson (a request reported misrouted) it repeats. */
export interface Crossing {
  clause: string;
  learned: boolean;
  /** The word of the clause the request names, when that, not nearness, put it across (fence-words.ts). */
  word?: string;
}

export interface HeadScore {
  key: string;
  probability: number;
}

export interface HeadPrediction {
  /** The shortlisted capabilities, most probable first. */
  ranked: HeadScore[];
  none: number;
  /** Whether two capabilities are the same service offered twice (their probabilities then add up). */
  same: (a: string, b: string) => boolean;
  /** Capabilities whose card is written in the other language than the query (Chinese vs not). */
  crossLingual: ReadonlySet<string>;
  /** The operating point fitted when the heads trained (calibration.ts). */
  calibration?: Calibration;
  /** Capabilities whose card excludes the request (card-borders.ts), each with the clause it falls under. */
  crossed?: ReadonlyMap<string, Crossing>;
  /** The best capabilities' gaps to the nearest fence on their cards (card-borders.ts, `gaps`), where there are fences. */
  gaps?: ReadonlyMap<string, NearestFence>;
  /** The heads that gave it, `<model>+…+head` (a catalogue's late heads join after the first ones: head-matcher.ts). */
  provider?: string;
}

function unit(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum) || 1;
  for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

function average(vectors: Float32Array[], dims: number): Float32Array {
  const sum = new Float32Array(dims);
  for (const v of vectors) for (let i = 0; i < dims; i++) sum[i]! += v[i]!;
  if (vectors.length > 0) for (let i = 0; i < dims; i++) sum[i]! /= vectors.length;
  return sum;
}

function dotRow(a: Float32Array, matrix: Float32Array, row: number, dims: number): number {
  let sum = 0;
  const base = row * dims;
  for (let i = 0; i < dims; i++) sum += a[i]! * matrix[base + i]!;
  return sum;
}

/** The vector as the head sees it: centred, without its language component, unit length. */
export function features(model: Pick<HeadModel, 'dims' | 'mean' | 'language'>, vector: Float32Array): Float32Array {
  const out = new Float32Array(model.dims);
  for (let i = 0; i < model.dims; i++) out[i] = vector[i]! - model.mean[i]!;
  if (model.language) {
    let along = 0;
    for (let i = 0; i < model.dims; i++) along += out[i]! * model.language[i]!;
    for (let i = 0; i < model.dims; i++) out[i]! -= along * model.language[i]!;
  }
  return unit(out);
}

/** Indices of the `count` largest values (a partial selection: thousands of classes, a short list). */
function topIndices(values: Float32Array, count: number): number[] {
  const indices = [...values.keys()];
  return indices.length <= count ? indices : bestBy(indices, count, (i) => values[i]!);
}

function languageDirection(classes: ClassTexts[], dims: number, minPerLanguage: number): Float32Array | null {
  const zh: Float32Array[] = [];
  const en: Float32Array[] = [];
  for (const c of classes) c.vectors.forEach((v, i) => (c.chinese[i] ? zh : en).push(v));
  if (zh.length < minPerLanguage || en.length < minPerLanguage) return null;
  const a = average(zh, dims);
  const b = average(en, dims);
  for (let i = 0; i < dims; i++) a[i]! -= b[i]!;
  return unit(a);
}

/**
 * In a large catalogue, the classes each training sample competes with: those nearest its own class (found once
 * per class: thousands of classes × their samples would cost minutes), or for a "none" sample those nearest it —
 * found in a random projection (approximate neighbours suffice to pick whom a sample competes with).
 */
function rivalsOf(
  keys: string[],
  prototypes: Float32Array,
  dims: number,
  rows: readonly { x: Float32Array; label: number }[],
  shortlist: number,
): Int32Array[] {
  const k = keys.length;
  const space = randomProjection(prototypes, k, dims, PROJECTED_DIMS);
  const shortlistOf = (x: Float32Array) =>
    shortlistFor(
      { prototypes: space.vectors, dims: space.dims, keys, shortlist: Math.min(shortlist, LARGE_SHORTLIST) },
      x,
    );
  const classShortlists = keys.map((_, i) =>
    Int32Array.from(new Set([...shortlistOf(space.vectors.subarray(i * space.dims, (i + 1) * space.dims)), i, k])),
  );
  return rows.map((r) =>
    r.label < k ? classShortlists[r.label]! : Int32Array.from(new Set([...shortlistOf(space.project(r.x)), k])),
  );
}

/** The head, trained on `input`; `now` is the clock the time guard reads. */
export async function trainHead(input: HeadTrainingInput, now: () => number = Date.now): Promise<HeadModel> {
  const started = now();
  const options = { ...DEFAULT_HEAD_OPTIONS, ...input.options };
  const dims = input.classes.find((c) => c.vectors.length > 0)?.vectors[0]!.length ?? input.none[0]?.length ?? 0;
  const all = input.classes.flatMap((c) => c.vectors);
  const base = {
    dims,
    mean: average(all, dims),
    language: languageDirection(input.classes, dims, options.minPerLanguage),
  };
  const k = input.classes.length;
  const prototypes = new Float32Array(k * dims);
  const classFeatures = input.classes.map((c, i) => {
    const f = c.vectors.map((v) => features(base, v));
    prototypes.set(unit(average(f, dims)), i * dims);
    return f;
  });
  const noneFeatures = input.none.map((v) => features(base, v));

  const rows: { x: Float32Array; label: number; weight: number; against?: boolean }[] = [];
  classFeatures.forEach((f, label) => f.forEach((x) => rows.push({ x, label, weight: 1 / f.length })));
  noneFeatures.forEach((x) => rows.push({ x, label: k, weight: options.noneWeight / noneFeatures.length }));
  input.classes.forEach((c, label) => {
    const excluded = c.excluded ?? [];
    for (const v of excluded)
      rows.push({ x: features(base, v), label, weight: options.exclusionWeight / excluded.length, against: true });
  });
  const x = new Float32Array(rows.length * dims);
  rows.forEach((r, i) => x.set(r.x, i * dims));
  const keys = input.classes.map((c) => c.key);
  const large = k > LARGE_CATALOGUE;
  const maxIterations = large ? Math.min(options.maxIterations, LARGE_CATALOGUE_ITERATIONS) : options.maxIterations;
  const { weights, iterations, stopped } = await fitLogistic(
    {
      dims,
      classes: k + 1,
      x,
      labels: Int32Array.from(rows.map((r) => r.label)),
      against: Uint8Array.from(rows.map((r) => (r.against ? 1 : 0))),
      weights: Float32Array.from(rows.map((r) => r.weight)),
      ...(large ? { candidates: rivalsOf(keys, prototypes, dims, rows, options.shortlist) } : {}),
    },
    {
      c: options.c,
      maxIterations,
      deadline: started + options.timeGuardMs,
      now,
      initial: input.initial ?? warmStart(prototypes, noneFeatures, k, dims),
    },
  );
  const chineseCard = Uint8Array.from(
    input.classes.map((c) => (c.chinese.filter(Boolean).length * 2 > c.chinese.length ? 1 : 0)),
  );
  const training: HeadTraining = {
    samples: rows.length,
    iterations,
    stopped,
    ms: now() - started,
    ...(stopped === 'time_guard' ? { time_guard_cuts: 1 } : {}),
  };
  return { keys, ...base, weights, prototypes, chineseCard, shortlist: options.shortlist, training };
}

function shortlistFor(model: Pick<HeadModel, 'prototypes' | 'dims' | 'keys' | 'shortlist'>, f: Float32Array): number[] {
  const similarity = new Float32Array(model.keys.length);
  for (let i = 0; i < model.keys.length; i++) similarity[i] = dotRow(f, model.prototypes, i, model.dims);
  return topIndices(similarity, model.shortlist);
}

export function predict(model: HeadModel, vector: Float32Array, queryChinese: boolean): HeadPrediction {
  const f = features(model, vector);
  const classes = [...shortlistFor(model, f), model.keys.length];
  const logits = classes.map((k) => logit(model.weights, model.dims, k, f));
  const max = Math.max(...logits);
  const exp = logits.map((z) => Math.exp(z - max));
  const total = exp.reduce((a, b) => a + b, 0);
  const ranked = classes
    .slice(0, -1)
    .map((k, i) => ({ key: model.keys[k]!, probability: exp[i]! / total }))
    .sort((a, b) => b.probability - a.probability);
  const crossLingual = new Set(
    classes
      .slice(0, -1)
      .filter((k) => (model.chineseCard[k] === 1) !== queryChinese)
      .map((k) => model.keys[k]!),
  );
  return { ranked, none: exp.at(-1)! / total, same: (a, b) => sameService(model, a, b), crossLingual };
}

/** Cosine between two capabilities' prototypes from which they count as the same service offered twice. */
export const SAME_SERVICE = 0.9;

const indexes = new WeakMap<HeadModel, Map<string, number>>();

function indexOf(model: HeadModel, key: string): number | undefined {
  let index = indexes.get(model);
  if (!index) {
    index = new Map(model.keys.map((k, i) => [k, i]));
    indexes.set(model, index);
  }
  return index.get(key);
}

/** Whether two capabilities are the same service (near-identical cards, e.g. one service registered by two agents). */
export function sameService(model: HeadModel, a: string, b: string): boolean {
  const i = indexOf(model, a);
  const j = indexOf(model, b);
  if (i === undefined || j === undefined) return false;
  let sum = 0;
  for (let d = 0; d < model.dims; d++)
    sum += model.prototypes[i * model.dims + d]! * model.prototypes[j * model.dims + d]!;
  return sum >= SAME_SERVICE;
}

/**
 * Several heads' predictions as one (the mean of their probabilities; a capability one head did not shortlist
 * counts 0 there). Sameness of services comes from the first head's prototypes.
 */
export function averagePredictions(predictions: readonly HeadPrediction[]): HeadPrediction {
  if (predictions.length === 1) return predictions[0]!;
  const sum = new Map<string, number>();
  for (const p of predictions)
    for (const { key, probability } of p.ranked) sum.set(key, (sum.get(key) ?? 0) + probability);
  const n = predictions.length;
  return {
    ranked: [...sum]
      .map(([key, total]) => ({ key, probability: total / n }))
      .sort((a, b) => b.probability - a.probability),
    none: predictions.reduce((total, p) => total + p.none, 0) / n,
    same: predictions[0]!.same,
    crossLingual: new Set(predictions.flatMap((p) => [...p.crossLingual])),
  };
}
