/**
 * A worker thread running one of the project's own files. Run through tsx (tests, benchmarks, `npm start` in
 * development) the file is TypeScript, and a worker needs tsx's require hook registered in its own thread too
 * (loader flags given to the process do not reach worker threads on Node 20); compiled, it is plain JavaScript.
 */
import { extname } from 'node:path';
import { Worker } from 'node:worker_threads';

/** `file` without its extension, e.g. join(__dirname, 'train-worker'): `.ts` or `.js` as the caller itself is. */
export function startWorker(fileWithoutExtension: string, workerData: unknown, callerFile: string): Worker {
  const extension = extname(callerFile);
  const file = `${fileWithoutExtension}${extension}`;
  const bootstrap = `${extension === '.ts' ? `require(${JSON.stringify(require.resolve('tsx/cjs'))});` : ''}require(${JSON.stringify(file)});`;
  return new Worker(bootstrap, { eval: true, workerData });
}
