/**
 * A chain: a caller's multi-step request, run as one durable plan of routed messages (docs/chains.md). Its body,
 * its states and the status callers read. Pure types, safe to import from workflows.
 */

export const ON_FAILURE = ['stop', 'continue', 'compensate'] as const;
export type OnFailure = (typeof ON_FAILURE)[number];

/** A JSON value in which `{"$ref": "<JSON Pointer>"}` stands for the value the pointer names (chains/pointer.ts). */
export type Template = unknown;

/**
 * A condition on the document steps read: run the step only when the value at `$ref` equals `equals`, differs from
 * `not_equals`, or is one of `in` (exactly one of the three; chains/condition.ts).
 */
export interface StepCondition {
  $ref: string;
  equals?: unknown;
  not_equals?: unknown;
  in?: unknown[];
}

/** Where a step's message goes: a named capability, or an intent the router chooses for. */
export interface StepAddress {
  target?: { agent_id: string; capability: string };
  intent?: string;
  /** The message's `params`: must come to an object; checked against the capability's `parameters`. */
  input?: Template;
  /** The message's `payload`. */
  payload?: Template;
}

export interface ChainStepBody extends StepAddress {
  id: string;
  /** Steps that must end first; absent → the step before it (none for the first). */
  after?: string[];
  when?: StepCondition;
  /** The step's message expires this long after the step starts. */
  deadline_ms?: number;
  on_failure?: OnFailure;
  /** Run, as its own message, when the chain compensates and this step had completed. */
  compensate?: StepAddress;
}

export interface ChainBody {
  chain_id?: string;
  input?: unknown;
  steps: ChainStepBody[];
  reply_to?: { url: string };
  /** The caller asked to be told how it went (chains/aggregate.ts): the aggregate gains a summary. */
  summary?: { request: string };
}

export const CHAIN_STATES = ['running', 'compensating', 'completed', 'failed', 'compensated', 'cancelled'] as const;
export type ChainState = (typeof CHAIN_STATES)[number];
export const TERMINAL_CHAIN_STATES: readonly ChainState[] = ['completed', 'failed', 'compensated', 'cancelled'];

export const STEP_STATES = ['pending', 'running', 'completed', 'failed', 'skipped', 'cancelled'] as const;
export type StepState = (typeof STEP_STATES)[number];

export interface StepError {
  code: string;
  message: string;
}

/** Where a result kept by reference is: its message (the step's, or its compensation's) and its size as JSON. */
export interface ResultRef {
  message_id: string;
  bytes: number;
}

/** One message the chain sent (a step, or a step's compensation). */
export interface SentMessage {
  message_id: string;
  state: StepState;
  /** The agent's result, when it is small enough to be kept in the chain (chains/result-refs.ts). */
  result?: unknown;
  /** A result too large to be kept in the chain: `GET /v1/messages/<message_id>` serves it. */
  result_ref?: ResultRef;
  started_at?: string;
  ended_at?: string;
  error?: StepError;
  /** The agent and capability it went to (chosen by the router for an intent). */
  target?: { agent_id: string; capability: string };
}

export interface StepStatus extends SentMessage {
  id: string;
  after: string[];
  compensation?: SentMessage;
}

export interface ChainStatus {
  chain_id: string;
  tenant: string;
  state: ChainState;
  steps: StepStatus[];
  started_at: string;
  ended_at?: string;
  /** Why the chain failed, was compensated or cancelled. */
  error?: StepError & { step?: string };
}

export function isTerminalChain(state: ChainState): boolean {
  return TERMINAL_CHAIN_STATES.includes(state);
}
