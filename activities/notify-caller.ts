/**
 * Posts a message's final status to the caller's `reply_to` URL, signed with the gateway's caller secret, with its
 * own `webhook-id` (protocol/webhook-ids.ts), the same on every retry; only where the endpoint policy allows.
 *
 * Only for a run the gateway started, as Temporal says (run-provenance.ts), never as the request says: the activity
 * must be scheduled by a `notifyCallerWorkflow` run on the gateway's queue, the child of a gateway run (a message
 * run whose input the gateway sealed, a `sendMessage` run, a chain) whose own `reply_to` is this URL. A
 * `notifyCallerWorkflow` started by a namespace client, or an activity scheduled by a foreign run, posts nothing
 * (`NotificationRefused`).
 */
import { ApplicationFailure } from '@temporalio/common';
import type { MessageStatus } from '../messages/message';
import { SEND_MESSAGE_WORKFLOW, type SendMessageInput } from '../temporal-callers/contract';
import type { SealKeys } from '../messages/seal';
import { MESSAGE_WORKFLOW_TYPES, NOTIFY_CALLER_WORKFLOW } from '../messages/temporal';
import { checkEndpoint, type EndpointPolicy } from '../rules/endpoint-policy';
import { signatureHeaders } from '../rules/signing';
import { chainEndedWebhookId, endedWebhookId } from '../protocol/webhook-ids';
import type { ChainStatus } from '../chains/chain';
import { withAggregate, type SummaryAsk } from '../chains/aggregate';
import { RUN_CHAIN_WORKFLOW, type RunChainInput } from '../chains/temporal';
import { drainCapped, IGNORED_ANSWER_MAX_BYTES } from '../platform/capped-body';
import { FOREIGN_CALLER, type RunProvenance, type StartedRun } from './run-provenance';
import { sealOfRun } from './caller-checks';

export interface NotifyCallerRequest {
  url: string;
  /** A message's final status, or a chain's. */
  status: MessageStatus | ChainStatus;
  /** Sent by the workflow, not trusted here: the run's start and parent are read from Temporal. */
  run_started_at?: string;
  parent?: { workflow_id: string; run_id: string };
}

export interface NotifyCallerDeps {
  fetch: typeof fetch;
  now: () => number;
  callerWebhookSecret?: string;
  endpointPolicy?: EndpointPolicy;
  sealKeys: SealKeys;
  provenance: Pick<RunProvenance, 'schedulingRun' | 'run' | 'isGatewayRun'>;
}

const refused = (why: string) => ApplicationFailure.nonRetryable(`notification refused: ${why}`, 'NotificationRefused');

/** The runs that may ask for a notification of their end, and the `reply_to` URL each names in its input. */
const PARENT_TYPES = [...MESSAGE_WORKFLOW_TYPES, SEND_MESSAGE_WORKFLOW, RUN_CHAIN_WORKFLOW];

function replyToOf(parent: StartedRun): string | undefined {
  if (parent.type === RUN_CHAIN_WORKFLOW) return (parent.input as RunChainInput | undefined)?.reply_to?.url;
  return (parent.input as SendMessageInput | undefined)?.reply_to?.url;
}

function summaryAskOfRun(run: StartedRun | undefined): SummaryAsk | undefined {
  if (run?.type !== RUN_CHAIN_WORKFLOW) return undefined;
  const summary = (run.input as RunChainInput | undefined)?.summary;
  return typeof summary?.request === 'string' ? { request: summary.request } : undefined;
}

export function createNotifyCaller(deps: NotifyCallerDeps) {
  /**
   * Refuses unless a gateway run with this reply_to URL started the notification run that scheduled this; returns
   * that run (undefined for a run started before the gateway's seal keys, which is not read).
   */
  const checkOrigin = async (request: NotifyCallerRequest): Promise<StartedRun | undefined> => {
    const run = await deps.provenance
      .schedulingRun('notifyCaller', [NOTIFY_CALLER_WORKFLOW])
      .catch((error: ApplicationFailure) => {
        throw error.type === FOREIGN_CALLER ? refused(error.message) : error;
      });
    if (Date.parse(run.started_at) < Date.parse(deps.sealKeys.since)) return undefined; // started by an earlier gateway
    if (!run.parent) throw refused('not started by a gateway run');
    const parent = await deps.provenance.run(run.parent.workflow_id, run.parent.run_id);
    if (!deps.provenance.isGatewayRun(parent, PARENT_TYPES))
      throw refused(`started by a ${parent.type} run on task queue ${parent.task_queue}`);
    const seal = sealOfRun(parent, deps.sealKeys);
    if (!seal.ok) throw refused(seal.reason);
    if (replyToOf(parent) !== request.url) throw refused('the URL is not the reply_to of the run that asked');
    return parent;
  };

  return async function notifyCaller(request: NotifyCallerRequest): Promise<{ http_status: number }> {
    if (!deps.callerWebhookSecret)
      throw ApplicationFailure.nonRetryable('CALLER_WEBHOOK_SECRET is not set', 'NoCallerSecret');
    const parent = await checkOrigin(request);
    if (deps.endpointPolicy) {
      const verdict = await checkEndpoint(request.url, deps.endpointPolicy);
      if (!verdict.allowed)
        throw ApplicationFailure.nonRetryable(`reply_to not allowed: ${verdict.reason}`, 'ReplyToNotAllowed');
    }
    const { status } = request;
    const chain = 'chain_id' in status;
    // A chain's status goes with its aggregate: results by step id, and the summary its body asked for.
    const data = chain ? withAggregate(status, summaryAskOfRun(parent)) : status;
    const body = JSON.stringify({ type: chain ? 'chain.ended' : 'message.ended', data });
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
