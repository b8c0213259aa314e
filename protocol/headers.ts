/**
 * The HTTP headers of a delivery (and of a cancel notice): idempotency by message id and the trace context. The
 * Standard Webhooks signature headers are added beside them (rules/signing.ts).
 */
import { randomBytes } from 'node:crypto';
import { deliveryKey } from './turns';

/** Set on a POST that tells the agent of an event instead of delivering a message; its only value is `cancelled`. */
export const REACH_EVENT_HEADER = 'x-reach-event';

/** The body of a cancel notice (`x-reach-event: cancelled`). */
export interface CancelNotice {
  event: 'cancelled';
  message_id: string;
  trace_id: string;
  tenant: string;
}

/** The `idempotency-key` is the delivery's key: the message id, or for a follow-up turn `<message_id>:turn-<n>`. */
export function deliveryHeaders(message: {
  message_id: string;
  trace_id: string;
  turn?: number;
}): Record<string, string> {
  const spanId = randomBytes(8).toString('hex');
  return {
    'content-type': 'application/json',
    'user-agent': 'agent-reach',
    'idempotency-key': deliveryKey(message.message_id, message.turn),
    traceparent: `00-${message.trace_id}-${spanId}-01`,
    'x-trace-id': message.trace_id,
  };
}
