/** Dead letters: a failed or expired message gets a new attempt chain under the same message id. */
import { arrayFromPayloads } from '@temporalio/common';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { MessageInput, MessageState, MessageStatus } from './message';
import { MESSAGE_WORKFLOW, messageSearchAttributes, messageWorkflowId } from './temporal';
import type { MessageService } from './message-service';

export type RedriveResult =
  | { kind: 'redriven'; status: MessageStatus }
  | { kind: 'not_redrivable'; state: MessageState }
  | { kind: 'unknown_message' };

/** Dead letters: the states a message can be redriven from. */
export const REDRIVABLE_STATES: ReadonlySet<MessageState> = new Set(['failed', 'expired']);

/**
 * Starts a new attempt chain under the same message id for a failed or expired message. The new run carries the
 * earlier attempts and a record of the redrive; the deadline is `deadline`, else the original one if still ahead.
 */
export async function redriveMessage(service: MessageService, tenant: string, messageId: string, deadline?: string): Promise<RedriveResult> {
  const { deps } = service;
  const workflowId = messageWorkflowId(tenant, messageId);
  const description = await service.describe(tenant, messageId);
  if (!description) return { kind: 'unknown_message' };
  const previous = await service.statusOf(tenant, messageId, description);
  if (description.status.name === 'RUNNING' || !REDRIVABLE_STATES.has(previous.state)) return { kind: 'not_redrivable', state: previous.state };
  const handle = deps.client.workflow.getHandle(workflowId, description.runId);
  const started = (await handle.fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes;
  const [original] = arrayFromPayloads(deps.client.options.loadedDataConverter.payloadConverter, started?.input?.payloads) as [MessageInput];
  const now = deps.now?.() ?? new Date();
  const keptDeadline = original.deadline && Date.parse(original.deadline) > now.getTime() ? original.deadline : undefined;
  const { deadline: _dropped, ...rest } = original;
  const input: MessageInput = {
    ...rest,
    ...((deadline ?? keptDeadline) ? { deadline: new Date((deadline ?? keptDeadline)!).toISOString() } : {}),
    policy: service.policy(),
    redrive: {
      previous_attempts: previous.attempts,
      history: [
        ...(original.redrive?.history ?? []),
        { at: now.toISOString(), previous_state: previous.state, ...(previous.reason ? { previous_reason: previous.reason } : {}) },
      ],
    },
  };
  try {
    await deps.client.workflow.start(MESSAGE_WORKFLOW, {
      workflowId,
      taskQueue: service.taskQueue,
      args: [input],
      memo: description.memo ?? {},
      typedSearchAttributes: messageSearchAttributes(tenant, input.target.agent_id, input.trace_id),
      // The one place a message id gets a second run: an explicit redrive of a dead letter.
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      workflowIdConflictPolicy: 'FAIL',
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return { kind: 'not_redrivable', state: 'accepted' };
    throw error;
  }
  return { kind: 'redriven', status: { ...previous, state: 'accepted', redrives: input.redrive!.history } };
}
