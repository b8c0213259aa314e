/**
 * The WebSocket channel's frames (JSON text), for agents that connect out to the api instead of exposing an
 * endpoint. Gateway → agent: `ready` once connected, `delivery` per attempt, `receipt_result` per receipt,
 * `error` for a frame it could not take. Agent → gateway: `ack` per delivery within the attempt timeout, then
 * `receipt` once the work is done.
 */
import { z } from 'zod';
import type { DeliveryEnvelope } from './envelope';
import type { AgentError, CallbackBody } from './receipt';

export type DeliveryFrame = { type: 'delivery' } & DeliveryEnvelope;

export interface ReadyFrame {
  type: 'ready';
  agent_id: string;
  instance_id: string;
}

export interface ErrorFrame {
  type: 'error';
  /** `receipt_failed` and `internal`: the gateway could not take the frame now; send it again. */
  code: 'invalid_json' | 'invalid_frame' | 'unknown_frame' | 'receipt_failed' | 'internal';
  message_id?: string;
  message?: string;
  details?: unknown;
}

/** The agent's answer to a delivery, by message id and attempt. */
export const ackFrame = z.looseObject({
  type: z.literal('ack'),
  message_id: z.string(),
  attempt: z.number().int(),
  status: z.enum(['accepted', 'processed', 'failed', 'duplicate', 'refused', 'misrouted', 'input_required']).optional(),
  result: z.unknown().optional(),
  input: z.unknown().optional(),
  error: z.union([z.string(), z.looseObject({ message: z.string() })]).optional(),
});

/** What an ack says (no status means accepted). */
export interface AckFrame {
  status?: 'accepted' | 'processed' | 'failed' | 'duplicate' | 'refused' | 'misrouted' | 'input_required';
  result?: unknown;
  /** With `input_required`: what the agent asks the caller for (protocol/turns.ts). */
  input?: unknown;
  error?: AgentError | string;
}

/** The ack as the agent sends it. */
export type SentAckFrame = { type: 'ack'; message_id: string; attempt: number } & AckFrame;

/** A receipt over the socket: the body of `POST /v1/callback` (protocol/receipt.ts) with `type: 'receipt'`. */
export type ReceiptFrame = { type: 'receipt' } & CallbackBody;
