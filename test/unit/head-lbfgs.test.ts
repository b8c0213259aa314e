/** L-BFGS (router/head/lbfgs.ts), table-driven, on functions whose minimum is known. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { minimize, type Objective } from '../../router/head/lbfgs';

/** ½·xᵀAx − bᵀx for a symmetric positive definite A: minimum at A⁻¹b. */
function quadratic(a: number[][], b: number[]): Objective {
  return (x, gradient) => {
    let value = 0;
    for (let i = 0; i < b.length; i++) {
      let ax = 0;
      for (let j = 0; j < b.length; j++) ax += a[i]![j]! * x[j]!;
      gradient[i] = ax - b[i]!;
      value += 0.5 * x[i]! * ax - b[i]! * x[i]!;
    }
    return value;
  };
}

const rosenbrock = (x: Float64Array, gradient: Float64Array): number => {
  const [a, b] = [x[0]!, x[1]!];
  gradient[0] = -2 * (1 - a) - 400 * a * (b - a * a);
  gradient[1] = 200 * (b - a * a);
  return (1 - a) ** 2 + 100 * (b - a * a) ** 2;
};

/** (x − 3)⁴ + (x − 3)²: flat near its minimum at 3. */
const quartic: Objective = (x, gradient) => {
  const d = x[0]! - 3;
  gradient[0] = 4 * d ** 3 + 2 * d;
  return d ** 4 + d ** 2;
};

/** Σ exp(xᵢ) − 2·xᵢ: separable, minimum at ln 2 in every coordinate. */
const exponential: Objective = (x, gradient) => {
  let value = 0;
  for (let i = 0; i < x.length; i++) {
    gradient[i] = Math.exp(x[i]!) - 2;
    value += Math.exp(x[i]!) - 2 * x[i]!;
  }
  return value;
};

interface Case {
  name: string;
  objective: Objective;
  start: number[];
  want: number[];
  wantValue: number;
  tolerance: number;
  maxIterations: number;
}

const cases: Case[] = [
  {
    name: 'convex quadratic, diagonal (ill-conditioned)',
    objective: quadratic(
      [
        [1, 0, 0],
        [0, 10, 0],
        [0, 0, 100],
      ],
      [1, 20, -300],
    ),
    start: [0, 0, 0],
    want: [1, 2, -3],
    wantValue: -(0.5 * 1 + 0.5 * 40 + 0.5 * 900),
    tolerance: 1e-4,
    maxIterations: 100,
  },
  {
    name: 'convex quadratic, coupled 2-D',
    // A = [[4, 1], [1, 3]], b = A·[1, −2] = [2, −5]
    objective: quadratic(
      [
        [4, 1],
        [1, 3],
      ],
      [2, -5],
    ),
    start: [10, 10],
    want: [1, -2],
    wantValue: -0.5 * (2 * 1 + -5 * -2),
    tolerance: 1e-5,
    maxIterations: 50,
  },
  {
    name: 'Rosenbrock from (−1.2, 1)',
    objective: rosenbrock,
    start: [-1.2, 1],
    want: [1, 1],
    wantValue: 0,
    tolerance: 1e-4,
    maxIterations: 100,
  },
  {
    name: '1-D quartic from 10',
    objective: quartic,
    start: [10],
    want: [3],
    wantValue: 0,
    tolerance: 1e-4,
    maxIterations: 100,
  },
  {
    name: 'separable exponential, 5-D',
    objective: exponential,
    start: [-2, -1, 0, 1, 2],
    want: Array(5).fill(Math.LN2),
    wantValue: 5 * (2 - 2 * Math.LN2),
    tolerance: 1e-4,
    maxIterations: 100,
  },
];

describe('lbfgs', () => {
  for (const c of cases) {
    it(`lbfgs - ${c.name} reaches its minimum within ${c.maxIterations} iterations`, async () => {
      const result = await minimize(c.objective, Float64Array.from(c.start), { maxIterations: c.maxIterations });
      assert.ok(result.iterations <= c.maxIterations, `iterations ${result.iterations}`);
      assert.ok(result.iterations > 0);
      c.want.forEach((w, i) =>
        assert.ok(Math.abs(result.x[i]! - w) < c.tolerance, `x[${i}] = ${result.x[i]}, want ${w}`),
      );
      assert.ok(Math.abs(result.value - c.wantValue) < 1e-6, `value ${result.value}, want ${c.wantValue}`);
      // The value returned is the objective at the x returned.
      assert.equal(result.value, c.objective(Float64Array.from(result.x), new Float64Array(c.start.length)));
    });
  }

  const budgets = [0, 1, 3, 10];
  for (const maxIterations of budgets) {
    it(`lbfgs - Rosenbrock with a budget of ${maxIterations} iterations stops there, never above its start`, async () => {
      const start = Float64Array.from([-1.2, 1]);
      const startValue = rosenbrock(start, new Float64Array(2));
      const result = await minimize(rosenbrock, start, { maxIterations });
      assert.ok(result.iterations <= maxIterations, `iterations ${result.iterations}`);
      assert.ok(result.value <= startValue);
      if (maxIterations === 0) assert.deepEqual([...result.x], [-1.2, 1]);
      else assert.ok(result.value < startValue);
    });
  }

  it('lbfgs - starting at the minimum takes no step, and the start vector is not modified', async () => {
    const start = Float64Array.from([1, 1]);
    const result = await minimize(rosenbrock, start);
    assert.equal(result.iterations, 0);
    assert.deepEqual([...result.x], [1, 1]);
    assert.equal(result.value, 0);
    assert.notEqual(result.x, start);

    const other = Float64Array.from([-1.2, 1]);
    await minimize(rosenbrock, other);
    assert.deepEqual([...other], [-1.2, 1]);
  });

  it('lbfgs - a looser tolerance stops earlier; a memory of 1 still converges', async () => {
    const tight = await minimize(rosenbrock, Float64Array.from([-1.2, 1]), { tolerance: 1e-8 });
    const loose = await minimize(rosenbrock, Float64Array.from([-1.2, 1]), { tolerance: 1 });
    assert.ok(loose.iterations < tight.iterations, `${loose.iterations} vs ${tight.iterations}`);
    const short = await minimize(
      quadratic(
        [
          [4, 1],
          [1, 3],
        ],
        [2, -5],
      ),
      Float64Array.from([10, 10]),
      { memory: 1 },
    );
    assert.ok(Math.abs(short.x[0]! - 1) < 1e-5 && Math.abs(short.x[1]! + 2) < 1e-5, `${short.x}`);
  });

  it('lbfgs - says why it stopped: converged, at its iteration bound, or cut by the time guard (read on the clock given)', async () => {
    assert.equal((await minimize(rosenbrock, Float64Array.from([-1.2, 1]))).stopped, 'converged');
    assert.equal(
      (await minimize(rosenbrock, Float64Array.from([-1.2, 1]), { maxIterations: 3 })).stopped,
      'iterations',
    );
    let t = 0;
    const guarded = await minimize(rosenbrock, Float64Array.from([-1.2, 1]), { deadline: 2, now: () => t++ });
    assert.equal(guarded.stopped, 'time_guard');
    assert.equal(guarded.iterations, 2);
  });

  it('lbfgs - deterministic: the same problem gives the same result bit for bit', async () => {
    const a = await minimize(rosenbrock, Float64Array.from([-1.2, 1]));
    const b = await minimize(rosenbrock, Float64Array.from([-1.2, 1]));
    assert.deepEqual(a, b);
  });
});
