/**
 * Standard Webhooks signatures on deliveries, so agents can verify a request came from the gateway
 * (https://www.standardwebhooks.com: `webhook-id`, `webhook-timestamp`, `webhook-signature`).
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new signing secret in the `whsec_<base64>` form every Standard Webhooks library accepts. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * Headers signing `body`. Several secrets (during a rotation) give several space-separated signatures, so an
 * agent that still holds the previous secret verifies too.
 */
export function signatureHeaders(
  secrets: string[],
  messageId: string,
  timestamp: Date,
  body: string,
): Record<string, string> {
  if (secrets.length === 0) return {};
  const signatures = secrets.map((secret) => new Webhook(secret).sign(messageId, timestamp, body));
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
