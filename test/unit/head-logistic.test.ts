/** Multinomial logistic regression (router/head/logistic.ts) on small 2-D toy sets. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fitLogistic, logit, type LinearWeights, type TrainingSet } from '../../router/head/logistic';

const DIMS = 2;

/** Three clusters of unit vectors at 90°, 210° and 330°, five points each, ±0.2 rad around the centre. */
const ANGLES = [Math.PI / 2, (7 * Math.PI) / 6, (11 * Math.PI) / 6];
const OFFSETS = [-0.2, -0.1, 0, 0.1, 0.2];

function point(angle: number): [number, number] {
  return [Math.cos(angle), Math.sin(angle)];
}

interface Sample {
  x: [number, number];
  label: number;
  against?: boolean;
  weight?: number;
  candidates?: number[];
}

const clusters: Sample[] = ANGLES.flatMap((centre, label) => OFFSETS.map((o) => ({ x: point(centre + o), label })));

function set(samples: Sample[], classes = 3): TrainingSet {
  const all = [...Array(classes).keys()];
  return {
    dims: DIMS,
    classes,
    x: Float32Array.from(samples.flatMap((s) => s.x)),
    labels: Int32Array.from(samples.map((s) => s.label)),
    against: Uint8Array.from(samples.map((s) => (s.against ? 1 : 0))),
    weights: Float32Array.from(samples.map((s) => s.weight ?? 1)),
    // Without candidates anywhere, every sample is scored against every class (the matrix-product path).
    ...(samples.some((s) => s.candidates)
      ? { candidates: samples.map((s) => Int32Array.from(s.candidates ?? all)) }
      : {}),
  };
}

/** Softmax over all classes (or the given ones) at x. */
function probabilities(weights: LinearWeights, classes: number, x: [number, number]): number[] {
  const v = Float32Array.from(x);
  const z = [...Array(classes).keys()].map((k) => logit(weights, DIMS, k, v));
  const max = Math.max(...z);
  const e = z.map((v) => Math.exp(v - max));
  const total = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / total);
}

function argmax(values: number[]): number {
  return values.indexOf(Math.max(...values));
}

describe('logit', () => {
  // classes × (dims + 1): [w₀, w₁, bias] per class.
  const weights = Float32Array.from([1, 2, 0.5, -1, 0, 0, 0, 0, 3]);
  const cases: [number, [number, number], number][] = [
    [0, [1, 1], 3.5],
    [0, [0, 0], 0.5],
    [0, [-1, 0.5], 0.5],
    [1, [2, 7], -2],
    [2, [5, -5], 3],
  ];
  for (const [k, x, want] of cases) {
    it(`logit - class ${k} at (${x}) = ${want}`, () =>
      assert.equal(logit(weights, DIMS, k, Float32Array.from(x)), want));
  }
});

describe('fitLogistic', () => {
  it('fitLogistic - separable 2-D data with 3 classes: every training point is classified as its label', async () => {
    const weights = (await fitLogistic(set(clusters), { c: 10 })).weights;
    assert.equal(weights.length, 3 * (DIMS + 1));
    for (const s of clusters) {
      const p = probabilities(weights, 3, s.x);
      assert.equal(argmax(p), s.label, `(${s.x}) → ${p}`);
    }
    // …and so is each cluster's centre, never seen in training with that exact value.
    ANGLES.forEach((a, label) => assert.equal(argmax(probabilities(weights, 3, point(a))), label));
  });

  const strengths: [small: number, large: number][] = [
    [0.1, 1],
    [1, 10],
    [10, 100],
  ];
  for (const [small, large] of strengths) {
    it(`fitLogistic - c = ${large} gives more confident probabilities than c = ${small}`, async () => {
      const weak = (await fitLogistic(set(clusters), { c: small })).weights;
      const strong = (await fitLogistic(set(clusters), { c: large })).weights;
      for (const s of clusters) {
        const pWeak = probabilities(weak, 3, s.x)[s.label]!;
        const pStrong = probabilities(strong, 3, s.x)[s.label]!;
        assert.ok(pStrong > pWeak, `(${s.x}): ${pStrong} ≤ ${pWeak}`);
      }
    });
  }

  it('fitLogistic - a sample against its label lowers that label near it, and only there', async () => {
    const base = (await fitLogistic(set(clusters), { c: 10 })).weights;
    // Evidence that the edge of cluster 0 (towards cluster 1) is not class 0.
    const edge = ANGLES[0]! + 0.35;
    const withAgainst = (
      await fitLogistic(set([...clusters, { x: point(edge), label: 0, against: true, weight: 3 }]), { c: 10 })
    ).weights;
    for (const angle of [edge - 0.05, edge, edge + 0.05]) {
      const before = probabilities(base, 3, point(angle))[0]!;
      const after = probabilities(withAgainst, 3, point(angle))[0]!;
      assert.ok(after < before, `angle ${angle}: ${after} ≥ ${before}`);
    }
    // Far away, on the opposite side of cluster 0, class 0 still wins.
    assert.equal(argmax(probabilities(withAgainst, 3, point(ANGLES[0]! - 0.2))), 0);
  });

  it('fitLogistic - a sample against its label is not a vote for any other class in particular', async () => {
    // Only "against" evidence for class 0 at a point: the fit lowers class 0 there but does not pick between 1 and 2.
    const onlyAgainst = (await fitLogistic(set([{ x: [1, 0], label: 0, against: true }]), { c: 10 })).weights;
    const p = probabilities(onlyAgainst, 3, [1, 0]);
    assert.ok(p[0]! < 1 / 3, `${p}`);
    assert.ok(Math.abs(p[1]! - p[2]!) < 1e-6, `${p}`);
  });

  it('fitLogistic - a class absent from every candidate set keeps zero weights', async () => {
    // Class 3 exists but no sample's softmax covers it.
    const samples = clusters.map((s) => ({ ...s, candidates: [0, 1, 2] }));
    const weights = (await fitLogistic(set(samples, 4), { c: 10 })).weights;
    assert.deepEqual([...weights.slice(3 * (DIMS + 1))], [0, 0, 0]);
    assert.ok(weights.slice(0, 3 * (DIMS + 1)).some((w) => w !== 0));
  });

  it('fitLogistic - a class only ever scored against itself learns nothing; classes outside a sample get no pull from it', async () => {
    // Each sample's softmax covers its own label only: every loss is 0, so every weight stays 0.
    const alone = (await fitLogistic(set(clusters.map((s) => ({ ...s, candidates: [s.label] }))), { c: 10 })).weights;
    assert.ok(alone.every((w) => w === 0));
    // Clusters 0 and 1 compete with each other; cluster 2's samples see only class 2, and no sample sees class 2
    // together with another class: class 2's row stays zero while 0 and 1 separate.
    const pairs = (
      await fitLogistic(set(clusters.map((s) => ({ ...s, candidates: s.label === 2 ? [2] : [0, 1] }))), { c: 10 })
    ).weights;
    assert.deepEqual([...pairs.slice(2 * (DIMS + 1))], [0, 0, 0]);
    const v = (x: [number, number]) => Float32Array.from(x);
    assert.ok(logit(pairs, DIMS, 0, v(point(ANGLES[0]!))) > logit(pairs, DIMS, 1, v(point(ANGLES[0]!))));
    assert.ok(logit(pairs, DIMS, 1, v(point(ANGLES[1]!))) > logit(pairs, DIMS, 0, v(point(ANGLES[1]!))));
  });

  it('fitLogistic - sample weights: a heavier class wins a point shared with a lighter one', async () => {
    const shared: [number, number] = [1, 0];
    const heavy0 = (
      await fitLogistic(
        set(
          [
            { x: shared, label: 0, weight: 3 },
            { x: shared, label: 1, weight: 1 },
          ],
          2,
        ),
        { c: 10 },
      )
    ).weights;
    const heavy1 = (
      await fitLogistic(
        set(
          [
            { x: shared, label: 0, weight: 1 },
            { x: shared, label: 1, weight: 3 },
          ],
          2,
        ),
        { c: 10 },
      )
    ).weights;
    const p0 = probabilities(heavy0, 2, shared);
    const p1 = probabilities(heavy1, 2, shared);
    // Unregularised optimum: p = 3/4 for the heavier class; the L2 penalty pulls towards 1/2.
    assert.ok(p0[0]! > 0.6 && p0[0]! <= 0.75 + 1e-3, `${p0}`);
    assert.ok(Math.abs(p0[0]! - p1[1]!) < 1e-4, `${p0} vs ${p1}`);
  });

  it('fitLogistic - every class as matrix products and every class listed per sample reach the same optimum', async () => {
    const all = [0, 1, 2];
    const dense = (
      await fitLogistic(set([...clusters, { x: point(0.3), label: 1, against: true, weight: 2 }]), { c: 10 })
    ).weights;
    const listed = (
      await fitLogistic(
        set(
          [...clusters, { x: point(0.3), label: 1, against: true, weight: 2 }].map((s) => ({ ...s, candidates: all })),
        ),
        { c: 10 },
      )
    ).weights;
    for (const angle of [0, 0.3, ...ANGLES]) {
      const a = probabilities(dense, 3, point(angle));
      const b = probabilities(listed, 3, point(angle));
      a.forEach((p, k) => assert.ok(Math.abs(p - b[k]!) < 1e-3, `at ${angle}: ${a} vs ${b}`));
    }
  });

  it('fitLogistic - deterministic: the same set gives the same weights', async () => {
    assert.deepEqual(
      (await fitLogistic(set(clusters), { c: 10 })).weights,
      (await fitLogistic(set(clusters), { c: 10 })).weights,
    );
  });
});
