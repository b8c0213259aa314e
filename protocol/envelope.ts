/**
 * The delivery envelope: the JSON body every agent receives for a message, in an HTTP POST to its endpoint or in a
 * WebSocket `delivery` frame. The agent SDK (sdk/agent.ts) reads the same type.
 */

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
}

export function deliveryEnvelope(message: EnvelopeSource, target: { agent_id: string; capability: string }, attempt: number): DeliveryEnvelope {
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
  };
}
