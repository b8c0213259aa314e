/**
 * A caller's own namespace beside the gateway's, on the same dev server: the namespace, a client of it, and a worker
 * running the caller's workflows there (`workflowsPath`). Nexus suites send from it through the gateway's endpoints.
 */
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { NativeConnection, Worker } from '@temporalio/worker';
import { eventually } from './eventually';

export interface CallerNamespace {
  /** An admin connection (creates endpoints too). */
  admin: Connection;
  /** A client of the caller's namespace. */
  callers: Client;
  stop(): Promise<void>;
}

export async function startCallerNamespace(
  address: string,
  options: { namespace: string; taskQueue: string; workflowsPath: string },
): Promise<CallerNamespace> {
  const admin = await Connection.connect({ address });
  await admin.workflowService.registerNamespace({
    namespace: options.namespace,
    workflowExecutionRetentionPeriod: msToTs('1 day'),
  });
  await eventually(
    `namespace ${options.namespace}`,
    async () => (await admin.workflowService.describeNamespace({ namespace: options.namespace })) && true,
  );
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowsPath: options.workflowsPath,
  });
  const running = worker.run().finally(() => connection.close());
  return {
    admin,
    callers: new Client({ connection: admin, namespace: options.namespace }),
    async stop() {
      worker.shutdown();
      await running;
      await admin.close();
    },
  };
}
