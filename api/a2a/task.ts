/**
 * A message's status as an A2A task (v1.0 JSON): the task id is the message id, its context id the caller's (the
 * message's session) or else the message's trace id; processed is `completed` with the result as an artifact, failed or expired `failed` and rejected `rejected`
 * with the reason, cancelled `canceled`; before that, accepted to delivering are `submitted` and delivered
 * `working`. Our own state, target and reason travel in the task's metadata. Pure.
 */
import type { MessageInput, MessageState, MessageStatus } from '../../messages/message';
import type { InputRequest, Turn } from '../../protocol/turns';

export type TaskStateName =
  | 'TASK_STATE_SUBMITTED'
  | 'TASK_STATE_WORKING'
  | 'TASK_STATE_INPUT_REQUIRED'
  | 'TASK_STATE_COMPLETED'
  | 'TASK_STATE_FAILED'
  | 'TASK_STATE_REJECTED'
  | 'TASK_STATE_CANCELED';

export const TASK_STATE_OF: Record<MessageState, TaskStateName> = {
  accepted: 'TASK_STATE_SUBMITTED',
  routing: 'TASK_STATE_SUBMITTED',
  delivering: 'TASK_STATE_SUBMITTED',
  delivered: 'TASK_STATE_WORKING',
  input_required: 'TASK_STATE_INPUT_REQUIRED',
  processed: 'TASK_STATE_COMPLETED',
  failed: 'TASK_STATE_FAILED',
  expired: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
  cancelled: 'TASK_STATE_CANCELED',
};

type JsonObject = Record<string, unknown>;

/** A result as parts: text as a text part, anything else as JSON data. */
function partsOf(value: unknown): JsonObject[] {
  if (typeof value === 'string') return [{ text: value, mediaType: 'text/plain' }];
  return [{ data: value, mediaType: 'application/json' }];
}

/** The artifacts of a processed message: its result, when it has one. */
export function artifactsOf(status: MessageStatus): JsonObject[] {
  if (status.state !== 'processed' || status.result === undefined || status.result === null) return [];
  return [{ artifactId: 'result', name: 'result', parts: partsOf(status.result) }];
}

/** The task's context: the one the caller gave (kept as the message's session), else the message's trace id. */
export function contextIdOf(status: Pick<MessageStatus, 'session_id' | 'trace_id'>): string {
  return status.session_id ?? status.trace_id;
}

/**
 * The agent's question as an A2A message: its text, then the JSON Schema of what it wants (when it gave one); several
 * questions: those still open, by key (answered in a data part with a field per key).
 */
function questionOf(status: MessageStatus, input: InputRequest, messageId: string): JsonObject {
  const parts: JsonObject[] = [{ text: input.message, mediaType: 'text/plain' }];
  if (input.schema) parts.push({ data: { schema: input.schema }, mediaType: 'application/json' });
  if (input.questions) parts.push({ data: { questions: input.questions }, mediaType: 'application/json' });
  return { messageId, contextId: contextIdOf(status), taskId: status.message_id, role: 'ROLE_AGENT', parts };
}

/** The id of the n-th (from 1) message of the conversation after the caller's first. */
function turnMessageId(status: MessageStatus, n: number): string {
  return `${status.message_id}:turn-message-${n}`;
}

/**
 * Why a message that did not succeed ended so, as an agent message: the reason's text, then the reason as data.
 * While the message waits for input: the agent's question.
 */
function statusMessageOf(status: MessageStatus): JsonObject | undefined {
  if (status.state === 'input_required' && status.input_required)
    return questionOf(status, status.input_required, turnMessageId(status, status.turns?.length ?? 0));
  const reason = status.reason ?? (status.error ? { code: 'agent_failed', message: status.error.message } : undefined);
  if (!reason) return undefined;
  return {
    messageId: `${status.message_id}:${status.state}`,
    contextId: contextIdOf(status),
    taskId: status.message_id,
    role: 'ROLE_AGENT',
    parts: [
      { text: reason.message, mediaType: 'text/plain' },
      { data: { ...reason, ...(status.error ? { error: status.error } : {}) }, mediaType: 'application/json' },
    ],
  };
}

/** The A2A status of the message now. */
export function taskStatusOf(status: MessageStatus): JsonObject {
  const message = statusMessageOf(status);
  return { state: TASK_STATE_OF[status.state], timestamp: status.updated_at, ...(message ? { message } : {}) };
}

/** Our own view of the message, in the task's metadata. */
function metadataOf(status: MessageStatus): JsonObject {
  return {
    state: status.state,
    trace_id: status.trace_id,
    ...(status.target.capability ? { agent_id: status.target.agent_id, capability: status.target.capability } : {}),
    ...(status.reason ? { reason: status.reason } : {}),
  };
}

/** The caller's message as the run was started with it: the intent as text, the params and the payload as data. */
export function userMessageOf(
  status: MessageStatus,
  input: Pick<MessageInput, 'intent' | 'params' | 'payload'>,
): JsonObject {
  const parts: JsonObject[] = [];
  if (input.intent !== undefined) parts.push({ text: input.intent, mediaType: 'text/plain' });
  if (input.params !== undefined) parts.push({ data: input.params, mediaType: 'application/json' });
  if (input.payload !== undefined) parts.push({ data: input.payload, mediaType: 'application/json' });
  return {
    messageId: status.message_id,
    contextId: contextIdOf(status),
    taskId: status.message_id,
    role: 'ROLE_USER',
    parts,
  };
}

/** One turn of the conversation as an A2A message: the agent's question, or the caller's reply. */
function turnMessageOf(status: MessageStatus, turn: Turn, n: number): JsonObject {
  if (turn.role === 'agent') return questionOf(status, turn, turnMessageId(status, n));
  return { ...userMessageOf(status, turn), messageId: turn.a2a_message_id ?? turnMessageId(status, n) };
}

/**
 * The task's history, oldest first: the caller's message (when its input could be read), the conversation after it
 * (the agent's questions, the caller's replies), then the status message of a task that did not succeed (a waiting
 * task's status message is the last question, already there).
 */
export function historyOf(
  status: MessageStatus,
  input: Pick<MessageInput, 'intent' | 'params' | 'payload'> | undefined,
): JsonObject[] {
  const turns = (status.turns ?? []).map((turn, i) => turnMessageOf(status, turn, i + 1));
  const statusMessage = status.state === 'input_required' ? undefined : statusMessageOf(status);
  return [...(input ? [userMessageOf(status, input)] : []), ...turns, ...(statusMessage ? [statusMessage] : [])];
}

/** How much of a task to show: its history (already cut to the asked length), and whether its artifacts. */
export interface TaskView {
  history?: JsonObject[];
  artifacts?: boolean;
}

export function taskOf(status: MessageStatus, view: TaskView = {}): JsonObject {
  const artifacts = view.artifacts === false ? [] : artifactsOf(status);
  return {
    id: status.message_id,
    contextId: contextIdOf(status),
    status: taskStatusOf(status),
    ...(artifacts.length > 0 ? { artifacts } : {}),
    ...(view.history && view.history.length > 0 ? { history: view.history } : {}),
    metadata: metadataOf(status),
  };
}
