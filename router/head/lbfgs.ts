/**
 * Limited-memory BFGS: minimises a smooth function from its value and gradient (two-loop recursion, backtracking
 * line search with the Armijo condition). Small and deterministic; enough for the router's linear heads.
 */

/** The function's value at x, its gradient written into `gradient` (a promise where the work runs elsewhere, e.g. onnxruntime). */
export type Objective = (x: Float64Array, gradient: Float64Array) => number | Promise<number>;

export interface LbfgsOptions {
  maxIterations?: number;
  /** Pairs of steps remembered. */
  memory?: number;
  /** Stop when the gradient's largest component falls below this. */
  tolerance?: number;
  /**
   * A failure guard, not a budget: stop at the first iteration that ends after this time (ms since the epoch),
   * keeping the best point so far, and say so (`stopped: 'time_guard'`). Where it fires the result depends on the
   * machine's speed and load.
   */
  deadline?: number;
  /** The clock the deadline is read on (ms since the epoch). */
  now?: () => number;
}

/** Why the minimisation stopped: at a minimum (or no further progress), at `maxIterations`, or by the time guard. */
export type StopReason = 'converged' | 'iterations' | 'time_guard';

export interface LbfgsResult {
  x: Float64Array;
  value: number;
  iterations: number;
  stopped: StopReason;
}

function dotProduct(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

function maxAbs(a: Float64Array): number {
  let max = 0;
  for (const v of a) max = Math.max(max, Math.abs(v));
  return max;
}

/** The search direction −H·g from the remembered steps s and gradient changes y. */
function direction(gradient: Float64Array, s: Float64Array[], y: Float64Array[], rho: number[]): Float64Array {
  const q = Float64Array.from(gradient);
  const alpha: number[] = [];
  for (let i = s.length - 1; i >= 0; i--) {
    alpha[i] = rho[i]! * dotProduct(s[i]!, q);
    for (let j = 0; j < q.length; j++) q[j]! -= alpha[i]! * y[i]![j]!;
  }
  if (s.length > 0) {
    const last = s.length - 1;
    const gamma = dotProduct(s[last]!, y[last]!) / dotProduct(y[last]!, y[last]!);
    for (let j = 0; j < q.length; j++) q[j]! *= gamma;
  }
  for (let i = 0; i < s.length; i++) {
    const beta = rho[i]! * dotProduct(y[i]!, q);
    for (let j = 0; j < q.length; j++) q[j]! += s[i]![j]! * (alpha[i]! - beta);
  }
  for (let j = 0; j < q.length; j++) q[j] = -q[j]!;
  return q;
}

/** x + step·d, into `out`. */
function stepAlong(x: Float64Array, d: Float64Array, step: number, out: Float64Array): void {
  for (let i = 0; i < x.length; i++) out[i] = x[i]! + step * d[i]!;
}

/** b − a. */
function difference(b: Float64Array, a: Float64Array): Float64Array {
  const out = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = b[i]! - a[i]!;
  return out;
}

// The vector loops live in the small functions above: V8 optimises loops in an async function poorly.
export async function minimize(
  objective: Objective,
  start: Float64Array,
  options: LbfgsOptions = {},
): Promise<LbfgsResult> {
  const {
    maxIterations = 100,
    memory = 8,
    tolerance = 1e-5,
    deadline = Number.POSITIVE_INFINITY,
    now = Date.now,
  } = options;
  const n = start.length;
  let x = Float64Array.from(start);
  let gradient = new Float64Array(n);
  let value = await objective(x, gradient);
  const s: Float64Array[] = [];
  const y: Float64Array[] = [];
  const rho: number[] = [];
  let iterations = 0;
  let stopped: StopReason = 'iterations';
  for (; iterations < maxIterations; iterations++) {
    if (maxAbs(gradient) <= tolerance) {
      stopped = 'converged';
      break;
    }
    if (now() >= deadline) {
      stopped = 'time_guard';
      break;
    }
    let d = direction(gradient, s, y, rho);
    let slope = dotProduct(d, gradient);
    if (slope >= 0) {
      // Not a descent direction (curvature information gone stale): restart from steepest descent.
      s.length = y.length = rho.length = 0;
      d = gradient.map((g) => -g);
      slope = dotProduct(d, gradient);
    }
    let step = iterations === 0 ? 1 / Math.max(1, maxAbs(gradient)) : 1;
    const next = new Float64Array(n);
    const nextGradient = new Float64Array(n);
    let nextValue = Number.POSITIVE_INFINITY;
    for (let tries = 0; tries < 30; tries++) {
      stepAlong(x, d, step, next);
      nextValue = await objective(next, nextGradient);
      if (nextValue <= value + 1e-4 * step * slope) break;
      step /= 2;
    }
    if (!(nextValue < value)) {
      stopped = 'converged';
      break;
    }
    const sk = difference(next, x);
    const yk = difference(nextGradient, gradient);
    const sy = dotProduct(sk, yk);
    if (sy > 1e-12) {
      s.push(sk);
      y.push(yk);
      rho.push(1 / sy);
      if (s.length > memory) {
        s.shift();
        y.shift();
        rho.shift();
      }
    }
    const converged = Math.abs(value - nextValue) < 1e-10 * Math.max(1, Math.abs(value));
    x = next;
    gradient = nextGradient;
    value = nextValue;
    if (converged) {
      stopped = 'converged';
      iterations++;
      break;
    }
  }
  return { x, value, iterations, stopped };
}
