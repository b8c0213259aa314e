/**
 * An A2A `SendMessage` as the body of `POST /v1/messages` (docs/a2a.md): text parts are the intent, JSON-object data
 * parts the capability's params (other data parts the payload); the skill named in metadata (`skill`, or
 * `agent_id` and `capability`) is the target, else the router chooses from the intent; the A2A message id is the
 * message id, and the context id the routing session (and, through its trace id, what ListTasks filters a context
 * by). File parts are refused. Pure: A2A errors are thrown.
 */
import { ContentTypeNotSupportedError, RequestMalformedError, type SendMessageRequest } from './sdk';
import { capabilityOfSkill } from '../../catalogue/a2a';
import { MESSAGE_ID_PATTERN, sha256Hex } from '../../rules/ids';
import type { AgentDoc } from '../../store/agents';

/** The skill of the gateway's card that sends by intent (the router chooses). */
export const ROUTE_SKILL_ID = 'route';
/** The skill of the gateway's card that plans a chain and runs it on the caller's yes (plan-tasks.ts). */
export const PLAN_AND_RUN_SKILL_ID = 'plan_and_run';
/** Between the agent id and the capability in the skill ids of the gateway's card. */
export const SKILL_ID_SEPARATOR = '/';

/** Which face a request came to: the gateway's, or one agent's. */
export interface FaceScope {
  agent?: AgentDoc;
}

/**
 * Our id for an A2A id: the id itself when it is one of ours (letters, digits, `._:-`, at most 128), else a digest
 * of it, so that sending the same A2A message again names the same message.
 */
export function reachIdOf(a2aId: string): string {
  return MESSAGE_ID_PATTERN.test(a2aId) ? a2aId : `a2a-${sha256Hex(a2aId).slice(0, 40)}`;
}

const TRACE_ID = /^(?!0{32})[0-9a-f]{32}$/;

/**
 * The trace id of the messages of an A2A context: a context id that is a trace id (as every context the gateway
 * made is) is itself, any other is a digest of it within the tenant. So the tasks of one context share a trace, and
 * `ListTasks` finds them by it.
 */
export function traceIdOfContext(tenant: string, contextId: string): string {
  return TRACE_ID.test(contextId) ? contextId : sha256Hex(`${tenant}\n${contextId}`).slice(0, 32);
}

type Target = { agent_id: string; capability?: string };

function stringField(metadata: Record<string, unknown>, key: string): string | undefined {
  const value = metadata[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string')
    throw new RequestMalformedError({
      message: `metadata.${key} must be a string`,
      metadata: { location: `metadata.${key}` },
    });
  return value;
}

/** The target the metadata names on this face, if any. */
export function targetOf(metadata: Record<string, unknown>, scope: FaceScope): Target | undefined {
  const skill = stringField(metadata, 'skill');
  const agentId = stringField(metadata, 'agent_id');
  const capability = stringField(metadata, 'capability');
  if (scope.agent) {
    const agent = scope.agent;
    if (agentId && agentId !== agent._id)
      throw new RequestMalformedError(
        `This is the face of agent ${agent._id}; send to ${agentId} at its own face or the gateway's`,
      );
    const named = skill ? capabilityOfSkill(agent, skill) : undefined;
    // `route` (an agent's public card with no public skill names it) lets the router choose among the agent's.
    if (skill && !named && skill === ROUTE_SKILL_ID) return { agent_id: agent._id };
    if (skill) {
      if (!named)
        throw new RequestMalformedError({
          message: `Agent ${agent.name} has no skill "${skill}"`,
          metadata: { code: 'unknown_capability' },
        });
      return { agent_id: agent._id, capability: named };
    }
    return { agent_id: agent._id, ...(capability ? { capability } : {}) };
  }
  if (skill && skill !== ROUTE_SKILL_ID) {
    const at = skill.indexOf(SKILL_ID_SEPARATOR);
    if (at <= 0 || at === skill.length - 1) {
      throw new RequestMalformedError({
        message: `No skill "${skill}": skills of this card are "${ROUTE_SKILL_ID}" or "<agent_id>/<capability>"`,
        metadata: { code: 'unknown_capability' },
      });
    }
    return { agent_id: skill.slice(0, at), capability: skill.slice(at + 1) };
  }
  if (agentId) return { agent_id: agentId, ...(capability ? { capability } : {}) };
  if (capability)
    throw new RequestMalformedError(
      'metadata.capability needs metadata.agent_id (or name the skill in metadata.skill)',
    );
  return undefined;
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a message says: its text parts (the intent, joined by newlines), JSON-object data (params) and other data (payload). */
function contentOf(message: NonNullable<SendMessageRequest['message']>): {
  intent: string;
  params: Record<string, unknown>;
  payloads: unknown[];
} {
  const texts: string[] = [];
  const params: Record<string, unknown> = {};
  const payloads: unknown[] = [];
  for (const part of message.parts) {
    const content = part.content;
    if (!content) throw new RequestMalformedError('A message part has no content');
    if (content.$case === 'text') texts.push(content.value);
    else if (content.$case === 'data') {
      if (isJsonObject(content.value)) Object.assign(params, content.value);
      else payloads.push(content.value);
    } else {
      throw new ContentTypeNotSupportedError(
        `File parts are not accepted (${part.mediaType || content.$case}): send text (what you want) and data parts`,
      );
    }
  }
  return { intent: texts.join('\n'), params, payloads };
}

/** The message's content in the fields of our send and reply bodies (only those it has). */
function fieldsOf(content: ReturnType<typeof contentOf>): {
  intent?: string;
  params?: Record<string, unknown>;
  payload?: unknown;
} {
  const { intent, params, payloads } = content;
  return {
    ...(intent.trim() ? { intent } : {}),
    ...(Object.keys(params).length > 0 ? { params } : {}),
    ...(payloads.length > 0 ? { payload: payloads.length === 1 ? payloads[0] : payloads } : {}),
  };
}

/** The body to send (still to be validated with `sendMessageBody`, like any caller's). */
export function sendBodyOf(request: SendMessageRequest, scope: FaceScope): Record<string, unknown> {
  const message = request.message;
  if (!message) throw new RequestMalformedError('params.message is required');
  if (!message.messageId) throw new RequestMalformedError('message.messageId is required');
  if (message.contextId && !MESSAGE_ID_PATTERN.test(message.contextId)) {
    // The spec lets an agent refuse a context id it cannot keep; ours must be an id we can echo as it is.
    throw new RequestMalformedError({
      message: 'message.contextId must be 1–128 of letters, digits and ._:- (starting with a letter or digit)',
      metadata: { location: 'message.contextId' },
    });
  }
  const content = contentOf(message);
  const target = targetOf({ ...request.metadata, ...message.metadata }, scope);
  if (!target?.capability && !content.intent.trim()) {
    throw new RequestMalformedError(
      'Send a text part (what you want: the router chooses the skill) or name a skill in the metadata (docs/a2a.md)',
    );
  }
  return {
    message_id: reachIdOf(message.messageId),
    ...(target ? { target } : {}),
    ...fieldsOf(content),
    ...(message.contextId ? { session_id: message.contextId } : {}),
  };
}

/**
 * The body of a reply to a task waiting for input (still to be validated with `replyBody`): the message's content.
 * A skill named in its metadata changes nothing: the task has its agent.
 */
export function replyBodyOf(message: NonNullable<SendMessageRequest['message']>): Record<string, unknown> {
  const fields = fieldsOf(contentOf(message));
  if (Object.keys(fields).length === 0)
    throw new RequestMalformedError('A reply to a task waiting for input needs a text or data part');
  return fields;
}

/**
 * A reply to a task whose agent asked several questions at once: the data part's fields named after open questions
 * are the answers (an object as that answer's params, anything else as its payload); the rest of the message is not
 * an answer. Without any such field the reply stays as it is (and is refused: it answers no question).
 */
export function answersOf(reply: Record<string, unknown>, questions: Record<string, unknown>): Record<string, unknown> {
  const params = (reply.params ?? {}) as Record<string, unknown>;
  const keys = Object.keys(params).filter((key) => Object.hasOwn(questions, key));
  if (keys.length === 0) return reply;
  const answer = (value: unknown) => (isJsonObject(value) ? { params: value } : { payload: value });
  return { answers: Object.fromEntries(keys.map((key) => [key, answer(params[key])])) };
}
