/**
 * A closing router stops its heads' trainings without killing a thread inside onnxruntime (which aborts the whole
 * process): a running training reads a clock that throws once a stop is asked, so it ends at its next step; one still
 * waiting for a slot is dropped; and the api can wait until every training thread has exited.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '../../util/random';
import type { HeadTrainingInput } from '../../router/head/head';
import { HeadTrainingStopped, stoppableClock, trainInWorker, trainingsExited } from '../../router/head/head-trainer';

/** A catalogue whose training and five folds take more than 20 s here (weak regularisation): it is stopped long before. */
function bigCatalogue(): HeadTrainingInput {
  const random = seededRandom(7);
  const dims = 384;
  const vector = () => Float32Array.from({ length: dims }, () => random() - 0.5);
  const classes = Array.from({ length: 100 }, (_, k) => {
    const vectors = Array.from({ length: 100 }, vector);
    return { key: `agent/cap${k}`, vectors, chinese: vectors.map(() => false) };
  });
  return { classes, none: Array.from({ length: 200 }, vector), options: { maxIterations: 100_000, c: 1e6 } };
}

describe('head training stop', () => {
  it('head training stop - the clock reads the time until a stop is asked, then throws', () => {
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const clock = stoppableClock(stop, () => 42);
    assert.equal(clock(), 42);
    Atomics.store(stop, 0, 1);
    assert.throws(() => clock(), HeadTrainingStopped);
  });

  it('head training stop - a running training ends when its signal aborts, with the reason, and its thread exits', async () => {
    const controller = new AbortController();
    const training = trainInWorker({ input: bigCatalogue(), folds: 5 }, controller.signal);
    // Inside the training: the thread has started and computes.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const reason = new HeadTrainingStopped();
    controller.abort(reason);
    await assert.rejects(training, (error) => error === reason);
    await trainingsExited();
  });

  it('head training stop - a training aborted before it starts is dropped unstarted', async () => {
    const controller = new AbortController();
    controller.abort(new HeadTrainingStopped());
    await assert.rejects(trainInWorker({ input: bigCatalogue(), folds: 5 }, controller.signal), HeadTrainingStopped);
  });
});
