/**
 * The Tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`, SEP-2663), written here because
 * `@modelcontextprotocol/server` 2.4.0 implements only the earlier experimental tasks (`{task: {…}}` results,
 * `tasks/result`, `tasks/list`), which SEP-2663 replaced. A task is a message: a capability tool called by a client
 * that declared the extension starts the message and answers at once with a CreateTaskResult whose `taskId` is the
 * message id; `tasks/get` reads the message's status (its Temporal workflow: durable, readable from any replica and
 * after a restart) and `tasks/cancel` cancels it, as `POST /v1/messages/:id/cancel` does. The removed methods
 * (`tasks/result`, `tasks/list`) are the SDK's -32601.
 *
 * Message states as task statuses: in flight → `working`; waiting for the caller (`input_required`, the agent's
 * question) → `input_required` with one elicitation in `inputRequests` (key REPLY_KEY: the question, its JSON Schema
 * as the requested schema; an agent that asked several questions at once: one per open question, under its key),
 * which `tasks/update` answers: an accepted elicitation's content is the message's reply
 * (its params, as `POST /v1/messages/:id/reply`), another action is replied as `payload: {action}`; `processed` →
 * `completed` with the tool result inlined
 * (the agent's own MCP result, an `isError` one included); `cancelled` → `cancelled`; any other end (failed,
 * rejected, expired: the gateway got no result) → `failed` with a JSON-RPC error inlined.
 */
import { ProtocolError, ProtocolErrorCode, type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { isTerminal, type MessageStatus } from '../../messages/message';
import { hasScope } from '../../rules/api-key';
import type { ReplyBody } from '../../messages/message-schema';
import { messageIdParams } from '../schemas';
import { ApiError, errorBody } from '../errors';
import { parseInput } from '../validate';
import { elicitationOf, REPLY_KEY, replyOf } from './asking';
import type { McpDeps, ToolCall } from './context';
import { endedAnswer, type ToolAnswer } from './send-and-wait';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** JSON-RPC code of a missing required client capability (SEP-2575). */
const MISSING_CLIENT_CAPABILITY = -32021;

export type TaskSupport = 'forbidden' | 'optional' | 'required';
/** A capability's tag choosing its task support; without it a capability tool's is `optional`. */
const TASK_TAG = /^mcp:task=(forbidden|optional|required)$/;

export function taskSupportOf(tags: readonly string[]): TaskSupport {
  for (const tag of tags) {
    const match = TASK_TAG.exec(tag);
    if (match) return match[1] as TaskSupport;
  }
  return 'optional';
}

/** Whether the request's client declared the extension (in its `_meta` capabilities). */
export function tasksDeclared(ctx: ServerContext): boolean {
  const envelope = (ctx.mcpReq.envelope ?? {}) as Record<string, { extensions?: Record<string, unknown> } | undefined>;
  const extensions = envelope['io.modelcontextprotocol/clientCapabilities']?.extensions;
  return typeof extensions === 'object' && extensions !== null && TASKS_EXTENSION in extensions;
}

export function missingTasksCapability(why: string): ProtocolError {
  return new ProtocolError(MISSING_CLIENT_CAPABILITY, `${why}: declare the ${TASKS_EXTENSION} extension`, {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}

type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

function statusOf(message: MessageStatus): TaskStatus {
  if (message.state === 'input_required') return 'input_required';
  if (!isTerminal(message.state)) return 'working';
  if (message.state === 'processed') return 'completed';
  if (message.state === 'cancelled') return 'cancelled';
  return 'failed';
}

/** The task's fields common to CreateTaskResult and tasks/get. */
function taskOf(deps: McpDeps, message: MessageStatus) {
  return {
    taskId: message.message_id,
    status: statusOf(message),
    statusMessage: `message ${message.message_id}: ${message.state}`,
    createdAt: message.accepted_at,
    lastUpdatedAt: message.updated_at,
    // A message's status stays readable while it runs and for the idempotency window after it ends.
    ttlMs: deps.config.IDEMPOTENCY_WINDOW_MS,
    pollIntervalMs: deps.config.MCP_PROGRESS_INTERVAL_MS,
  };
}

export function createTaskResult(deps: McpDeps, message: MessageStatus) {
  return { resultType: 'task', ...taskOf(deps, message) };
}

/** The agent's question as the task's one input request; several questions, each under its key (those still open). */
function inputRequestsOf(message: MessageStatus) {
  const asked = message.input_required ?? { message: 'The agent needs more input' };
  if (!asked.questions) return { [REPLY_KEY]: elicitationOf(asked) };
  return Object.fromEntries(Object.entries(asked.questions).map(([key, question]) => [key, elicitationOf(question)]));
}

/** `tasks/get`'s DetailedTask: the result or the error inlined once the message ended. */
function detailedTask(deps: McpDeps, message: MessageStatus) {
  const task = taskOf(deps, message);
  if (task.status === 'completed')
    return { resultType: 'complete', ...task, result: endedAnswer(deps, message, true) as ToolAnswer };
  if (task.status === 'input_required')
    return { resultType: 'complete', ...task, inputRequests: inputRequestsOf(message) };
  if (task.status !== 'failed') return { resultType: 'complete', ...task };
  const reason = message.reason ?? { code: 'failed' as const, message: `The message ended ${message.state}` };
  return {
    resultType: 'complete',
    ...task,
    error: {
      code: ProtocolErrorCode.InternalError,
      message: `Message ${message.message_id} ended ${message.state}: ${reason.message}`,
      data: errorBody(reason.code, reason.message),
    },
  };
}

export const taskParams = z.looseObject({
  taskId: z.string(),
  inputResponses: z.record(z.string(), z.unknown()).optional(),
});

/** The message a task id names, in the caller's tenant; -32602 when there is none. */
async function messageOf(deps: McpDeps, call: Pick<ToolCall, 'caller'>, taskId: string): Promise<MessageStatus> {
  if (!hasScope(call.caller, 'read') && !hasScope(call.caller, 'send')) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidRequest,
      'This API key has neither the "read" nor the "send" scope',
      errorBody('insufficient_scope', 'Tasks need the "read" or "send" scope'),
    );
  }
  let message: MessageStatus | undefined;
  try {
    const { message_id } = parseInput(messageIdParams, { message_id: taskId }, 'params');
    message = await deps.messages.get(call.caller.tenant, message_id);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
  }
  if (!message)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Unknown task: ${taskId}`,
      errorBody('message_not_found', `No message ${taskId}`),
    );
  return message;
}

export async function getTask(deps: McpDeps, call: Pick<ToolCall, 'caller'>, taskId: string) {
  return detailedTask(deps, await messageOf(deps, call, taskId));
}

/** Cancels the task's message: an empty acknowledgement, also when it has ended already (the next tasks/get tells). */
export async function cancelTask(deps: McpDeps, call: Pick<ToolCall, 'caller'>, taskId: string) {
  const message = await messageOf(deps, call, taskId);
  if (!isTerminal(message.state)) {
    const outcome = await deps.messages.cancel(
      call.caller.tenant,
      message.message_id,
      'cancelled by the MCP client (tasks/cancel)',
    );
    if (outcome.kind === 'unknown_message')
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task: ${taskId}`);
  }
  return { resultType: 'complete' };
}

/** The reply an elicitation result makes (asking.ts), a bad one as -32602. */
function taskReplyOf(response: unknown): ReplyBody {
  try {
    return replyOf(response);
  } catch (error) {
    if (error instanceof ApiError)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        error.message,
        errorBody(error.code, error.message, error.details),
      );
    throw error;
  }
}

/**
 * The reply the responses make to the message's question (the response under REPLY_KEY), or to its several questions
 * (the responses under the keys of those still open: a partial answer leaves the task input_required with the rest).
 */
function taskReplyFrom(message: MessageStatus, inputResponses: Record<string, unknown>): ReplyBody | undefined {
  const questions = message.input_required?.questions;
  if (!questions) return inputResponses[REPLY_KEY] === undefined ? undefined : taskReplyOf(inputResponses[REPLY_KEY]);
  const keys = Object.keys(inputResponses).filter((key) => Object.hasOwn(questions, key));
  if (keys.length === 0) return undefined;
  return { answers: Object.fromEntries(keys.map((key) => [key, taskReplyOf(inputResponses[key])])) };
}

/**
 * Gives a task waiting for its caller the answers to its questions and acknowledges. Responses to a task that does
 * not wait, or under keys it does not wait for, are unsolicited and ignored, as the revision asks of unrecognised
 * information.
 */
export async function updateTask(
  deps: McpDeps,
  call: Pick<ToolCall, 'caller'>,
  taskId: string,
  inputResponses: Record<string, unknown> | undefined,
) {
  const message = await messageOf(deps, call, taskId);
  const reply = message.state === 'input_required' ? taskReplyFrom(message, inputResponses ?? {}) : undefined;
  if (reply) {
    const outcome = await deps.messages.reply(call.caller.tenant, message.message_id, reply, message.input_required);
    if (outcome.kind === 'unknown_message')
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task: ${taskId}`);
    if (outcome.kind === 'invalid') {
      const message = "The response does not fit the schema of the task's question";
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        message,
        errorBody('invalid_request', message, outcome.issues),
      );
    }
  }
  return { resultType: 'complete' };
}
