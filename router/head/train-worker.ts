/** Worker-thread entry: trains one head off the api's event loop (see head-trainer.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { trainHead, type HeadTrainingInput } from './head';

const head = trainHead(workerData as HeadTrainingInput);
parentPort!.postMessage(head, [head.weights.buffer, head.prototypes.buffer, head.mean.buffer] as ArrayBuffer[]);
