/**
 * What the api, the worker and the workflow share about Temporal: names, ids, queries and updates.
 * Safe to import from workflows (no I/O).
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  CancelInput,
  MessageState,
  MessageStatus,
  ReceiptInput,
  ReceiptOutcome,
  ReplyInput,
  ReplyOutcome,
} from './message';

/**
 * The workflow type the gateway starts for a message: the lean shape from its first task, with no patch marker
 * (workflows/message.ts). Runs of the earlier type, started before it, keep running on their own type.
 */
export const MESSAGE_WORKFLOW = 'leanMessageWorkflow';

/** The earlier type of message runs (classic, or lean behind the `LEAN_SHAPE` patch): served so that they finish. */
export const EARLIER_MESSAGE_WORKFLOW = 'messageWorkflow';

/** Every workflow type a message run may have. */
export const MESSAGE_WORKFLOW_TYPES: readonly string[] = [MESSAGE_WORKFLOW, EARLIER_MESSAGE_WORKFLOW];

/** Child workflow that posts a message's final status to the caller's `reply_to` URL, with retries. */
export const NOTIFY_CALLER_WORKFLOW = 'notifyCallerWorkflow';

/** Workflow id of a message (platform/temporal-names.ts owns every name the gateway gives in Temporal). */
export { messageWorkflowId } from '../platform/temporal-names';

/**
 * Custom search attributes of message runs, so operators (and `GET /v1/messages?state=…`) find runs by tenant,
 * state, agent or trace in Temporal's visibility store and UI. Registered at start-up (see ensureSearchAttributes).
 */
export const SA_TENANT = defineSearchAttributeKey('ReachTenant', SearchAttributeType.KEYWORD);
export const SA_STATE = defineSearchAttributeKey('ReachState', SearchAttributeType.KEYWORD);
export const SA_AGENT = defineSearchAttributeKey('ReachAgent', SearchAttributeType.KEYWORD);
export const SA_TRACE = defineSearchAttributeKey('ReachTraceId', SearchAttributeType.KEYWORD);
export const SEARCH_ATTRIBUTES = [SA_TENANT, SA_STATE, SA_AGENT, SA_TRACE];

/** The search attributes a message run starts with. */
export function messageSearchAttributes(tenant: string, agentId: string, traceId: string) {
  return [
    { key: SA_TENANT, value: tenant },
    { key: SA_STATE, value: 'accepted' },
    { key: SA_AGENT, value: agentId },
    { key: SA_TRACE, value: traceId },
  ];
}

export const statusQuery = defineQuery<MessageStatus>('status');

/** The agent's receipt; rejected (validator) when sent by an agent the message was not delivered to. */
export const receiptUpdate = defineUpdate<ReceiptOutcome, [ReceiptInput]>('receipt');

/** Cancels the message unless it already ended; returns the state it is in afterwards. */
export const cancelUpdate = defineUpdate<{ cancelled: boolean; state: MessageState }, [CancelInput]>('cancel');

/** An A2A agent's push notification: its task changed, so the run reads it now rather than at its next poll. */
export const a2aTaskChangedSignal = defineSignal('a2aTaskChanged');

/**
 * The caller's reply to a message waiting for input (state `input_required`); rejected (validator) when the message
 * does not wait for input. The run delivers the message again as the next turn, with the conversation so far.
 */
export const replyUpdate = defineUpdate<ReplyOutcome, [ReplyInput]>('reply');
