/** Tells an agent, best effort, that a message it holds was cancelled by the caller. */
import type { AgentQueries } from '../catalogue/agent-queries';
import type { MessageInput } from '../messages/message';
import { signatureHeaders } from '../rules/signing';
import { deliveryHeaders, REACH_EVENT_HEADER, type CancelNotice } from '../protocol/headers';

export interface NotifyCancelRequest {
  message: MessageInput;
  agent_id: string;
  endpoint: string;
}

export function createNotifyCancel(deps: { fetch: typeof fetch; now: () => number; queries: Pick<AgentQueries, 'signingSecrets'> }) {
  return async function notifyCancel(request: NotifyCancelRequest): Promise<{ http_status?: number; error?: string }> {
    const { message } = request;
    const notice: CancelNotice = { event: 'cancelled', message_id: message.message_id, trace_id: message.trace_id, tenant: message.tenant };
    const body = JSON.stringify(notice);
    const secrets = await deps.queries.signingSecrets(request.agent_id);
    try {
      const response = await deps.fetch(request.endpoint, {
        method: 'POST',
        headers: { ...deliveryHeaders(message), [REACH_EVENT_HEADER]: 'cancelled', ...signatureHeaders(secrets, message.message_id, new Date(deps.now()), body) },
        body,
        signal: AbortSignal.timeout(message.policy.attemptTimeoutMs),
        redirect: 'manual',
      });
      await response.arrayBuffer();
      return { http_status: response.status };
    } catch (error) {
      return { error: (error as Error).message };
    }
  };
}
