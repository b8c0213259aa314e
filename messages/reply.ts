/** The caller's reply to a message waiting for input: the run takes it and delivers the next turn (protocol/turns.ts). */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { InputRequest } from '../protocol/turns';
import { schemaIssues } from '../router/parameter-check';
import type { MessageState, ReplyInput } from './message';
import type { MessageRuns } from './runs';
import { replyUpdate } from './temporal';

export type ReplyResult =
  | { kind: 'replied'; turn: number }
  /** The message does not wait for input (it is under way, or it ended): its state says which. */
  | { kind: 'not_waiting'; state: MessageState }
  | { kind: 'unknown_message' }
  /** The reply's params do not fit the JSON Schema the agent's question gave: nothing was sent. */
  | { kind: 'invalid'; issues: { location: string; message: string }[] };

/**
 * `question`: what the message waits for, when known. A reply's params are checked against the schema the agent gave
 * with its question, so the agent never gets data it said it cannot take (a reply in words only is not checked).
 */
export async function replyToMessage(
  runs: MessageRuns,
  tenant: string,
  messageId: string,
  reply: ReplyInput,
  question?: InputRequest,
): Promise<ReplyResult> {
  if (question?.schema && reply.params) {
    const issues = schemaIssues(JSON.stringify(question.schema), reply.params);
    if (issues.length > 0) return { kind: 'invalid', issues };
  }
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
