/**
 * A Temporal worker that serves only activities (no workflows), running until `stop`. The SDK's runtime shuts every
 * worker down on SIGINT/SIGTERM by itself, so at a signal `stop` may find it draining already: it then only waits.
 */
import { Worker, type NativeConnection } from '@temporalio/worker';

export interface RunningActivityWorker {
  stop(): Promise<void>;
}

export async function startActivityWorker(options: {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: object;
}): Promise<RunningActivityWorker> {
  const worker = await Worker.create(options);
  const running = worker.run();
  return {
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
}
