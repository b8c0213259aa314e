/** A Temporal worker that serves only activities (no workflows), running until `stop`. */
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
      worker.shutdown();
      await running;
    },
  };
}
