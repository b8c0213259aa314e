/**
 * Temporal-native callers, from inside a caller's own workflow: run the gateway's `sendMessage` as a child workflow
 * and await the message's final status. Deterministic (only `@temporalio/workflow`): import it in workflow code.
 *
 *   const status = await executeMessageChild({ tenant: 'acme', message_id: 'order-42', target: { agent_id, capability: 'echo' }, payload });
 */
import { executeChild, startChild, uuid4, type ChildWorkflowHandle, type ChildWorkflowOptions } from '@temporalio/workflow';
import { DEFAULT_TASK_QUEUE, SEND_MESSAGE_WORKFLOW, type SendMessageInput, type SendMessageWorkflow } from '../messages/direct';
import type { MessageStatus } from '../messages/message';
import { messageWorkflowId } from '../messages/temporal';

export interface MessageChildOptions extends Omit<ChildWorkflowOptions, 'workflowId' | 'taskQueue' | 'args'> {
  /** The gateway's `TEMPORAL_TASK_QUEUE`. @default 'agent-reach' */
  taskQueue?: string;
}

function childOptions(input: SendMessageInput, options: MessageChildOptions) {
  // A message id from the workflow's deterministic uuid when the caller gives none (stable across replays).
  const message = { ...input, message_id: input.message_id ?? `msg_${uuid4().replaceAll('-', '')}` };
  const { taskQueue, ...rest } = options;
  return {
    ...rest,
    workflowId: messageWorkflowId(message.tenant, message.message_id),
    taskQueue: taskQueue ?? DEFAULT_TASK_QUEUE,
    args: [message] as [SendMessageInput],
  };
}

/** Runs the message as a child workflow and returns its final status. */
export function executeMessageChild(input: SendMessageInput, options: MessageChildOptions = {}): Promise<MessageStatus> {
  return executeChild<SendMessageWorkflow>(SEND_MESSAGE_WORKFLOW, childOptions(input, options));
}

/** Starts the message as a child workflow; `await handle.result()` later. */
export function startMessageChild(input: SendMessageInput, options: MessageChildOptions = {}): Promise<ChildWorkflowHandle<SendMessageWorkflow>> {
  return startChild<SendMessageWorkflow>(SEND_MESSAGE_WORKFLOW, childOptions(input, options));
}
