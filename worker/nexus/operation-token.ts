/**
 * The operation token the `sendMessage` handler hands out: @temporalio/nexus's workflow-run token (base64url of
 * `{"t":1,"ns":…,"wid":…}`) for an operation that started the run, the same behind `attached.` for one that
 * attached to a run another caller started. Cancelling an attached operation must not cancel that caller's run.
 */
import { generateWorkflowRunOperationToken, loadWorkflowRunOperationToken } from '@temporalio/nexus/lib/token';

const ATTACHED = 'attached.';

export interface OperationRun {
  workflowId: string;
  /** True when the operation attached to a run it did not start. */
  attached: boolean;
}

export function operationToken(namespace: string, run: OperationRun): string {
  const token = generateWorkflowRunOperationToken(namespace, run.workflowId);
  return run.attached ? `${ATTACHED}${token}` : token;
}

/** The run a token names; throws a TypeError on a token not made here. */
export function runOfToken(token: string): OperationRun {
  const attached = token.startsWith(ATTACHED);
  const { wid } = loadWorkflowRunOperationToken(attached ? token.slice(ATTACHED.length) : token);
  return { workflowId: wid, attached };
}
