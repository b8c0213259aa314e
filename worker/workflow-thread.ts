/** How a process that runs the message worker is started: with the workflow thread's preload (see that file). */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const PRELOAD = 'worker/workflow-thread-preload.cjs';

/**
 * Node flags of a process that runs the message worker (`npm run worker`, or an api with API_RUNS_WORKER), from
 * `checkout` (this one by default; the benchmarks also start older checkouts, which may have no preload).
 */
export function workflowThreadFlags(checkout = resolve(__dirname, '..')): string[] {
  const preload = join(checkout, PRELOAD);
  return existsSync(preload) ? ['--require', preload] : [];
}
