/** Worker-thread entry: trains one head and its held-out predictions off the api's event loop (see head-trainer.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import {
  HeadTrainingStopped,
  stoppableClock,
  trainWithHeldOut,
  type TrainWorkerData,
  type TrainWorkerReply,
} from './head-trainer';

const { job, stop } = workerData as TrainWorkerData;

trainWithHeldOut(job, stoppableClock(stop)).then(
  (trained) => {
    const { model } = trained;
    const reply: TrainWorkerReply = trained;
    parentPort!.postMessage(reply, [model.weights.buffer, model.prototypes.buffer, model.mean.buffer] as ArrayBuffer[]);
  },
  (error: unknown) => {
    if (!(error instanceof HeadTrainingStopped)) throw error;
    const reply: TrainWorkerReply = { stopped: true };
    parentPort!.postMessage(reply);
  },
);
