/**
 * The Nexus endpoint of the `agentReach` service: a name in the cluster's endpoint registry that routes Nexus
 * operations to the gateway's namespace and task queue. Operators create it once with
 * `temporal operator nexus endpoint create --name agent-reach --target-namespace <ns> --target-task-queue <queue>`;
 * this does the same from code (tests and benchmarks).
 */
import type { Connection } from '@temporalio/client';

/** The endpoint name the docs use. Endpoint names match ^[a-zA-Z][a-zA-Z0-9-]*[a-zA-Z0-9]$. */
export const DEFAULT_NEXUS_ENDPOINT = 'agent-reach';

export interface NexusEndpointTarget {
  name: string;
  /** The gateway's TEMPORAL_NAMESPACE and TEMPORAL_TASK_QUEUE. */
  namespace: string;
  taskQueue: string;
}

/** Creates the endpoint, or points an existing one of that name at this target. */
export async function ensureNexusEndpoint(connection: Connection, target: NexusEndpointTarget): Promise<void> {
  const spec = { name: target.name, target: { worker: { namespace: target.namespace, taskQueue: target.taskQueue } } };
  const { endpoints } = await connection.operatorService.listNexusEndpoints({ name: target.name });
  const existing = endpoints?.[0];
  if (!existing) {
    await connection.operatorService.createNexusEndpoint({ spec });
    return;
  }
  const worker = existing.spec?.target?.worker;
  if (worker?.namespace === target.namespace && worker.taskQueue === target.taskQueue) return;
  await connection.operatorService.updateNexusEndpoint({ id: existing.id, version: existing.version, spec });
}
