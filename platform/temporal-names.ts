/**
 * Every name the gateway gives in Temporal: workflow ids and task queues. One owner, so the api, the worker, the
 * workflows and callers' own code always agree. Pure (no I/O): safe to import from workflows and callers' bundles.
 */

/** `TEMPORAL_TASK_QUEUE`'s default: the gateway's workflows and activities run there. */
export const DEFAULT_TASK_QUEUE = 'agent-reach';

/** Workflow id of a message: unique per (tenant, message_id); tenants cannot contain ':'. */
export function messageWorkflowId(tenant: string, messageId: string): string {
  return `msg:${tenant}:${messageId}`;
}

/** The message id a workflow id names for a tenant, or undefined when it is not `msg:<tenant>:<…>`. */
export function messageIdOf(workflowId: string, tenant: string): string | undefined {
  const prefix = `msg:${tenant}:`;
  return workflowId.startsWith(prefix) && workflowId.length > prefix.length
    ? workflowId.slice(prefix.length)
    : undefined;
}

/** Workflow id of a chain: unique per (tenant, chain_id); tenants cannot contain ':'. */
export function chainWorkflowId(tenant: string, chainId: string): string {
  return `chain:${tenant}:${chainId}`;
}

/** Workflow id of the notification run a message or chain run starts for its `reply_to`: one per run. */
export function replyWorkflowId(workflowId: string, runId: string): string {
  return `${workflowId}:reply:${runId}`;
}

/** The task queue on which api replicas route for runs (intent-only direct starts, misrouted messages). */
export function routingTaskQueue(taskQueue: string): string {
  return `${taskQueue}-routing`;
}

/** The task queue of one tenant's Nexus endpoint (NEXUS_TENANTS): an endpoint targeting it sends for that tenant. */
export function nexusTaskQueue(taskQueue: string, tenant: string): string {
  return `${taskQueue}-nexus-${tenant}`;
}

/** The task queue of one api replica's WebSocket deliveries; `replica` makes it unique to the process. */
export function socketTaskQueue(taskQueue: string, replica: string): string {
  return `${taskQueue}-ws-${replica}`;
}
