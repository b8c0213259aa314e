/**
 * A Nexus endpoint of the `agentReach` service: a name in the cluster's endpoint registry that routes Nexus
 * operations to the gateway's namespace and a task queue, which says the tenant (worker/nexus/tenancy.ts). Operators
 * create one per tenant with
 * `temporal operator nexus endpoint create --name agent-reach-acme --target-namespace <ns> --target-task-queue agent-reach-nexus-acme`;
 * this does the same from code (tests and benchmarks).
 */
import type { Connection } from '@temporalio/client';
import { nexusTaskQueue } from '../../platform/temporal-names';

/** The endpoint name the docs use. Endpoint names match ^[a-zA-Z][a-zA-Z0-9-]*[a-zA-Z0-9]$. */
export const DEFAULT_NEXUS_ENDPOINT = 'agent-reach';

export interface NexusEndpointTarget {
  name: string;
  /** The gateway's TEMPORAL_NAMESPACE and TEMPORAL_TASK_QUEUE. */
  namespace: string;
  taskQueue: string;
  /** A tenant of NEXUS_TENANTS: the endpoint targets its queue. Absent: the gateway's own queue (NEXUS_DEFAULT_TENANT). */
  tenant?: string;
}

/** Creates the endpoint, or points an existing one of that name at this target. */
export async function ensureNexusEndpoint(connection: Connection, target: NexusEndpointTarget): Promise<void> {
  const taskQueue = target.tenant ? nexusTaskQueue(target.taskQueue, target.tenant) : target.taskQueue;
  const spec = { name: target.name, target: { worker: { namespace: target.namespace, taskQueue } } };
  const { endpoints } = await connection.operatorService.listNexusEndpoints({ name: target.name });
  const existing = endpoints?.[0];
  if (!existing) {
    await connection.operatorService.createNexusEndpoint({ spec });
    return;
  }
  const worker = existing.spec?.target?.worker;
  if (worker?.namespace === target.namespace && worker.taskQueue === taskQueue) return;
  await connection.operatorService.updateNexusEndpoint({ id: existing.id, version: existing.version, spec });
}
