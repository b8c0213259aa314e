/**
 * Multinomial logistic regression over unit vectors, with L2 regularisation, fitted by L-BFGS. Each sample is
 * scored against every class, as matrix products run by onnxruntime (matrix-products.ts); or, in a catalogue of
 * thousands of capabilities, against its own candidate classes only (its true class, the classes nearest to it,
 * and the "none" class), in plain loops: the classes far from a sample would get ~0 probability and ~0 gradient
 * anyway.
 */
import { minimize, type Objective, type StopReason } from './lbfgs';
import { matrixProducts } from './matrix-products';

export interface TrainingSet {
  dims: number;
  classes: number;
  /** n × dims, row-major. */
  x: Float32Array;
  labels: Int32Array;
  /**
   * 1 where the sample is evidence *against* its label (a text the class's card excludes): its loss is
   * −log(1 − p_label), which lowers that class without saying which other class, or none, the text belongs to.
   */
  against: Uint8Array;
  /** Per-sample weight (class balance). */
  weights: Float32Array;
  /** Per sample, the classes its softmax runs over (its label included); absent: every class. */
  candidates?: Int32Array[];
}

export interface LogisticOptions {
  /** Inverse regularisation strength, as in scikit-learn: larger fits the samples more closely. */
  c: number;
  maxIterations?: number;
  /** A failure guard (lbfgs.ts): training stops at this time (ms since the epoch) with the weights reached so far. */
  deadline?: number;
  /** The clock the deadline is read on. */
  now?: () => number;
  /** Weights to start from (a good start makes a large catalogue converge in fewer iterations). */
  initial?: LinearWeights;
}

/** classes × (dims + 1): each row a class's weights, then its bias. */
export type LinearWeights = Float32Array;

/** The sample's loss and, per class c of its softmax, d loss / d logit_c (written into `out`). */
function sampleLoss(
  probabilities: Float64Array,
  m: number,
  labelAt: number,
  against: boolean,
  w: number,
  out: Float64Array,
): number {
  // d/dz_k of −log p_label is p_k − [k = label]; of −log(1 − p_label), p_label·([k = label] − p_k)/(1 − p_label).
  const pLabel = probabilities[labelAt]!;
  const rest = Math.max(1e-12, 1 - pLabel);
  for (let c = 0; c < m; c++) {
    const p = probabilities[c]!;
    const hit = c === labelAt ? 1 : 0;
    out[c] = against ? (w * pLabel * (hit - p)) / rest : w * (p - hit);
  }
  return against ? -w * Math.log(rest) : -w * Math.log(Math.max(1e-300, pLabel));
}

/** In place: logits → probabilities (softmax over the first m). */
function softmax(values: Float64Array, m: number): void {
  let max = Number.NEGATIVE_INFINITY;
  for (let c = 0; c < m; c++) if (values[c]! > max) max = values[c]!;
  let sum = 0;
  for (let c = 0; c < m; c++) {
    values[c] = Math.exp(values[c]! - max);
    sum += values[c]!;
  }
  for (let c = 0; c < m; c++) values[c]! /= sum;
}

/** ‖W‖²·λ/2 (biases free) added to the loss, λ·W to the gradient. */
function regularise(
  theta: Float64Array,
  gradient: Float64Array,
  classes: number,
  dims: number,
  lambda: number,
): number {
  let loss = 0;
  const stride = dims + 1;
  for (let k = 0; k < classes; k++) {
    const base = k * stride;
    for (let j = 0; j < dims; j++) {
      loss += 0.5 * lambda * theta[base + j]! ** 2;
      gradient[base + j]! += lambda * theta[base + j]!;
    }
  }
  return loss;
}

/**
 * The dense objective's work between the two matrix products, in plain functions: V8 optimises loops in an async
 * function poorly (they ran several times slower there).
 */
const dense = {
  /** The classes' weights without their biases, as a classes × dims Float32 matrix. */
  weightMatrix(theta: Float64Array, classes: number, dims: number, out: Float32Array): void {
    for (let k = 0; k < classes; k++) for (let j = 0; j < dims; j++) out[k * dims + j] = theta[k * (dims + 1) + j]!;
  },
  /** From the logits X·Wᵀ: the loss, and d loss / d logit per sample and class in `g32`. */
  loss(set: TrainingSet, z: Float32Array, theta: Float64Array, totalWeight: number, g32: Float32Array): number {
    const { dims, classes, labels, weights, against } = set;
    const row = new Float64Array(classes);
    const out = new Float64Array(classes);
    let loss = 0;
    for (let i = 0; i < labels.length; i++) {
      for (let c = 0; c < classes; c++) row[c] = z[i * classes + c]! + theta[c * (dims + 1) + dims]!;
      softmax(row, classes);
      loss += sampleLoss(row, classes, labels[i]!, against[i] === 1, weights[i]! / totalWeight, out);
      for (let c = 0; c < classes; c++) g32[i * classes + c] = out[c]!;
    }
    return loss;
  },
  /** The gradient from Gᵀ·X (weights) and the column sums of G (biases). */
  gradient(
    gw: Float32Array,
    g32: Float32Array,
    n: number,
    classes: number,
    dims: number,
    gradient: Float64Array,
  ): void {
    const stride = dims + 1;
    for (let k = 0; k < classes; k++) {
      for (let j = 0; j < dims; j++) gradient[k * stride + j] = gw[k * dims + j]!;
      gradient[k * stride + dims] = 0;
    }
    for (let i = 0; i < n; i++) for (let k = 0; k < classes; k++) gradient[k * stride + dims]! += g32[i * classes + k]!;
  },
};

/** Every sample against every class: logits X·Wᵀ and gradient Gᵀ·X as onnxruntime matrix products. */
function denseObjective(set: TrainingSet, totalWeight: number, lambda: number): Objective {
  const { dims, classes, x } = set;
  const n = set.labels.length;
  const w32 = new Float32Array(classes * dims);
  const g32 = new Float32Array(n * classes);
  return async (theta, gradient) => {
    gradient.fill(0);
    let loss = 0;
    if (n > 0) {
      const products = await matrixProducts();
      dense.weightMatrix(theta, classes, dims, w32);
      const z = await products.timesTransposed(x, n, dims, w32, classes);
      loss = dense.loss(set, z, theta, totalWeight, g32);
      dense.gradient(await products.transposedTimes(g32, n, classes, x, dims), g32, n, classes, dims, gradient);
    }
    return loss + regularise(theta, gradient, classes, dims, lambda);
  };
}

/** Each sample against its own candidate classes only, in plain loops. */
function shortlistObjective(
  set: TrainingSet,
  candidates: Int32Array[],
  totalWeight: number,
  lambda: number,
): Objective {
  const { dims, classes, labels, weights, against } = set;
  // Float64 throughout the hot loops: mixing Float32 reads into Float64 sums costs a conversion per element.
  const x = Float64Array.from(set.x);
  const stride = dims + 1;
  const n = labels.length;
  const widest = candidates.reduce((m, c) => Math.max(m, c.length), 0);
  const probabilities = new Float64Array(widest);
  const gradients = new Float64Array(widest);
  return (theta, gradient) => {
    gradient.fill(0);
    let loss = 0;
    for (let i = 0; i < n; i++) {
      const rowAt = i * dims;
      const own = candidates[i]!;
      const m = own.length;
      let labelAt = -1;
      for (let c = 0; c < m; c++) {
        const k = own[c]!;
        if (k === labels[i]) labelAt = c;
        const base = k * stride;
        let z = theta[base + dims]!;
        for (let j = 0; j < dims; j++) z += theta[base + j]! * x[rowAt + j]!;
        probabilities[c] = z;
      }
      softmax(probabilities, m);
      loss += sampleLoss(probabilities, m, labelAt, against[i] === 1, weights[i]! / totalWeight, gradients);
      for (let c = 0; c < m; c++) {
        const g = gradients[c]!;
        const base = own[c]! * stride;
        for (let j = 0; j < dims; j++) gradient[base + j]! += g * x[rowAt + j]!;
        gradient[base + dims]! += g;
      }
    }
    return loss + regularise(theta, gradient, classes, dims, lambda);
  };
}

export async function fitLogistic(
  set: TrainingSet,
  options: LogisticOptions,
): Promise<{ weights: LinearWeights; iterations: number; stopped: StopReason }> {
  const stride = set.dims + 1;
  let totalWeight = 0;
  for (const w of set.weights) totalWeight += w;
  // scikit-learn's objective scaled by 1/Σw: Σ wᵢ·lossᵢ / Σw + ‖W‖² / (2·C·Σw)
  const lambda = 1 / (options.c * totalWeight);
  const objective = set.candidates
    ? shortlistObjective(set, set.candidates, totalWeight, lambda)
    : denseObjective(set, totalWeight, lambda);
  const start = options.initial ? Float64Array.from(options.initial) : new Float64Array(set.classes * stride);
  const guard = {
    ...(options.deadline ? { deadline: options.deadline } : {}),
    ...(options.now ? { now: options.now } : {}),
  };
  const {
    x: theta,
    iterations,
    stopped,
  } = await minimize(objective, start, { maxIterations: options.maxIterations ?? 200, tolerance: 1e-6, ...guard });
  return { weights: Float32Array.from(theta), iterations, stopped };
}

/** The logit of class k for feature vector v. */
export function logit(weights: LinearWeights, dims: number, k: number, v: Float32Array): number {
  const base = k * (dims + 1);
  let z = weights[base + dims]!;
  for (let j = 0; j < dims; j++) z += weights[base + j]! * v[j]!;
  return z;
}
