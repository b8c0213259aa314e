/** The caller's reply to a message waiting for input: the run takes it and delivers the next turn (protocol/turns.ts). */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { INVALID_ANSWERS, replyIssues, type AnswerIssue } from '../protocol/answers';
import type { InputRequest } from '../protocol/turns';
import { schemaIssues } from '../router/parameter-check';
import type { MessageState, ReplyInput } from './message';
import type { MessageRuns } from './runs';
import { replyUpdate } from './temporal';

export type ReplyResult =
  /** Taken: `turn` is the turn the agent gets next (the current one while other questions are still open). */
  | { kind: 'replied'; turn: number }
  /** The message does not wait for input (it is under way, or it ended): its state says which. */
  | { kind: 'not_waiting'; state: MessageState }
  | { kind: 'unknown_message' }
  /**
   * The reply's params do not fit the JSON Schema the agent's question gave, or its answers do not fit the questions
   * (protocol/answers.ts): nothing was sent.
   */
  | { kind: 'invalid'; issues: AnswerIssue[] };

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
  const issues = question ? issuesOf(question, reply) : [];
  if (issues.length > 0) return { kind: 'invalid', issues };
  try {
    const outcome = await runs.handle(tenant, messageId).executeUpdate(replyUpdate, { args: [reply] });
    return { kind: 'replied', turn: outcome.turn };
  } catch (error) {
    // The run's own check of the answers' keys (it may have moved on since `question` was read).
    const refusal = error instanceof WorkflowUpdateFailedError ? (error.cause?.message ?? '') : '';
    if (refusal.startsWith(`${INVALID_ANSWERS}: `))
      return { kind: 'invalid', issues: [{ location: 'answers', message: refusal.slice(INVALID_ANSWERS.length + 2) }] };
    const description = await runs.describe(tenant, messageId);
    if (!description) return { kind: 'unknown_message' };
    // Refused by the run's validator, or the run ended: either way the message does not wait for input.
    if (description.status.name === 'RUNNING' && !(error instanceof WorkflowUpdateFailedError)) throw error;
    return { kind: 'not_waiting', state: (await runs.statusOf(tenant, messageId, description)).state };
  }
}

/**
 * What is wrong with the reply to `question`: answers that do not fit the questions still open, params that do not
 * fit a schema (of the question, or of the question each answer is for).
 */
function issuesOf(question: InputRequest, reply: ReplyInput): AnswerIssue[] {
  const issues = replyIssues(question, reply);
  if (issues.length > 0) return issues;
  if (question.schema && reply.params) return schemaIssues(JSON.stringify(question.schema), reply.params);
  return Object.entries(reply.answers ?? {}).flatMap(([key, answer]) => {
    const schema = question.questions?.[key]?.schema;
    if (!schema || !answer.params) return [];
    return schemaIssues(JSON.stringify(schema), answer.params, `answers.${key}.params`);
  });
}
