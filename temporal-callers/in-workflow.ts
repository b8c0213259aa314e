/**
 * Temporal-native callers, from inside a caller's own workflow: run the gateway's `sendMessage` as a child workflow
 * (same namespace) or call its Nexus operation through an endpoint (any namespace of the cluster), and await the
 * message's final status. Deterministic (only `@temporalio/workflow` and names): import it in workflow code.
 *
 *   const status = await executeMessageChild({ tenant: 'acme', message_id: 'order-42', target: { agent_id, capability: 'echo' }, payload });
 *   const status = await sendMessageViaNexus('agent-reach-acme', { message_id: 'order-42', target: { agent_id, capability: 'echo' }, payload });
 */
import {
  createNexusClient,
  executeChild,
  startChild,
  uuid4,
  type ChildWorkflowHandle,
  type ChildWorkflowOptions,
  type StartNexusOperationOptions,
} from '@temporalio/workflow';
import { DEFAULT_TASK_QUEUE, SEND_MESSAGE_WORKFLOW, type SendMessageInput, type SendMessageWorkflow } from './contract';
import type { MessageStatus } from '../messages/message';
import { messageWorkflowId } from '../messages/temporal';
import { agentReachService, type NexusSendInput } from './nexus/service';

export interface MessageChildOptions extends Omit<ChildWorkflowOptions, 'workflowId' | 'taskQueue' | 'args'> {
  /** The gateway's `TEMPORAL_TASK_QUEUE`. @default 'agent-reach' */
  taskQueue?: string;
}

/** A message id from the workflow's deterministic uuid when the caller gives none (stable across replays). */
function withMessageId<T extends { message_id?: string }>(input: T): T & { message_id: string } {
  return { ...input, message_id: input.message_id ?? `msg_${uuid4().replaceAll('-', '')}` };
}

function childOptions(input: SendMessageInput, options: MessageChildOptions) {
  const message = withMessageId(input);
  const { taskQueue, ...rest } = options;
  return {
    ...rest,
    workflowId: messageWorkflowId(message.tenant, message.message_id),
    taskQueue: taskQueue ?? DEFAULT_TASK_QUEUE,
    args: [message] as [SendMessageInput],
    // As `sendMessage` from a client: a message id never gets a second run, unless the gateway refused the first.
    workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY' as const,
  };
}

/** Runs the message as a child workflow and returns its final status. */
export function executeMessageChild(
  input: SendMessageInput,
  options: MessageChildOptions = {},
): Promise<MessageStatus> {
  return executeChild<SendMessageWorkflow>(SEND_MESSAGE_WORKFLOW, childOptions(input, options));
}

/** Starts the message as a child workflow; `await handle.result()` later. */
export function startMessageChild(
  input: SendMessageInput,
  options: MessageChildOptions = {},
): Promise<ChildWorkflowHandle<SendMessageWorkflow>> {
  return startChild<SendMessageWorkflow>(SEND_MESSAGE_WORKFLOW, childOptions(input, options));
}

/**
 * Sends the message through the gateway's Nexus endpoint (`endpoint` names it; an operator creates one per tenant,
 * targeting the gateway's namespace and that tenant's task queue) and returns its final status. `tenant` may be left
 * out: the endpoint's. Failures arrive as a NexusOperationFailure whose cause is the refusal or the run's own
 * failure (e.g. an ApplicationFailure of type `invalid_request`, `tenant_mismatch` or `idempotency_conflict`: rules/error-codes.ts).
 */
export function sendMessageViaNexus(
  endpoint: string,
  input: NexusSendInput,
  options: Partial<StartNexusOperationOptions> = {},
): Promise<MessageStatus> {
  return createNexusClient({ endpoint, service: agentReachService }).executeOperation(
    'sendMessage',
    withMessageId(input),
    options,
  );
}
