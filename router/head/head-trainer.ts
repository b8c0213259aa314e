/**
 * Trains heads in worker threads: training a large catalogue takes seconds of CPU, which must not stall the api's
 * requests. At most one training per core runs at once (more would only compete for the same cores): the models of
 * one catalogue finish embedding together (embedding-pool.ts shares their texts out to every core) and then train
 * side by side. A job trains the head on all its texts, then (for calibration) `folds` heads each without one fold,
 * whose predictions of the texts they did not see are returned beside the head.
 */
import { join } from 'node:path';
import { ConcurrencyLimit } from '../../util/concurrency-limit';
import { coresUpTo } from '../../util/cores';
import { startWorker } from '../../util/worker-thread';
import { heldOutPredictions, type HeldOutSample } from './cross-validation';
import { trainHead, type HeadModel, type HeadTrainingInput } from './head';

export interface HeadJob {
  input: HeadTrainingInput;
  /** Cross-validation folds for the held-out predictions; 0: none. */
  folds: number;
  /** Start each fold's head from the full head (default) rather than from scratch. */
  warmFolds?: boolean;
}

export interface TrainedHead {
  model: HeadModel;
  heldOut: HeldOutSample[];
}

/** The head and its held-out predictions; `now` is the clock the time guard reads (head.ts `timeGuardMs`). */
export async function trainWithHeldOut(job: HeadJob, now: () => number = Date.now): Promise<TrainedHead> {
  const model = await trainHead(job.input, now);
  const started = now();
  const { samples, timeGuardCuts } =
    job.folds > 1
      ? await heldOutPredictions(job.input, job.folds, job.warmFolds === false ? undefined : model, now)
      : { samples: [], timeGuardCuts: 0 };
  model.training.held_out_ms = now() - started;
  const cuts = (model.training.time_guard_cuts ?? 0) + timeGuardCuts;
  if (cuts > 0) model.training.time_guard_cuts = cuts;
  return { model, heldOut: samples };
}

/** Trainings at once: one per core, at most two (a catalogue has one head per model, and there are two models). */
export const TRAININGS_AT_ONCE = coresUpTo(2);

function runWorker(job: HeadJob): Promise<TrainedHead> {
  return new Promise((resolve, reject) => {
    const worker = startWorker(join(__dirname, 'train-worker'), job, __filename);
    worker.once('message', (trained: TrainedHead) => {
      resolve(trained);
      // Its onnxruntime sessions (matrix-products.ts) would keep the thread alive.
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`head training worker exited with code ${code}`));
    });
  });
}

const trainings = new ConcurrencyLimit(TRAININGS_AT_ONCE);

/**
 * Trains in a worker once a training slot is free. With `signal` aborted by then, the job is dropped unstarted (a
 * running training is not stopped: its thread may be inside onnxruntime, where terminating it takes the process down).
 */
export function trainInWorker(job: HeadJob, signal?: AbortSignal): Promise<TrainedHead> {
  return trainings.run(() => {
    signal?.throwIfAborted();
    return runWorker(job);
  });
}
