/**
 * Posts a message's final status to the caller's `reply_to` URL, signed with the gateway's caller secret, with its
 * own `webhook-id` (protocol/webhook-ids.ts), the same on every retry; only where the endpoint policy allows.
 *
 * Only for a run the gateway started: the notification run must be the child of a message run (Temporal says
 * whose child it is; its starter cannot choose that) whose input the gateway sealed for this URL. A
 * `notifyCallerWorkflow` started by a namespace client posts nothing (`NotificationRefused`).
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { MessageInput, MessageStatus } from '../messages/message';
import { SEND_MESSAGE_WORKFLOW } from '../temporal-callers/contract';
import { checkSeal, type SealKeys } from '../messages/seal';
import { MESSAGE_WORKFLOW_TYPES } from '../messages/temporal';
import { checkEndpoint, type EndpointPolicy } from '../rules/endpoint-policy';
import { signatureHeaders } from '../rules/signing';
import { chainEndedWebhookId, endedWebhookId } from '../protocol/webhook-ids';
import type { ChainStatus } from '../chains/chain';
import { RUN_CHAIN_WORKFLOW, type RunChainInput } from '../chains/temporal';
import { drainCapped, IGNORED_ANSWER_MAX_BYTES } from '../platform/capped-body';

export interface NotifyCallerRequest {
  url: string;
  /** A message's final status, or a chain's. */
  status: MessageStatus | ChainStatus;
  /** When the notification run started (workflow info). Absent on runs of older workers. */
  run_started_at?: string;
  /** The message run that started the notification run (workflow info). */
  parent?: { workflow_id: string; run_id: string };
}

/** A run as Temporal keeps it: its type, start and input (the first argument). */
export interface StartedRun {
  type: string;
  started_at: string;
  input: unknown;
}

export interface NotifyCallerDeps {
  fetch: typeof fetch;
  now: () => number;
  callerWebhookSecret?: string;
  endpointPolicy?: EndpointPolicy;
  sealKeys: SealKeys;
  /** Reads a run's type, start and input; by default through the worker's Temporal client. */
  startedRun?: (workflowId: string, runId: string) => Promise<StartedRun>;
}

const refused = (why: string) => ApplicationFailure.nonRetryable(`notification refused: ${why}`, 'NotificationRefused');

/** The run's type, start and input, from the first event of its history, read with the worker's client. */
async function startedRunOf(workflowId: string, runId: string): Promise<StartedRun> {
  const { client } = Context.current();
  const first = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events?.[0];
  const started = first?.workflowExecutionStartedEventAttributes;
  const payload = started?.input?.payloads?.[0];
  return {
    type: started?.workflowType?.name ?? '',
    started_at: new Date(Number(first?.eventTime?.seconds ?? 0) * 1000 + Math.floor((first?.eventTime?.nanos ?? 0) / 1e6)).toISOString(),
    input: payload ? client.options.loadedDataConverter.payloadConverter.fromPayload(payload) : undefined,
  };
}

export function createNotifyCaller(deps: NotifyCallerDeps) {
  /** Refuses unless a gateway message run with this reply_to URL started this notification. */
  const checkOrigin = async (request: NotifyCallerRequest): Promise<void> => {
    const started = request.run_started_at;
    if (started && Date.parse(started) < Date.parse(deps.sealKeys.since)) return; // started by an earlier gateway
    if (!request.parent) throw refused('not started by a message run');
    const { workflow_id, run_id } = request.parent;
    const parent = await (deps.startedRun ?? startedRunOf)(workflow_id, run_id);
    // The public entry validates and builds its own input (prepareMessage) before it can notify.
    if (parent.type === SEND_MESSAGE_WORKFLOW) return;
    // A chain checks its whole input before it runs, and notifies only its own reply_to.
    if (parent.type === RUN_CHAIN_WORKFLOW) {
      if ((parent.input as RunChainInput | undefined)?.reply_to?.url !== request.url) throw refused('the URL is not the chain’s reply_to');
      return;
    }
    if (!MESSAGE_WORKFLOW_TYPES.includes(parent.type)) throw refused(`started by a ${parent.type} run`);
    const input = parent.input as MessageInput;
    const seal = checkSeal(input, deps.sealKeys, { workflowId: workflow_id, startedAt: parent.started_at });
    if (!seal.ok) throw refused(seal.reason);
    if (input.reply_to?.url !== request.url) throw refused('the URL is not the message’s reply_to');
  };

  return async function notifyCaller(request: NotifyCallerRequest): Promise<{ http_status: number }> {
    if (!deps.callerWebhookSecret) throw ApplicationFailure.nonRetryable('CALLER_WEBHOOK_SECRET is not set', 'NoCallerSecret');
    await checkOrigin(request);
    if (deps.endpointPolicy) {
      const verdict = await checkEndpoint(request.url, deps.endpointPolicy);
      if (!verdict.allowed) throw ApplicationFailure.nonRetryable(`reply_to not allowed: ${verdict.reason}`, 'ReplyToNotAllowed');
    }
    const { status } = request;
    const chain = 'chain_id' in status;
    const body = JSON.stringify({ type: chain ? 'chain.ended' : 'message.ended', data: status });
    const webhookId = chain ? chainEndedWebhookId(status) : endedWebhookId(status);
    let response: Response;
    try {
      response = await deps.fetch(request.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'agent-reach',
          ...(chain ? {} : { traceparent: `00-${status.trace_id}-${'0'.repeat(15)}1-01` }),
          ...signatureHeaders([deps.callerWebhookSecret], webhookId, new Date(deps.now()), body),
        },
        body,
        signal: AbortSignal.timeout(10_000),
        redirect: 'manual',
      });
      await drainCapped(response, IGNORED_ANSWER_MAX_BYTES);
    } catch (error) {
      // Every failure is retried on the workflow's schedule, as webhook services do.
      throw ApplicationFailure.retryable(`reply_to unreachable: ${(error as Error).message}`, 'ReplyToUnreachable');
    }
    if (response.status < 200 || response.status > 299) {
      throw ApplicationFailure.retryable(`reply_to answered HTTP ${response.status}`, 'ReplyToRefused');
    }
    return { http_status: response.status };
  };
}
