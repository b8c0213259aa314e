/**
 * The delivery envelope: the JSON body every agent receives for a message, in an HTTP POST to its endpoint or in a
 * WebSocket `delivery` frame. The agent SDK (sdk/agent.ts) reads the same type.
 */
import { deliveryKey, type Turn } from './turns';

export interface DeliveryEnvelope {
  message_id: string;
  trace_id: string;
  /** The message this one was sent on behalf of, when an agent passed work on. */
  parent_message_id: string | null;
  tenant: string;
  agent_id: string;
  capability: string;
  /** The caller's words, when it sent an intent. */
  intent: string | null;
  /** Parameters for the capability, checked against its JSON Schema. */
  params: Record<string, unknown>;
  /** The caller's raw data. */
  payload: unknown;
  /** 1 for the first delivery; a redelivery keeps the message id and counts up. */
  attempt: number;
  /** ISO time after which the gateway no longer cares for the result. */
  deadline: string | null;
  /** Where to post the receipt (protocol/receipt.ts). */
  callback_url: string;
  /** 1 for the message as sent; n + 1 for the follow-up after the caller's n-th reply to an `input_required` answer. */
  turn: number;
  /** What an agent de-duplicates by: the message id on turn 1, `<message_id>:turn-<n>` after (protocol/turns.ts). */
  delivery_key: string;
  /** On a follow-up: the conversation so far, oldest first (the caller's message, the agent's question, the reply, …). */
  history?: Turn[];
}

/** What the gateway knows of a message that goes into its envelope. */
export interface EnvelopeSource {
  message_id: string;
  trace_id: string;
  parent_message_id?: string;
  tenant: string;
  intent?: string;
  params?: Record<string, unknown>;
  payload?: unknown;
  deadline?: string;
  callback_url: string;
  /** A follow-up delivery's turn and the conversation so far (absent on turn 1). */
  turn?: number;
  history?: Turn[];
}

export function deliveryEnvelope(
  message: EnvelopeSource,
  target: { agent_id: string; capability: string },
  attempt: number,
): DeliveryEnvelope {
  return {
    message_id: message.message_id,
    trace_id: message.trace_id,
    parent_message_id: message.parent_message_id ?? null,
    tenant: message.tenant,
    agent_id: target.agent_id,
    capability: target.capability,
    intent: message.intent ?? null,
    params: message.params ?? {},
    payload: message.payload ?? null,
    attempt,
    deadline: message.deadline ?? null,
    callback_url: message.callback_url,
    turn: message.turn ?? 1,
    delivery_key: deliveryKey(message.message_id, message.turn),
    ...(message.history ? { history: message.history } : {}),
  };
}
