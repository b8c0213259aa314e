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

/** The router is closing: a training waiting for a slot is dropped, a running one ends at its next step. */
export class HeadTrainingStopped extends Error {
  override name = 'HeadTrainingStopped';
  constructor() {
    super('head training stopped: the router is closing');
  }
}

/** What a training worker is given: the job, and a flag the api sets to ask it to stop. */
export interface TrainWorkerData {
  job: HeadJob;
  /** One Int32 on shared memory: 1 once a stop is asked. */
  stop: Int32Array;
}

/** What a training worker answers: the trained head, or that it stopped when asked. */
export type TrainWorkerReply = TrainedHead | { stopped: true };

/**
 * The clock a training worker reads: its training reads it between two steps (never inside onnxruntime), so once a
 * stop is asked the next read throws and the worker ends its job there.
 */
export function stoppableClock(stop: Int32Array, now: () => number = Date.now): () => number {
  return () => {
    if (Atomics.load(stop, 0) === 1) throw new HeadTrainingStopped();
    return now();
  };
}

/** The exits of the training threads running now (closing waits for them: see trainingsExited). */
const running = new Set<Promise<void>>();

function runWorker(job: HeadJob, signal?: AbortSignal): Promise<TrainedHead> {
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const data: TrainWorkerData = { job, stop };
  const worker = startWorker(join(__dirname, 'train-worker'), data, __filename);
  const askStop = () => Atomics.store(stop, 0, 1);
  signal?.addEventListener('abort', askStop, { once: true });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  running.add(exited);
  void exited.then(() => {
    running.delete(exited);
    signal?.removeEventListener('abort', askStop);
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (reply: TrainWorkerReply) => {
      if ('stopped' in reply) reject(signal?.reason ?? new HeadTrainingStopped());
      else resolve(reply);
      // Its onnxruntime sessions (matrix-products.ts) would keep the thread alive; it has left them by now.
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
 * Trains in a worker once a training slot is free. With `signal` aborted by then, the job is dropped unstarted; aborted
 * while it runs, the worker ends it at its next step (never inside onnxruntime, where terminating a thread takes the
 * process down) and the training fails with the signal's reason.
 */
export function trainInWorker(job: HeadJob, signal?: AbortSignal): Promise<TrainedHead> {
  return trainings.run(() => {
    signal?.throwIfAborted();
    return runWorker(job, signal);
  });
}

/** Settles when every training thread running now has exited (the api waits for this before it exits). */
export async function trainingsExited(): Promise<void> {
  await Promise.all([...running]);
}
