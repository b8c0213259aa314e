/**
 * Temporal-native callers, from a `@temporalio/client` Client: start a message on the gateway's `sendMessage`
 * workflow, or start it and await its final status. Same ids as the api (`msg:<tenant>:<message_id>`): starting
 * the same message twice, or starting one the api already has, gives the one existing run.
 *
 *   const status = await executeMessage(client, { tenant: 'acme', message_id: 'order-42', target: { agent_id, capability: 'echo' }, payload });
 */
import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import {
  DEFAULT_TASK_QUEUE,
  SEND_FAILURES,
  SEND_MESSAGE_WORKFLOW,
  type SendMessageInput,
  type SendMessageWorkflow,
} from './contract';
import { bodyHashOf } from '../messages/message-input';
import type { MessageMemo } from '../messages/runs';
import type { MessageStatus } from '../messages/message';
import { messageWorkflowId } from '../messages/temporal';
import { newMessageId } from '../rules/ids';
import { parseApiKey } from '../rules/api-key';
import { provenBody, signProof } from '../rules/key-proof';

export {
  DEFAULT_TASK_QUEUE,
  SEND_FAILURES,
  SEND_MESSAGE_WORKFLOW,
  type SendMessageInput,
  type SendMessageWorkflow,
} from './contract';

/**
 * The input sent as the API key `apiKey` (`rk_…`, of the input's tenant): its `key_id` and the `key_proof` that the
 * sender holds it and sends this very body under the input's message id (made here when absent): change the input
 * afterwards and the gateway refuses it (`invalid_key_proof`). Compute it where the key is kept (a client, an
 * activity), never inside a workflow: the proof lands in history (harmless: it proves this one message), the key
 * must not.
 */
export function sentAsKey(input: SendMessageInput, apiKey: string): SendMessageInput & { message_id: string } {
  const parsed = parseApiKey(apiKey);
  const message_id = input.message_id ?? newMessageId();
  const proof = signProof(apiKey, {
    kind: 'message',
    tenant: input.tenant,
    id: message_id,
    body: provenBody('message', { ...input }),
  });
  if (!parsed || !proof) throw new Error('not an API key (rk_<key id>_<secret>)');
  return { ...input, message_id, key_id: parsed.keyId, key_proof: proof };
}
export type { MessageStatus } from '../messages/message';

export interface SendMessageOptions {
  /** The gateway's `TEMPORAL_TASK_QUEUE`. @default 'agent-reach' */
  taskQueue?: string;
}

/** A started message: `handle.result()` is its final status; `handle.query(statusQuery)` its status now. */
export interface StartedMessage {
  handle: WorkflowHandle<SendMessageWorkflow>;
  message_id: string;
  /** False when a run of this message id already existed (started directly or through the api): that run is the message. */
  started: boolean;
}

/** The message id was already sent with another body (the api's 409): nothing was started. */
export class MessageConflictError extends Error {
  readonly type = SEND_FAILURES.conflict;
  constructor(readonly messageId: string) {
    super(`message ${messageId} was already sent with a different body`);
    this.name = 'MessageConflictError';
  }
}

/**
 * Starts the message (a `message_id` is generated when absent); an existing run of the same id and body is returned
 * instead, and one of another body is a {@link MessageConflictError}, as the api answers a repeated POST.
 */
export async function sendMessage(
  client: Client,
  input: SendMessageInput,
  options: SendMessageOptions = {},
): Promise<StartedMessage> {
  const message = { ...input, message_id: input.message_id ?? newMessageId() };
  const workflowId = messageWorkflowId(message.tenant, message.message_id);
  const bodyHash = bodyHashOf(message);
  try {
    const handle = await client.workflow.start<SendMessageWorkflow>(SEND_MESSAGE_WORKFLOW, {
      workflowId,
      taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
      args: [message],
      // A repeat is told from a conflict from the start, before the run has prepared its input (as the Nexus face).
      memo: { body_hash: bodyHash },
      // The message id is the idempotency key for ever, as on the api; only a start the gateway refused (the run
      // failed before a message existed: invalid input, unknown target, ACL) leaves the id free for a corrected one.
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      workflowIdConflictPolicy: 'FAIL',
    });
    return { handle, message_id: message.message_id, started: true };
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    const handle = client.workflow.getHandle<SendMessageWorkflow>(workflowId);
    const memo = (await handle.describe()).memo as Partial<MessageMemo> | undefined;
    if (memo?.body_hash !== undefined && memo.body_hash !== bodyHash)
      throw new MessageConflictError(message.message_id);
    return { handle, message_id: message.message_id, started: false };
  }
}

/** Starts the message (or finds its run) and waits for its final status: `processed`, `failed`, `rejected`, … */
export async function executeMessage(
  client: Client,
  input: SendMessageInput,
  options: SendMessageOptions = {},
): Promise<MessageStatus> {
  const { handle } = await sendMessage(client, input, options);
  return handle.result();
}
