/** Builds the Temporal worker of the message workflow with real or test-supplied activity dependencies. */
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';

export interface MessageWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activityDeps: ActivityDeps;
  /** A prebuilt workflow bundle (tests share one); bundled from `workflows/` when absent. */
  workflowBundle?: WorkerOptions['workflowBundle'];
}

export function workflowsPath(): string {
  return require.resolve('../workflows');
}

export async function createMessageWorker(options: MessageWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: createActivities(options.activityDeps),
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: workflowsPath() }),
  });
}
