/**
 * What an agent reports about a message: inline in its answer to a delivery, or later in a receipt posted to
 * `POST /v1/callback` (or sent as a WebSocket `receipt` frame), authenticated with the agent's secret.
 */
import { z } from 'zod';
import { MESSAGE_ID_PATTERN } from '../rules/ids';
import { anyJson, label, prose } from '../rules/text';

/** A failure as the agent reports it; `retryable: true` asks the gateway to deliver the message again later. */
export interface AgentError {
  code?: string;
  message: string;
  retryable?: boolean;
}

export const callbackBody = z.strictObject({
  message_id: z.string().regex(MESSAGE_ID_PATTERN, '1–128 characters: letters, digits and ._:- (starting with a letter or digit)'),
  status: z.enum(['processed', 'failed']),
  result: anyJson.optional(),
  error: z
    .strictObject({ code: label(128).optional(), message: prose(4000), retryable: z.boolean().optional() })
    .optional(),
});
export type CallbackBody = z.output<typeof callbackBody>;

/** The outcome an agent reports, with or without the message id: a receipt, or the answer to a delivery. */
export type AgentOutcome = Omit<CallbackBody, 'message_id'>;
