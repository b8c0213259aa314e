/**
 * Trains heads in a worker thread, one at a time: training a large catalogue takes seconds of CPU, which must not
 * stall the api's requests, and two trainings at once would only compete for the same cores.
 */
import { Worker } from 'node:worker_threads';
import { extname, join } from 'node:path';
import type { HeadModel, HeadTrainingInput } from './head';

/** The worker's file beside this one: `.ts` when run through tsx, `.js` once compiled. */
const WORKER_FILE = join(__dirname, `train-worker${extname(__filename)}`);
/**
 * The worker's bootstrap: a TypeScript worker needs tsx's require hook registered in its own thread too (loader
 * flags given to the process do not reach worker threads on Node 20).
 */
const BOOTSTRAP = `${extname(__filename) === '.ts' ? `require(${JSON.stringify(require.resolve('tsx/cjs'))});` : ''}require(${JSON.stringify(WORKER_FILE)});`;

let queue: Promise<unknown> = Promise.resolve();

function runWorker(input: HeadTrainingInput): Promise<HeadModel> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(BOOTSTRAP, { eval: true, workerData: input });
    worker.once('message', (head: HeadModel) => resolve(head));
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`head training worker exited with code ${code}`));
    });
  });
}

export function trainInWorker(input: HeadTrainingInput): Promise<HeadModel> {
  const job = queue.then(() => runWorker(input));
  queue = job.catch(() => undefined);
  return job;
}
