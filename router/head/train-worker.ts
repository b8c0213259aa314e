/** Worker-thread entry: trains one head and its held-out predictions off the api's event loop (see head-trainer.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { trainWithHeldOut, type HeadJob } from './head-trainer';

void trainWithHeldOut(workerData as HeadJob).then((trained) => {
  const { model } = trained;
  parentPort!.postMessage(trained, [model.weights.buffer, model.prototypes.buffer, model.mean.buffer] as ArrayBuffer[]);
});
