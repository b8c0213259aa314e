/**
 * The same catalogue gives the same router, whatever the machine's load: a head and its operating point are
 * trained twice on one synthetic catalogue — once on an idle machine, once while worker threads burn CPU and the
 * trainer reads a clock slowed as a very busy machine would see it — and must give identical thresholds and
 * identical decisions. Iterations bound the training; the time limit is only a failure guard, and when it fires
 * the head says so.
 */
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { before, describe, it } from 'node:test';
import { seededRandom } from '../../util/random';
import { calibrate, type Calibration } from '../../router/head/calibration';
import { DEFAULT_HEAD_SETTINGS, decideByHead, groupScores, resolveThresholds } from '../../router/head/decide';
import { DEFAULT_HEAD_OPTIONS, predict, type HeadModel, type HeadTrainingInput } from '../../router/head/head';
import { timeGuardNote } from '../../router/head/head-matcher';
import { trainWithHeldOut } from '../../router/head/head-trainer';
import { calibrationSamples } from '../../router/head/held-out-scores';

const DIMS = 16;
const CLASSES = 6;

function unit(v: Float32Array): Float32Array {
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

/** Six overlapping classes and an out-of-scope cloud: enough overlap that L-BFGS needs many iterations. */
function catalogue(): { input: HeadTrainingInput; requests: Float32Array[] } {
  const random = seededRandom(43);
  const near = (axis: number, spread: number) => unit(Float32Array.from({ length: DIMS }, (_, i) => (i === axis ? 1 : 0) + (i === (axis + 1) % CLASSES ? 0.4 : 0) + spread * (random() - 0.5)));
  const classes = Array.from({ length: CLASSES }, (_, k) => {
    const vectors = Array.from({ length: 10 }, () => near(k, 0.9));
    return { key: `agent/cap${k}`, vectors, chinese: vectors.map(() => false), units: vectors.map((_, i) => (i < 8 ? i : -1)), excluded: [near(k, 0.9)], excludedChinese: [false] };
  });
  const none = Array.from({ length: 20 }, () => near(CLASSES + Math.floor(random() * (DIMS - CLASSES)), 0.9));
  // Requests: each class's, the out-of-scope ones, and mixtures of neighbours that land near the thresholds.
  const requests = [
    ...Array.from({ length: 3 * CLASSES }, (_, i) => near(i % CLASSES, 1.2)),
    ...Array.from({ length: 10 }, () => near(CLASSES + Math.floor(random() * (DIMS - CLASSES)), 1.2)),
    ...Array.from({ length: 2 * CLASSES }, (_, i) => unit(near(i % CLASSES, 0.8).map((x, j) => x + near((i + 1) % CLASSES, 0.8)[j]! + 0.6 * (j >= CLASSES ? 1 : 0)))),
  ];
  return { input: { classes, none, noneChinese: none.map(() => false) }, requests };
}

interface Trained {
  model: HeadModel;
  calibration: Calibration;
  decisions: string[];
}

/** The head and its operating point as the matcher fits them, and its decision on each request. */
async function train(input: HeadTrainingInput, requests: readonly Float32Array[], now?: () => number): Promise<Trained> {
  const { model, heldOut } = await trainWithHeldOut({ input, folds: 4 }, now);
  const calibration = calibrate(calibrationSamples([{ model, heldOut }]));
  const thresholds = resolveThresholds(calibration, DEFAULT_HEAD_SETTINGS, false);
  const decisions = requests.map((r) => {
    const prediction = predict(model, r, false);
    const verdict = decideByHead(groupScores(prediction.ranked, prediction.same), thresholds);
    return verdict.kind === 'accept' ? `accept ${verdict.group.keys[0]}` : verdict.kind;
  });
  return { model, calibration, decisions };
}

/** A clock that reads `stepMs` later at every look: training seen from a machine too busy to give it a core. */
function slowedClock(stepMs: number): { now: () => number; reads: () => number } {
  let t = Date.now();
  let reads = 0;
  return {
    now: () => {
      reads++;
      return (t += stepMs);
    },
    reads: () => reads,
  };
}

/** Threads that spin until terminated: the other tenants of a shared machine. */
function burnCpu(threads: number): Worker[] {
  return Array.from({ length: threads }, () => new Worker('for (;;) {}', { eval: true }));
}

describe('head determinism', () => {
  const { input, requests } = catalogue();
  let idle: Trained;

  before(async () => {
    idle = await train(input, requests);
  });

  it('head determinism - trained on an idle machine and under load (CPU burnt, clock slowed): the same thresholds and decisions', async () => {
    // 3 s per look: the training's clock passes the old 45 s budget within 15 iterations, yet stays well under the
    // guard for 150 iterations and the folds' 4 × 20.
    const clock = slowedClock(3_000);
    const burners = burnCpu(2);
    let loaded: Trained;
    try {
      loaded = await train(input, requests, clock.now);
    } finally {
      await Promise.all(burners.map((w) => w.terminate()));
    }
    assert.ok(clock.reads() * 3_000 > 45_000, `the slowed clock was read ${clock.reads()} times`);
    assert.ok(idle.model.training.iterations > 15, `iterations ${idle.model.training.iterations}: the catalogue should need more than a busy machine's old share`);
    assert.equal(loaded.model.training.time_guard_cuts, undefined);
    assert.equal(loaded.model.training.iterations, idle.model.training.iterations);
    assert.deepEqual(loaded.calibration, idle.calibration);
    assert.deepEqual(loaded.decisions, idle.decisions);
    assert.deepEqual(loaded.model.weights, idle.model.weights);
    // Not a vacuous comparison: the requests get different decisions.
    assert.ok(new Set(idle.decisions).size >= 3, idle.decisions.join(', '));
  });

  it('head determinism - the time guard, when it fires, cuts every training it stops and the head says so', async () => {
    // Each look an hour later: past the guard at once.
    const stuck = await train(input, requests, slowedClock(3_600_000).now);
    assert.equal(stuck.model.training.stopped, 'time_guard');
    assert.equal(stuck.model.training.time_guard_cuts, 5); // the head on everything and its 4 folds
    const note = timeGuardNote([{ provider: { id: 'fake', embedDocuments: async () => [], embedQuery: async () => new Float32Array() } }], [{ model: stuck.model, heldOut: [] }], DEFAULT_HEAD_OPTIONS.timeGuardMs);
    assert.match(note ?? '', /time guard cut trainings short: fake \(5\)/);
    assert.equal(timeGuardNote([{ provider: { id: 'fake', embedDocuments: async () => [], embedQuery: async () => new Float32Array() } }], [{ model: idle.model, heldOut: [] }], DEFAULT_HEAD_OPTIONS.timeGuardMs), undefined);
  });
});
