/**
 * A chain's steps as messages the chain starts itself (runs since DIRECT_STEPS, workflows/chain.ts): no child run.
 *
 * - `sendChainStep`, a local activity of the chain: prepares the step's message as the api prepares one
 *   (`prepareMessage`, as the chain's caller, sealed), starts it as the api starts one (eagerly: its first workflow
 *   task comes back with the start, to this worker), then waits a little for its end (a long poll of its close
 *   event), so a quick step ends in the very workflow task that started it.
 * - `awaitChainStep`, a regular activity of the chain: the end of a step that did not end within that wait,
 *   long-polled in slices with a heartbeat between them (a worker that dies is replaced by a retry).
 *
 * Both answer what the step came to as the chain records it (`Sent`). Uses the activity context's Temporal client.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { sentOf, type ChainSent } from '../chains/chain-sent';
import { chainMessageIds } from '../chains/chain-service';
import { RUN_CHAIN_WORKFLOW, type RunChainInput } from '../chains/temporal';
import type { MessageStatus } from '../messages/message';
import type { MessageMemo } from '../messages/runs';
import { MESSAGE_WORKFLOW, messageSearchAttributes, messageWorkflowId } from '../messages/temporal';
import type { SendMessageInput } from '../temporal-callers/contract';
import type { PrepareContext, PreparedMessage, NeedsRouting } from './prepare-message';
import { foreignCaller, type RunProvenance } from './run-provenance';

const { EventType, HistoryEventFilterType } = temporal.api.enums.v1;

/** gRPC's DEADLINE_EXCEEDED: a long poll that reached the deadline we gave it. */
const DEADLINE_EXCEEDED = 4;
/** gRPC's NOT_FOUND: no run under the message's id. */
const NOT_FOUND = 5;
/** One long poll of `awaitChainStep`: a heartbeat between two. */
const AWAIT_SLICE_MS = 5_000;

/**
 * The step's message as `sendMessage` takes it (the chain's caller is found from the chain's own input), or as the
 * api's routing queue prepared it (a router's refusal, recorded as a rejected message); and how long to wait for its
 * end here (0: start it and answer at once).
 */
export type SendChainStepRequest = ({ request: SendMessageInput } | { prepared: PreparedMessage }) & {
  wait_ms: number;
};

/** What a step came to; `running` when it had not ended within the wait (the chain awaits it by `awaitChainStep`). */
export type SendChainStepResult = { ended: ChainSent; waited_ms: number } | { running: true; waited_ms: number };

export interface AwaitChainStepRequest {
  tenant: string;
  chain_id: string;
  message_id: string;
}

export interface ChainStepDeps {
  prepareMessage: (request: unknown, context?: PrepareContext) => Promise<PreparedMessage | NeedsRouting>;
  provenance: Pick<RunProvenance, 'schedulingRun'>;
}

/** The step's message run's close event within `ms` (undefined: still running); `ms` 0 looks once without waiting. */
async function closeEvent(
  client: Client,
  workflowId: string,
  ms: number,
): Promise<temporal.api.history.v1.IHistoryEvent | undefined> {
  const deadline = Date.now() + Math.max(ms, 1);
  const request = {
    namespace: client.options.namespace,
    execution: { workflowId },
    skipArchival: true,
    waitNewEvent: ms > 0,
    historyEventFilterType: HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT,
  };
  for (;;) {
    let response;
    try {
      response = await client.withDeadline(deadline, () => client.workflowService.getWorkflowExecutionHistory(request));
    } catch (error) {
      if ((error as { code?: number }).code === DEADLINE_EXCEEDED) return undefined;
      throw error;
    }
    const event = response.history?.events?.[0];
    if (event || ms <= 0 || Date.now() >= deadline) return event ?? undefined;
  }
}

/** What a closed message run came to, as the chain's status records it (as a child run's end read before). */
function endedOf(client: Client, event: temporal.api.history.v1.IHistoryEvent): ChainSent {
  const ended_at = new Date(
    Number(event.eventTime?.seconds ?? 0) * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6),
  ).toISOString();
  switch (event.eventType) {
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED: {
      const payload = event.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0];
      const status = payload
        ? (client.options.loadedDataConverter.payloadConverter.fromPayload(payload) as MessageStatus)
        : undefined;
      if (status) return { ...sentOf(status), ended_at };
      return {
        state: 'failed',
        error: { code: 'failed', message: 'the message run ended without a status' },
        ended_at,
      };
    }
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED:
      return { state: 'cancelled', error: { code: 'cancelled', message: 'the chain was cancelled' }, ended_at };
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED: {
      const failure = event.workflowExecutionFailedEventAttributes?.failure;
      return {
        state: 'failed',
        error: {
          code: failure?.applicationFailureInfo?.type || 'failed',
          message: failure?.message ?? 'the message run failed',
        },
        ended_at,
      };
    }
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED:
      return {
        state: 'failed',
        error: {
          code: 'failed',
          message: event.workflowExecutionTerminatedEventAttributes?.reason || 'the message run was terminated',
        },
        ended_at,
      };
    default:
      return { state: 'failed', error: { code: 'failed', message: 'the message run timed out' }, ended_at };
  }
}

/**
 * Starts the prepared message as the api starts one. A run under its id already there is this step's own message
 * when its body is the same (this activity ran before, then its worker died); another body is a conflict.
 */
async function startStepMessage(client: Client, prepared: PreparedMessage): Promise<string> {
  const { input, memo, summary } = prepared;
  const workflowId = messageWorkflowId(input.tenant, input.message_id);
  try {
    await client.workflow.start(MESSAGE_WORKFLOW, {
      workflowId,
      taskQueue: Context.current().info.taskQueue,
      args: [input],
      memo: { ...memo },
      typedSearchAttributes: messageSearchAttributes(input.tenant, input.target.agent_id, input.trace_id),
      ...summary,
      // As any message of a chain: its id never gets a second run, unless the gateway refused the first.
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      workflowIdConflictPolicy: 'FAIL',
      // This worker runs message workflows too: the message's first task comes back with the start.
      requestEagerStart: true,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    const existing = await client.workflow.getHandle(workflowId).describe();
    if ((existing.memo as Partial<MessageMemo> | undefined)?.body_hash !== memo.body_hash) {
      throw ApplicationFailure.nonRetryable(
        `message ${input.message_id} was already sent with another body`,
        'idempotency_conflict',
      );
    }
  }
  return workflowId;
}

export function createChainStepActivities(deps: ChainStepDeps) {
  return {
    async sendChainStep(step: SendChainStepRequest): Promise<SendChainStepResult> {
      const { wait_ms } = step;
      const prepared =
        'prepared' in step ? step.prepared : await deps.prepareMessage(step.request, { own_chain: true });
      if (prepared.kind !== 'prepared')
        throw ApplicationFailure.nonRetryable(
          'the step needs routing: the chain routes it first',
          'routing_unavailable',
        );
      const { client } = Context.current();
      const started_at = new Date().toISOString();
      const workflowId = await startStepMessage(client, prepared);
      const waitFrom = Date.now();
      const event = wait_ms > 0 ? await closeEvent(client, workflowId, wait_ms) : undefined;
      const waited_ms = Date.now() - waitFrom;
      return event ? { ended: { ...endedOf(client, event), started_at }, waited_ms } : { running: true, waited_ms };
    },

    /** Only a gateway chain's run may await, and only a message of its own. */
    async awaitChainStep(request: AwaitChainStepRequest): Promise<ChainSent> {
      const run = await deps.provenance.schedulingRun('awaitChainStep', [RUN_CHAIN_WORKFLOW]);
      const chain = run.input as RunChainInput | undefined;
      if (
        chain?.tenant !== request.tenant ||
        chain.chain_id !== request.chain_id ||
        !chainMessageIds(chain, chain.chain_id).includes(request.message_id)
      ) {
        throw foreignCaller(
          'awaitChainStep',
          `message ${request.message_id} is not a message of the chain ${run.workflow_id}`,
        );
      }
      const context = Context.current();
      const { client } = context;
      const workflowId = messageWorkflowId(request.tenant, request.message_id);
      for (;;) {
        context.heartbeat();
        let event;
        try {
          event = await Promise.race([closeEvent(client, workflowId, AWAIT_SLICE_MS), context.cancelled]);
        } catch (error) {
          // Only after a cancel that came while the step was being started: its message never started.
          if ((error as { code?: number }).code === NOT_FOUND)
            return {
              state: 'cancelled',
              error: { code: 'cancelled', message: "the chain was cancelled before the step's message started" },
            };
          throw error;
        }
        if (event) return endedOf(client, event);
      }
    },
  };
}
