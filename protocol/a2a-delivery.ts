/**
 * Delivering to an A2A agent (docs/a2a.md, "Delivering to A2A agents"): our message as an A2A `SendMessage`, and
 * what the agent's answer — a Message, or a Task in some state — means for the message. Pure functions over the
 * protocol's JSON form (A2A v1.0 names; the official client converts for v0.3 agents).
 */
import type { EnvelopeSource } from './envelope';
import type { AgentOutcome } from './receipt';
import { deliveryKey, type AgentTurn, type CallerTurn, type InputRequest, type Turn } from './turns';
import type { DeliveryVerdict } from './verdicts';

type Json = Record<string, unknown>;

/** The key of our own fields in the A2A message's and parts' metadata. */
export const REACH_METADATA_KEY = 'agent_reach';

/** What the parts of a delivered message hold, in their metadata under REACH_METADATA_KEY. */
export type PartRole = 'intent' | 'params' | 'payload';

export interface A2aDelivery {
  message: EnvelopeSource;
  target: { agent_id: string; capability: string };
  attempt: number;
  /** The agent's own id of the skill the capability came from (an imported card's skill id). */
  skillId: string;
  /** Where and with which token the agent posts when the task changes (agents whose card offers push). */
  push?: { url: string; token: string };
  /** A follow-up turn: the agent's task that asked the caller for input, which the caller's reply continues. */
  continuesTask?: string;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A data part: v0.3 agents take only objects, so anything else travels as `{value: …}`. */
function dataPart(value: unknown, role: PartRole): Json {
  return { data: isObject(value) ? value : { value }, metadata: { [REACH_METADATA_KEY]: role } };
}

/** The caller's words as parts: the intent a text part, the params and the payload data parts. */
function partsOfWords(words: Pick<CallerTurn, 'intent' | 'params' | 'payload'>, skillId: string): Json[] {
  const parts: Json[] = [];
  if (words.intent) parts.push({ text: words.intent, metadata: { [REACH_METADATA_KEY]: 'intent' } });
  if (words.params && Object.keys(words.params).length > 0) parts.push(dataPart(words.params, 'params'));
  if (words.payload !== undefined && words.payload !== null) parts.push(dataPart(words.payload, 'payload'));
  // A message has at least one part; a bare capability call is asked by its skill's name.
  if (parts.length === 0) parts.push({ text: skillId, metadata: { [REACH_METADATA_KEY]: 'intent' } });
  return parts;
}

/** The caller's latest reply in a follow-up turn's conversation (the first caller turn is the message itself). */
function lastReply(history: EnvelopeSource['history']): CallerTurn | undefined {
  const callers = (history ?? []).filter((turn): turn is CallerTurn => turn.role === 'caller');
  return callers.length > 1 ? callers[callers.length - 1] : undefined;
}

/**
 * The `SendMessageRequest` for one delivery. The A2A message id is our message id, so every redelivery of the
 * message carries the same one (an agent that keeps ids recognises it); the context id is the trace id, shared by
 * the hops of one conversation. The intent is a text part, the params and the payload data parts. The agent answers
 * at once (`returnImmediately`): the task is followed with `GetTask`, never by holding the connection; an agent
 * that offers push is asked to post to `push.url` when the task changes (which only makes the next read sooner).
 * A follow-up turn (`continuesTask`: the agent's task asked for input, the caller replied) continues that task: the
 * caller's reply as the parts, `<message_id>:turn-<n>` as the message id.
 */
export function sendMessageRequestOf(delivery: A2aDelivery): Json {
  const { message, target, attempt, skillId, push, continuesTask } = delivery;
  const reply = continuesTask ? lastReply(message.history) : undefined;
  const parts = partsOfWords(reply ?? message, skillId);
  const reach = {
    message_id: message.message_id,
    trace_id: message.trace_id,
    tenant: message.tenant,
    capability: target.capability,
    attempt,
    ...(message.parent_message_id ? { parent_message_id: message.parent_message_id } : {}),
    ...(message.deadline ? { deadline: message.deadline } : {}),
    ...(reply ? { turn: message.turn } : {}),
  };
  return {
    message: {
      // A follow-up turn is new work for the agent: its own message id (the delivery key), in the same task.
      messageId: deliveryKey(message.message_id, reply ? message.turn : undefined),
      contextId: message.trace_id,
      ...(reply ? { taskId: continuesTask } : {}),
      role: 'ROLE_USER',
      parts,
      metadata: { skill: skillId, [REACH_METADATA_KEY]: reach },
    },
    configuration: {
      returnImmediately: true,
      acceptedOutputModes: ['application/json', 'text/plain'],
      ...(push ? { taskPushNotificationConfig: { url: push.url, token: push.token } } : {}),
    },
  };
}

/** A task state in either spelling (`TASK_STATE_COMPLETED`, `completed`, `input-required`) as v1.0's short name. */
export function taskStateOf(state: unknown): string {
  if (typeof state !== 'string') return 'unknown';
  return state
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');
}

/** The value of one part: its text, its data (unwrapped from `{value}` when we wrapped it), or a file's reference. */
function partValue(part: Json): unknown {
  if (typeof part.text === 'string') return part.text;
  if ('data' in part) {
    const data = part.data;
    return isObject(data) && Object.keys(data).length === 1 && 'value' in data ? data.value : data;
  }
  const file = isObject(part.file) ? part.file : part;
  const ref = ['url', 'uri', 'fileWithUri'].map((k) => file[k]).find((v) => typeof v === 'string');
  return {
    file: {
      ...(ref ? { url: ref } : {}),
      ...(typeof file.mediaType === 'string' ? { media_type: file.mediaType } : {}),
      ...(typeof file.filename === 'string' ? { name: file.filename } : {}),
    },
  };
}

function partsOf(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/**
 * The result of a completed task: the values of its artifacts' parts — one value alone, several as an array — or,
 * with no artifact, the parts of its status message (some agents answer there).
 */
export function resultOfTask(task: Json): unknown {
  const artifactParts = partsOf(task.artifacts).flatMap((artifact) => partsOf(artifact.parts));
  const status = isObject(task.status) ? task.status : {};
  const parts =
    artifactParts.length > 0 ? artifactParts : partsOf(isObject(status.message) ? status.message.parts : undefined);
  return resultOfParts(parts);
}

export function resultOfParts(parts: Json[]): unknown {
  const values = parts.map(partValue);
  if (values.length === 0) return null;
  return values.length === 1 ? values[0] : values;
}

/** The text of the task's status message, if it has one. */
function statusText(task: Json): string | undefined {
  const status = isObject(task.status) ? task.status : {};
  const message = isObject(status.message) ? status.message : undefined;
  const texts = partsOf(message?.parts).flatMap((p) => (typeof p.text === 'string' ? [p.text] : []));
  return texts.length > 0 ? texts.join('\n').slice(0, 4000) : undefined;
}

/** What an agent's task in `input-required` asks the caller: its status message's text (A2A gives no schema). */
function questionOf(task: Json): InputRequest {
  const status = isObject(task.status) ? task.status : {};
  const asking = isObject(status.message) ? status.message.messageId : undefined;
  return {
    message: statusText(task) ?? 'The agent asks for more input.',
    ...(typeof asking === 'string' && asking ? { a2a_message_id: asking } : {}),
  };
}

/** On a follow-up turn: the A2A status message whose question the caller's reply answers (the latest agent turn's). */
export function answeredQuestion(history: Turn[] | undefined): string | undefined {
  const asked = (history ?? []).filter((turn): turn is AgentTurn => turn.role === 'agent');
  return asked[asked.length - 1]?.a2a_message_id;
}

/**
 * Whether a rejected task says the message is not for this capability: `metadata.agent_reach` is `"misrouted"`, on
 * the task or on its status message (A2A has no state of its own for it).
 */
function saysMisrouted(task: Json): boolean {
  const status = isObject(task.status) ? task.status : {};
  const message = isObject(status.message) ? status.message : {};
  return [task.metadata, message.metadata].some(
    (metadata) => isObject(metadata) && metadata[REACH_METADATA_KEY] === 'misrouted',
  );
}

/** What a task says of the message: still under way (with its state), or ended as the agent's outcome. */
export type TaskOutcome =
  | { kind: 'pending'; state: string }
  | { kind: 'ended'; state: string; outcome: AgentOutcome; refused?: boolean; misrouted?: boolean };

/**
 * A task's state as our message's. `completed` is processed with the artifacts as the result. `input-required` is
 * the agent asking the caller (its status message's text the question): the message waits for the caller's reply,
 * which continues the task (sendMessageRequestOf). `failed`, `canceled` (by the agent: the gateway only cancels a
 * message that already ended) and `auth-required` are failures the caller reads in the message's error (code
 * `a2a_<state>`, the agent's text). `rejected` is a refusal, or a misroute when its metadata says so (saysMisrouted).
 * `answered`, on a follow-up turn, is the question the caller's reply answers: a task still showing it is under way.
 */
export function outcomeOfTask(task: Json, answered?: string): TaskOutcome {
  const status = isObject(task.status) ? task.status : {};
  const state = taskStateOf(status.state);
  switch (state) {
    case 'submitted':
    case 'working':
    case 'unspecified':
    case 'unknown':
      return { kind: 'pending', state };
    case 'completed':
      return { kind: 'ended', state, outcome: { status: 'processed', result: resultOfTask(task) } };
    case 'input-required': {
      const input = questionOf(task);
      // Still the question the caller answered: the agent has not read the reply yet.
      if (answered !== undefined && input.a2a_message_id === answered) return { kind: 'pending', state };
      return { kind: 'ended', state, outcome: { status: 'input_required', input } };
    }
    default: {
      const message = statusText(task) ?? `the agent's task ended ${state}`;
      const outcome: AgentOutcome = {
        status: 'failed',
        error: { code: `a2a_${state.replace(/-/g, '_')}`, message, retryable: false },
      };
      if (state !== 'rejected') return { kind: 'ended', state, outcome };
      return saysMisrouted(task)
        ? { kind: 'ended', state, outcome, misrouted: true }
        : { kind: 'ended', state, outcome, refused: true };
    }
  }
}

/** Whether an answer to SendMessage is a Task (else it is a Message, the agent's direct reply). */
export function isTask(answer: Json): boolean {
  return typeof answer.id === 'string' && isObject(answer.status);
}

/**
 * The verdict of an answer to SendMessage: a direct Message reply is processed, with its parts as the result; a
 * task that ended is processed or failed as outcomeOfTask says; a task under way is accepted — its outcome is then
 * followed with GetTask (the workflow's poll), as another agent's receipt would come to /callback.
 */
export function verdictOfAnswer(answer: Json, answered?: string): DeliveryVerdict {
  if (!isTask(answer)) return { kind: 'processed', result: resultOfParts(partsOf(answer.parts)) };
  const outcome = outcomeOfTask(answer, answered);
  if (outcome.kind === 'pending') return { kind: 'accepted' };
  if (outcome.misrouted) return { kind: 'misrouted' };
  if (outcome.refused)
    return { kind: 'refused', error: outcome.outcome.error?.message ?? 'the agent rejected the task' };
  if (outcome.outcome.status === 'input_required') return { kind: 'input_required', input: outcome.outcome.input };
  return outcome.outcome.status === 'processed'
    ? { kind: 'processed', result: outcome.outcome.result ?? null }
    : { kind: 'agent_failed', error: outcome.outcome.error! };
}
