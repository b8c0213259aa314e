/**
 * The message: its states, the record of each delivery attempt, and the status callers read.
 * Pure types and functions, safe to import from workflows.
 */
import type { AgentError } from '../protocol/receipt';
import type { CallerTurn, InputRequest, Turn } from '../protocol/turns';
import type { Caller } from '../rules/api-key';

export const MESSAGE_STATES = [
  'accepted',
  'routing',
  'delivering',
  'delivered',
  /** Not terminal: the agent asked the caller for input and the message waits for the reply (protocol/turns.ts). */
  'input_required',
  'processed',
  'failed',
  'rejected',
  'cancelled',
  'expired',
] as const;
export type MessageState = (typeof MESSAGE_STATES)[number];

export const TERMINAL_STATES: ReadonlySet<MessageState> = new Set([
  'processed',
  'failed',
  'rejected',
  'cancelled',
  'expired',
]);

/** Which state may follow which. `delivering` may be re-entered from `delivered` on redelivery. */
const NEXT_STATES: Record<MessageState, readonly MessageState[]> = {
  accepted: ['routing', 'cancelled', 'expired'],
  routing: ['delivering', 'rejected', 'failed', 'cancelled', 'expired'],
  delivering: ['delivering', 'delivered', 'input_required', 'processed', 'failed', 'cancelled', 'expired'],
  delivered: ['delivering', 'input_required', 'processed', 'failed', 'cancelled', 'expired'],
  input_required: ['delivering', 'failed', 'cancelled', 'expired'],
  processed: [],
  failed: [],
  rejected: [],
  cancelled: [],
  expired: [],
};

export function isTerminal(state: MessageState): boolean {
  return TERMINAL_STATES.has(state);
}

export function canTransition(from: MessageState, to: MessageState): boolean {
  return NEXT_STATES[from].includes(to);
}

/**
 * Reason codes of terminal states other than `processed` (rules/error-codes.ts): a target refused in the run has the
 * code the api answers for the same refusal. Messages ended before 2026-12 may read `unknown_agent` and `forbidden`.
 */
export type ReasonCode =
  | 'agent_not_found'
  | 'unknown_capability'
  /** The capability's ACL no longer admits the sender. */
  | 'capability_forbidden'
  /** The run's input was not built by the gateway (no gateway seal on its caller). */
  | 'invalid_access_token'
  | 'no_available_instance'
  | 'agent_refused'
  | 'delivery_exhausted'
  | 'ack_timeout'
  | 'agent_failed'
  /** The agent's answer was longer than the gateway reads, or its result larger than a status keeps. */
  | 'result_too_large'
  | 'deadline_exceeded'
  | 'cancelled_by_caller'
  | 'terminated'
  /** The router found no capability matching the intent well enough. */
  | 'no_route'
  /** Capabilities match, but none can take the message now (offline, draining, circuit open, at capacity, ACL). */
  | 'no_eligible_capability'
  /** Two capabilities fit the intent about equally well: the caller is asked which (`choices`). */
  | 'ambiguous'
  /** The chosen capability needs parameters the intent does not give. */
  | 'input_required'
  /** The agent asked the caller for input and no reply came within INPUT_WAIT_MS (protocol/turns.ts). */
  | 'input_timeout'
  /** The named capability's agent answered that the message is not for it (a message routed by intent goes elsewhere). */
  | 'misrouted';

export interface Reason {
  code: ReasonCode;
  message: string;
  /** For `input_required`: the missing parameters. */
  missing?: string[];
  /** For `ambiguous`: the capabilities the intent could mean. */
  choices?: { agent_id: string; capability: string; description: string; probability: number }[];
}

/** How the router chose the target of a message sent with an intent (see router/router.ts). */
export interface MessageRouting {
  decided_by: string;
  provider: string;
  /** The router's explanation: candidates, scores, ranking, extraction. */
  explanation: unknown;
}

export interface MessageTarget {
  agent_id: string;
  capability: string;
}

/** How one message is delivered; computed from config when the message is accepted, so it is part of history. */
export interface DeliveryPolicy {
  /** Delivery attempts before giving up. */
  maxAttempts: number;
  /** First retry delay in ms, doubled per attempt. */
  initialBackoffMs: number;
  /** Upper bound of one retry delay in ms. */
  maxBackoffMs: number;
  /** Time allowed for one HTTP attempt in ms. */
  attemptTimeoutMs: number;
  /** Receipt wait when the capability sets none, in ms. */
  defaultAckTimeoutMs: number;
}

export interface MessageInput {
  tenant: string;
  message_id: string;
  trace_id: string;
  parent_message_id?: string;
  target: MessageTarget;
  intent?: string;
  payload?: unknown;
  /** Parameters for the capability: given by the caller or extracted from the intent by the router. */
  params?: Record<string, unknown>;
  /** Present when the router chose the target. */
  routing?: MessageRouting;
  /** Present when the router refused the message: the run records it and ends `rejected`. */
  rejection?: Reason;
  /** Where the agent posts its receipt. */
  callback_url: string;
  /** ISO time the api accepted the message. */
  accepted_at: string;
  /** ISO time after which no delivery is attempted and the message expires. */
  deadline?: string;
  policy: DeliveryPolicy;
  /** Present on a redriven run: what came before under the same message id. */
  redrive?: RedriveInput;
  /** Where the caller wants the final status posted (signed), and how fast to retry that. */
  reply_to?: { url: string; retry_initial_ms: number };
  /** Who sent it (an API key, or a token's subject with its groups), so every attempt checks the capability's ACL again. Absent on older runs. */
  caller?: Caller;
  /** The gateway's seal on this input (messages/seal.ts): runs of inputs it did not build deliver nothing. Absent on older runs. */
  seal?: { at: string; mac: string };
  /** Set by the run on a follow-up delivery (never by a caller): its turn and the conversation so far. */
  turn?: number;
  history?: Turn[];
  /** Set by the run on a follow-up delivery to an A2A agent: the agent's task that asked, which the reply continues. */
  a2a_task_id?: string;
}

export interface RedriveRecord {
  at: string;
  previous_state: MessageState;
  previous_reason?: Reason;
}

export interface RedriveInput {
  /** Attempts of the earlier runs, kept so the status shows the whole story. */
  previous_attempts: AttemptRecord[];
  history: RedriveRecord[];
}

/** Asks the workflow to stop; answered with the state it ends in. */
export interface CancelInput {
  reason?: string;
}

/** What a delivery attempt came to, from the gateway's side. */
export type AttemptOutcome =
  | 'processed'
  | 'agent_failed'
  | 'accepted'
  | 'duplicate'
  | 'refused'
  /** The agent answered that the message is not for its capability. */
  | 'misrouted'
  /** The agent asked the caller for input. */
  | 'input_required'
  | 'transient_error'
  /** No instance of the agent could take it (all offline or draining): retried like a transient error. */
  | 'unavailable';

export interface AttemptRecord {
  attempt: number;
  agent_id: string;
  /** Absent when no instance was available. */
  instance_id?: string;
  endpoint?: string;
  started_at: string;
  latency_ms: number;
  outcome: AttemptOutcome;
  http_status?: number;
  /** A2A agents: the id of the agent's task for this delivery. */
  a2a_task_id?: string;
  /** A follow-up delivery's turn (absent for turn 1). */
  turn?: number;
  error?: string;
}

export interface MessageStatus {
  message_id: string;
  trace_id: string;
  parent_message_id?: string;
  tenant: string;
  /** The caller's session (`session_id` of the send), read from the run's memo. */
  session_id?: string;
  state: MessageState;
  reason?: Reason;
  target: MessageTarget;
  agent?: { agent_id: string; capability: string; instance_id: string };
  params?: Record<string, unknown>;
  routing?: MessageRouting;
  /** Capabilities (`agent_id/capability`) whose agents answered that the message is not for them, in order. */
  misrouted?: string[];
  attempts: AttemptRecord[];
  result?: unknown;
  error?: AgentError;
  accepted_at: string;
  deadline?: string;
  /** Each redrive of this message, oldest first. */
  redrives?: RedriveRecord[];
  /** While the message waits for the caller (state `input_required`): what the agent asks for. */
  input_required?: InputRequest;
  /** The conversation after the caller's first message: the agent's questions and the caller's replies, oldest first. */
  turns?: Turn[];
  updated_at: string;
  delivered_at?: string;
  completed_at?: string;
}

/** The agent's processed receipt, as the api hands it to the workflow. */
export interface ReceiptInput {
  /** The authenticated agent that sent the receipt. */
  agent_id: string;
  status: 'processed' | 'failed' | 'misrouted' | 'input_required';
  result?: unknown;
  error?: AgentError;
  /** With `input_required`: what the agent asks the caller for. */
  input?: InputRequest;
  /** The delivery turn the receipt reports on (absent: 1). A receipt for another turn than the current one is not applied. */
  turn?: number;
}

/** The caller's reply to a message waiting for input: handed to its run, which delivers it as the next turn. */
export type ReplyInput = Omit<CallerTurn, 'role' | 'at'>;

/** What a reply came to: taken (the message goes on as `turn`), or not (the message does not wait for input). */
export interface ReplyOutcome {
  applied: boolean;
  state: MessageState;
  turn: number;
}

export interface ReceiptOutcome {
  /** false when a receipt was already recorded: a repeated receipt changes nothing. */
  applied: boolean;
  state: MessageState;
}
