/**
 * Push notifications from A2A agents (docs/a2a.md, "Following a task"): where an agent posts when its task changes,
 * and the token it must send back (`X-A2A-Notification-Token`). The token is an HMAC of the message under the agent's
 * signing secret, so the worker that sends and any api replica that receives compute it without sharing state, and
 * it names one message of one agent.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header the A2A SDKs send the configured token in. */
export const PUSH_TOKEN_HEADER = 'x-a2a-notification-token';

/** The gateway's push receiver for one message of one agent, on the origin of the message's callback URL. */
export function pushUrlOf(callbackUrl: string, agentId: string, messageId: string): string {
  const base = callbackUrl.replace(/\/v1\/callback$/, '');
  return `${base}/a2a/push/${encodeURIComponent(agentId)}/${encodeURIComponent(messageId)}`;
}

export function pushToken(signingSecret: string, agentId: string, messageId: string): string {
  return createHmac('sha256', signingSecret).update(`a2a-push\n${agentId}\n${messageId}`).digest('base64url');
}

/** Whether `presented` is the token of this message under one of the agent's signing secrets. */
export function pushTokenMatches(
  presented: string | undefined,
  secrets: readonly string[],
  agentId: string,
  messageId: string,
): boolean {
  if (!presented) return false;
  const given = Buffer.from(presented);
  return secrets.some((secret) => {
    const expected = Buffer.from(pushToken(secret, agentId, messageId));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
}
