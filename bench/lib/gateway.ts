/**
 * The harness's and the simulated agents' calls to the Agent-Reach api. The API key, when set (`--api-key` or
 * REACH_API_KEY), is sent as `authorization: Bearer <key>` on caller routes.
 */
import { randomBytes } from 'node:crypto';
import type { HopState } from './outcome';

export interface HopRequest {
  gateway: string;
  apiKey?: string;
  messageId: string;
  agentId: string;
  capability: string;
  payload: unknown;
  parentMessageId?: string;
  traceId?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function callerHeaders(apiKey: string | undefined): Record<string, string> {
  return { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) };
}

/**
 * Sends one hop; resends the same message id (idempotent on the gateway) on network errors and 5xx, with a backoff
 * up to 2 s, until `giveUpMs` has passed. Returns the last HTTP status (undefined: never answered).
 */
export async function sendHop(request: HopRequest, giveUpMs = 180_000): Promise<number | undefined> {
  const body = JSON.stringify({
    message_id: request.messageId,
    target: { agent_id: request.agentId, capability: request.capability },
    payload: request.payload,
    ...(request.parentMessageId ? { parent_message_id: request.parentMessageId } : {}),
  });
  const headers = {
    ...callerHeaders(request.apiKey),
    ...(request.traceId ? { traceparent: `00-${request.traceId}-${randomBytes(8).toString('hex')}-01` } : {}),
  };
  const giveUpAt = Date.now() + giveUpMs;
  let status: number | undefined;
  for (let retry = 0; ; retry++) {
    status = await fetch(`${request.gateway}/v1/messages`, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(10_000),
    })
      .then(async (response) => (await response.arrayBuffer(), response.status))
      .catch(() => undefined);
    if (status !== undefined && status < 500) return status;
    if (Date.now() >= giveUpAt) return status;
    await sleep(Math.min(2_000, 100 * 2 ** retry));
  }
}

const TERMINAL_FAILURES = new Set(['failed', 'rejected', 'cancelled', 'expired']);

/** A hop's state as the gateway reports it; undefined when the gateway has no such message. */
export async function hopState(gateway: string, messageId: string, apiKey?: string): Promise<HopState> {
  const response = await fetch(`${gateway}/v1/messages/${encodeURIComponent(messageId)}`, {
    headers: callerHeaders(apiKey),
  }).catch(() => undefined);
  if (!response) return 'open';
  if (response.status === 404) {
    await response.arrayBuffer();
    return undefined;
  }
  if (!response.ok) {
    await response.arrayBuffer();
    return 'open';
  }
  const { state } = (await response.json()) as { state: string };
  if (state === 'processed') return 'processed';
  return TERMINAL_FAILURES.has(state) ? 'failed' : 'open';
}
