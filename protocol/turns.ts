/**
 * Multi-turn messages (docs/protocol.md, "Asking the caller for input"): an agent that needs more from the caller
 * answers `input_required` with a question; the message waits, the caller replies, and the agent gets the same message
 * again as a follow-up delivery (turn 2, 3, …) with the conversation so far. Pure types and functions, safe to import
 * from workflows.
 */

/** One question: its words, and optionally the JSON Schema of the data wanted. */
export interface Question {
  message: string;
  schema?: Record<string, unknown>;
}

/**
 * What an agent asks the caller for: a question, and optionally the JSON Schema of the data it wants; or several named
 * questions at once (`questions`, `message` then says what they are for), each answered under its key
 * (protocol/answers.ts). While the message waits, its status shows only the questions still unanswered.
 */
export interface InputRequest extends Question {
  questions?: Record<string, Question>;
  /**
   * An A2A agent's question: the id of the task's status message that asked. A reply continues the task, and an
   * answer that still shows this question is the task before the agent read the reply, not a new question.
   */
  a2a_message_id?: string;
}

/** The caller's words in a conversation: the first message, or a reply to the agent's question. */
export interface CallerTurn {
  role: 'caller';
  intent?: string;
  params?: Record<string, unknown>;
  payload?: unknown;
  at: string;
  /** The A2A message id of a reply sent through the A2A face. */
  a2a_message_id?: string;
  /** The answers to several questions asked at once, by question key (`params` then holds theirs merged). */
  answers?: Record<string, Answer>;
}

/** The caller's answer to one of several questions. */
export interface Answer {
  intent?: string;
  params?: Record<string, unknown>;
  payload?: unknown;
}

/** The agent's question. */
export interface AgentTurn extends InputRequest {
  role: 'agent';
  at: string;
}

export type Turn = CallerTurn | AgentTurn;

/** Questions one message may ask; the next one ends it `failed` (a conversation is bounded like everything else). */
export const MAX_INPUT_REQUESTS = 10;

/** Questions one `input_required` receipt may ask at once (`input.questions`). */
export const MAX_QUESTIONS = 10;

/** How long a message waits for the caller's reply (and never past its deadline): then it ends `expired`, `input_timeout`. */
export const INPUT_WAIT_MS = 24 * 3600 * 1000;

/**
 * The key of one delivery: the message id for the first turn (as before multi-turn), `<message_id>:turn-<n>` for a
 * follow-up. Agents de-duplicate by it (the `Idempotency-Key` header and the envelope's `delivery_key`), so a
 * redelivery of a turn is recognised while the next turn is new work.
 */
export function deliveryKey(messageId: string, turn: number | undefined): string {
  return turn === undefined || turn <= 1 ? messageId : `${messageId}:turn-${turn}`;
}
