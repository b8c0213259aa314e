/**
 * `sendMessage`, the public entry workflow of Temporal-native callers: a message started from any Temporal client,
 * or as a child of a caller's own workflow, with the body of `POST /v1/messages` plus `tenant`. Its workflow id is
 * the api's, `msg:<tenant>:<message_id>`, so a message started directly and the same message posted to the api are
 * one run. A local activity validates the input and builds the run's input exactly as the api does; then the
 * message runs the very code of `messageWorkflow` (status query, receipt and cancel updates, search attributes,
 * settlement, reply_to), and the result is its final status.
 */
import { ActivityFailure, ApplicationFailure, proxyLocalActivities, setCurrentDetails, setHandler, upsertMemo, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { PreparedMessage } from '../activities/prepare-message';
import { messageIdOf, SEND_FAILURES, type SendMessageInput } from '../messages/direct';
import type { MessageStatus } from '../messages/message';
import { startingStatus } from '../messages/status';
import { messageSearchAttributes, messageWorkflowId, statusQuery } from '../messages/temporal';
import { messageWorkflow } from './message';

export async function sendMessage(request: SendMessageInput): Promise<MessageStatus> {
  const { workflowId, startTime } = workflowInfo();
  const tenant = typeof request?.tenant === 'string' ? request.tenant : '';
  const messageId = request?.message_id ?? messageIdOf(workflowId, tenant);
  if (!messageId || workflowId !== messageWorkflowId(tenant, messageId)) {
    throw ApplicationFailure.nonRetryable(
      `workflow id ${workflowId} does not match the input: it must be msg:<tenant>:<message_id> (here ${messageWorkflowId(tenant || '<tenant>', messageId ?? '<message_id>')})`,
      SEND_FAILURES.workflowIdMismatch,
    );
  }
  // Until the input is prepared (milliseconds), the status reads `accepted`; messageWorkflow's handler replaces this one.
  const acceptedAt = startTime.toISOString();
  const named = (value: unknown) => (typeof value === 'string' ? value : '');
  const target = { agent_id: named(request.target?.agent_id), capability: named(request.target?.capability) };
  const provisional = startingStatus({ message_id: messageId, trace_id: '', tenant, target, accepted_at: acceptedAt }, acceptedAt);
  setHandler(statusQuery, () => provisional);
  const { prepareMessage } = proxyLocalActivities<Activities>({
    startToCloseTimeout: '30s',
    scheduleToCloseTimeout: '2m',
    retry: { maximumInterval: '10s' },
  });
  let prepared: PreparedMessage;
  try {
    prepared = await prepareMessage({ ...request, message_id: messageId });
  } catch (error) {
    // The refusal itself (its type names the reason), not the activity failure wrapping it.
    if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) throw error.cause;
    throw error;
  }
  const { input, memo, summary } = prepared;
  // What the api gives a run when it starts one: the memo (so a repeat POST of the same body is a duplicate) and
  // the search attributes (so `GET /v1/messages` and Temporal UI find it); the summary as current details.
  upsertMemo({ ...memo });
  upsertSearchAttributes(messageSearchAttributes(input.tenant, input.target.agent_id, input.trace_id));
  setCurrentDetails(`${summary.staticSummary}\n\n${summary.staticDetails}`);
  return messageWorkflow(input);
}
