/**
 * The idempotency window made explicit. "The same message id never starts a second run" holds while Temporal keeps
 * the message's closed run: the namespace's retention. `IDEMPOTENCY_WINDOW_MS` names that horizon; embedded mode
 * sets the namespace's retention to it, and the api reads the retention at start and warns when it is shorter.
 * Beyond it, docs/limits.md says what happens.
 */
import type { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';

type WorkflowService = Pick<Connection['workflowService'], 'describeNamespace' | 'updateNamespace'>;

/** The namespace's retention of closed runs, in ms. */
export async function namespaceRetentionMs(service: WorkflowService, namespace: string): Promise<number> {
  const { config } = await service.describeNamespace({ namespace });
  const ttl = config?.workflowExecutionRetentionTtl;
  return Number(ttl?.seconds ?? 0) * 1000 + Math.floor((ttl?.nanos ?? 0) / 1e6);
}

/** Sets the namespace's retention to `windowMs` (embedded mode, which owns its Temporal). */
export async function setNamespaceRetention(
  service: WorkflowService,
  namespace: string,
  windowMs: number,
): Promise<void> {
  await service.updateNamespace({
    namespace,
    config: { workflowExecutionRetentionTtl: msToTs(Math.ceil(windowMs / 1000) * 1000) },
  });
}

/** A warning when the namespace forgets closed runs sooner than the idempotency window promises, else undefined. */
export async function retentionShortfall(
  service: WorkflowService,
  namespace: string,
  windowMs: number,
): Promise<string | undefined> {
  const retentionMs = await namespaceRetentionMs(service, namespace);
  if (retentionMs >= windowMs) return undefined;
  return `namespace ${namespace} keeps closed runs ${Math.round(retentionMs / 3_600_000)} h, less than IDEMPOTENCY_WINDOW_MS (${Math.round(windowMs / 3_600_000)} h): a message id repeated after ${Math.round(retentionMs / 3_600_000)} h starts a new run`;
}
