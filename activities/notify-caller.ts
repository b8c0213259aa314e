/**
 * Posts a message's final status to the caller's `reply_to` URL, signed with the gateway's caller secret, with its
 * own `webhook-id` (protocol/webhook-ids.ts), the same on every retry; only where the endpoint policy allows.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { MessageStatus } from '../messages/message';
import { checkEndpoint, type EndpointPolicy } from '../rules/endpoint-policy';
import { signatureHeaders } from '../rules/signing';
import { endedWebhookId } from '../protocol/webhook-ids';
import { drainCapped, IGNORED_ANSWER_MAX_BYTES } from '../platform/capped-body';

export interface NotifyCallerRequest {
  url: string;
  status: MessageStatus;
}

export function createNotifyCaller(deps: { fetch: typeof fetch; now: () => number; callerWebhookSecret?: string; endpointPolicy?: EndpointPolicy }) {
  return async function notifyCaller(request: NotifyCallerRequest): Promise<{ http_status: number }> {
    if (!deps.callerWebhookSecret) throw ApplicationFailure.nonRetryable('CALLER_WEBHOOK_SECRET is not set', 'NoCallerSecret');
    if (deps.endpointPolicy) {
      const verdict = await checkEndpoint(request.url, deps.endpointPolicy);
      if (!verdict.allowed) throw ApplicationFailure.nonRetryable(`reply_to not allowed: ${verdict.reason}`, 'ReplyToNotAllowed');
    }
    const { status } = request;
    const body = JSON.stringify({ type: 'message.ended', data: status });
    const webhookId = endedWebhookId(status);
    let response: Response;
    try {
      response = await deps.fetch(request.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'agent-reach',
          traceparent: `00-${status.trace_id}-${'0'.repeat(15)}1-01`,
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
