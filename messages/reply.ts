/** The caller's reply to a message waiting for input: the run takes it and delivers the next turn (protocol/turns.ts). */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { MessageState, ReplyInput } from './message';
import type { MessageRuns } from './runs';
import { replyUpdate } from './temporal';

export type ReplyResult =
  | { kind: 'replied'; turn: number }
  /** The message does not wait for input (it is under way, or it ended): its state says which. */
  | { kind: 'not_waiting'; state: MessageState }
  | { kind: 'unknown_message' };

export async function replyToMessage(runs: MessageRuns, tenant: string, messageId: string, reply: ReplyInput): Promise<ReplyResult> {
  try {
    const outcome = await runs.handle(tenant, messageId).executeUpdate(replyUpdate, { args: [reply] });
    return { kind: 'replied', turn: outcome.turn };
  } catch (error) {
    const description = await runs.describe(tenant, messageId);
    if (!description) return { kind: 'unknown_message' };
    // Refused by the run's validator, or the run ended: either way the message does not wait for input.
    if (description.status.name === 'RUNNING' && !(error instanceof WorkflowUpdateFailedError)) throw error;
    return { kind: 'not_waiting', state: (await runs.statusOf(tenant, messageId, description)).state };
  }
}
