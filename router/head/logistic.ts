/**
 * Multinomial logistic regression over unit vectors, with L2 regularisation, fitted by L-BFGS. Each sample is
 * scored against its own candidate classes (its true class, the classes nearest to it, and the "none" class), so a
 * catalogue of thousands of capabilities trains in seconds: the classes far from a sample would get ~0 probability
 * and ~0 gradient anyway.
 */
import { minimize } from './lbfgs';

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
  /** Per sample, the classes its softmax runs over (its label included). */
  candidates: Int32Array[];
}

export interface LogisticOptions {
  /** Inverse regularisation strength, as in scikit-learn: larger fits the samples more closely. */
  c: number;
  maxIterations?: number;
  /** Training stops at this time (ms since the epoch) with the weights reached so far. */
  deadline?: number;
  /** Weights to start from (a good start makes a large catalogue converge in fewer iterations). */
  initial?: LinearWeights;
}

/** classes × (dims + 1): each row a class's weights, then its bias. */
export type LinearWeights = Float32Array;

export function fitLogistic(set: TrainingSet, options: LogisticOptions): { weights: LinearWeights; iterations: number } {
  const { dims, classes, labels, weights, candidates, against } = set;
  // Float64 throughout the hot loops: mixing Float32 reads into Float64 sums costs a conversion per element.
  const x = Float64Array.from(set.x);
  const stride = dims + 1;
  const n = labels.length;
  let totalWeight = 0;
  for (const w of weights) totalWeight += w;
  // scikit-learn's objective scaled by 1/Σw: Σ wᵢ·lossᵢ / Σw + ‖W‖² / (2·C·Σw)
  const lambda = 1 / (options.c * totalWeight);
  const widest = candidates.reduce((m, c) => Math.max(m, c.length), 0);
  const logits = new Float64Array(widest);
  const gradients = new Float64Array(widest);

  const objective = (theta: Float64Array, gradient: Float64Array): number => {
    gradient.fill(0);
    let loss = 0;
    for (let i = 0; i < n; i++) {
      const row = i * dims;
      const own = candidates[i]!;
      const m = own.length;
      const label = labels[i]!;
      let max = Number.NEGATIVE_INFINITY;
      let labelAt = -1;
      for (let c = 0; c < m; c++) {
        const k = own[c]!;
        if (k === label) labelAt = c;
        const base = k * stride;
        let z = theta[base + dims]!;
        for (let j = 0; j < dims; j++) z += theta[base + j]! * x[row + j]!;
        logits[c] = z;
        if (z > max) max = z;
      }
      let sum = 0;
      for (let c = 0; c < m; c++) {
        const e = Math.exp(logits[c]! - max);
        logits[c] = e;
        sum += e;
      }
      const w = weights[i]! / totalWeight;
      // d/dz_k of −log p_label is p_k − [k = label]; of −log(1 − p_label), p_label·([k = label] − p_k)/(1 − p_label).
      const pLabel = logits[labelAt]! / sum;
      const rest = Math.max(1e-12, 1 - pLabel);
      loss += against[i] ? -w * Math.log(rest) : -w * Math.log(Math.max(1e-300, pLabel));
      for (let c = 0; c < m; c++) {
        const p = logits[c]! / sum;
        const hit = c === labelAt ? 1 : 0;
        gradients[c] = against[i] ? (w * pLabel * (hit - p)) / rest : w * (p - hit);
      }
      for (let c = 0; c < m; c++) {
        const g = gradients[c]!;
        const base = own[c]! * stride;
        for (let j = 0; j < dims; j++) gradient[base + j]! += g * x[row + j]!;
        gradient[base + dims]! += g;
      }
    }
    for (let k = 0; k < classes; k++) {
      const base = k * stride;
      for (let j = 0; j < dims; j++) {
        loss += 0.5 * lambda * theta[base + j]! ** 2;
        gradient[base + j]! += lambda * theta[base + j]!;
      }
    }
    return loss;
  };

  const start = options.initial ? Float64Array.from(options.initial) : new Float64Array(classes * stride);
  const { x: theta, iterations } = minimize(objective, start, { maxIterations: options.maxIterations ?? 200, tolerance: 1e-6, ...(options.deadline ? { deadline: options.deadline } : {}) });
  return { weights: Float32Array.from(theta), iterations };
}

/** The logit of class k for feature vector v. */
export function logit(weights: LinearWeights, dims: number, k: number, v: Float32Array): number {
  const base = k * (dims + 1);
  let z = weights[base + dims]!;
  for (let j = 0; j < dims; j++) z += weights[base + j]! * v[j]!;
  return z;
}
