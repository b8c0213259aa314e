/**
 * `sendMessage`, the public entry workflow of Temporal-native callers: a message started from any Temporal client,
 * or as a child of a caller's own workflow, with the body of `POST /v1/messages` plus `tenant`. Its workflow id is
 * the api's, `msg:<tenant>:<message_id>`, so a message started directly and the same message posted to the api are
 * one run. A local activity validates the input and builds the run's input exactly as the api does (an intent-only
 * input is routed by the api's `prepareMessage`, on the api's routing queue, since the router lives there); then the
 * message runs the very code of `messageWorkflow` (status query, receipt and cancel updates, search attributes,
 * settlement, reply_to), and the result is its final status.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  proxyActivities,
  proxyLocalActivities,
  TimeoutFailure,
  setCurrentDetails,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { PreparedMessage } from '../activities/prepare-message';
import { messageIdOf, routingTaskQueue, SEND_FAILURES, type SendMessageInput } from '../temporal-callers/contract';
import type { MessageStatus } from '../messages/message';
import { startingStatus } from '../messages/status';
import { messageSearchAttributes, messageWorkflowId, statusQuery } from '../messages/temporal';
import { messageWorkflow } from './message';

const localActivities = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30s',
  scheduleToCloseTimeout: '2m',
  retry: { maximumInterval: '10s' },
});

/** How long an intent-only start waits for an api replica to route it before failing `routing_unavailable`. */
const ROUTING_WAIT = '1m';

/** The api's `prepareMessage`, which also routes. */
async function routedBy(taskQueue: string, request: SendMessageInput): Promise<PreparedMessage> {
  const { prepareMessage } = proxyActivities<Activities>({
    taskQueue,
    startToCloseTimeout: '30s',
    scheduleToCloseTimeout: ROUTING_WAIT,
    retry: { maximumInterval: '5s' },
  });
  try {
    const prepared = await prepareMessage(request);
    if (prepared.kind !== 'prepared')
      throw ApplicationFailure.nonRetryable(
        'the routing queue answered without routing',
        SEND_FAILURES.routingUnavailable,
      );
    return prepared;
  } catch (error) {
    if (error instanceof ActivityFailure && error.cause instanceof TimeoutFailure) {
      throw ApplicationFailure.nonRetryable(
        `no api replica routed this intent-only message within ${ROUTING_WAIT} (task queue ${taskQueue}); name target.agent_id and target.capability, or run the api`,
        SEND_FAILURES.routingUnavailable,
      );
    }
    throw error;
  }
}

/** The refusal itself (its type names the reason), not the activity failure wrapping it. */
function refusalIn(error: unknown): unknown {
  return error instanceof ActivityFailure && error.cause instanceof ApplicationFailure ? error.cause : error;
}

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
  const provisional = startingStatus(
    { message_id: messageId, trace_id: '', tenant, target, accepted_at: acceptedAt },
    acceptedAt,
  );
  setHandler(statusQuery, () => provisional);
  let prepared: PreparedMessage;
  try {
    // Who started this run, as Temporal says: a chain's steps are sent as the chain's caller (chains/chain-caller.ts).
    const { parent } = workflowInfo();
    const context = parent ? { parent: { workflow_id: parent.workflowId, run_id: parent.runId } } : {};
    const local = await localActivities.prepareMessage({ ...request, message_id: messageId }, context);
    // Valid, and routed by intent: the router lives in the api, which serves this queue's routing queue.
    prepared =
      local.kind === 'needs_routing'
        ? await routedBy(routingTaskQueue(workflowInfo().taskQueue), { ...request, message_id: messageId })
        : local;
  } catch (error) {
    throw refusalIn(error);
  }
  const { input, memo, summary } = prepared;
  // What the api gives a run when it starts one: the memo (so a repeat POST of the same body is a duplicate) and
  // the search attributes (so `GET /v1/messages` and Temporal UI find it); the summary as current details.
  upsertMemo({ ...memo });
  upsertSearchAttributes(messageSearchAttributes(input.tenant, input.target.agent_id, input.trace_id));
  setCurrentDetails(`${summary.staticSummary}\n\n${summary.staticDetails}`);
  return messageWorkflow(input);
}
