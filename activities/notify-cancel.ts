/**
 * Tells an agent, best effort, that a message it holds was cancelled by the caller. The notice has its own
 * `webhook-id` (protocol/webhook-ids.ts), the same on a retry, and goes only where the endpoint policy allows.
 */
import type { AgentQueries } from '../catalogue/agent-queries';
import type { MessageInput } from '../messages/message';
import { checkEndpoint, type EndpointPolicy } from '../rules/endpoint-policy';
import { signatureHeaders } from '../rules/signing';
import { deliveryHeaders, REACH_EVENT_HEADER, type CancelNotice } from '../protocol/headers';
import { cancelWebhookId } from '../protocol/webhook-ids';
import { drainCapped, IGNORED_ANSWER_MAX_BYTES } from '../platform/capped-body';

export interface NotifyCancelRequest {
  message: MessageInput;
  agent_id: string;
  endpoint: string;
  /** An A2A agent's task: cancelled with CancelTask instead of our notice. */
  a2a_task_id?: string;
  reason?: string;
}

/** What the cancel notice (or, to an A2A agent, CancelTask) came to. */
export interface NotifyCancelResult {
  http_status?: number;
  a2a_state?: string;
  error?: string;
}

/** The cancel notice to an agent of ours (activities/index.ts sends CancelTask to an A2A agent instead). */
export function createNotifyCancel(deps: {
  fetch: typeof fetch;
  now: () => number;
  queries: Pick<AgentQueries, 'signingSecrets'>;
  endpointPolicy?: EndpointPolicy;
}) {
  return async function notifyCancel(request: NotifyCancelRequest): Promise<NotifyCancelResult> {
    const { message } = request;
    if (deps.endpointPolicy) {
      const verdict = await checkEndpoint(request.endpoint, deps.endpointPolicy);
      if (!verdict.allowed) return { error: `endpoint not allowed: ${verdict.reason}` };
    }
    const notice: CancelNotice = {
      event: 'cancelled',
      message_id: message.message_id,
      trace_id: message.trace_id,
      tenant: message.tenant,
    };
    const body = JSON.stringify(notice);
    const secrets = await deps.queries.signingSecrets(request.agent_id);
    try {
      const response = await deps.fetch(request.endpoint, {
        method: 'POST',
        headers: {
          ...deliveryHeaders(message),
          [REACH_EVENT_HEADER]: 'cancelled',
          ...signatureHeaders(secrets, cancelWebhookId(message.message_id), new Date(deps.now()), body),
        },
        body,
        signal: AbortSignal.timeout(message.policy.attemptTimeoutMs),
        redirect: 'manual',
      });
      await drainCapped(response, IGNORED_ANSWER_MAX_BYTES);
      return { http_status: response.status };
    } catch (error) {
      return { error: (error as Error).message };
    }
  };
}
