/**
 * What the api, the worker and the workflow share about Temporal: names, ids, queries and updates.
 * Safe to import from workflows (no I/O).
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { CancelInput, MessageState, MessageStatus, ReceiptInput, ReceiptOutcome } from './message';

export const MESSAGE_WORKFLOW = 'messageWorkflow';

/** Memo key holding the hash of the accepted request body, compared when the same message_id comes again. */
export const BODY_HASH_MEMO = 'body_hash';

/** Workflow id of a message: unique per (tenant, message_id); tenants cannot contain ':'. */
export function messageWorkflowId(tenant: string, messageId: string): string {
  return `msg:${tenant}:${messageId}`;
}

export const statusQuery = defineQuery<MessageStatus>('status');

/** The agent's receipt; rejected (validator) when sent by an agent the message was not delivered to. */
export const receiptUpdate = defineUpdate<ReceiptOutcome, [ReceiptInput]>('receipt');

/** Cancels the message unless it already ended; returns the state it is in afterwards. */
export const cancelUpdate = defineUpdate<{ cancelled: boolean; state: MessageState }, [CancelInput]>('cancel');
