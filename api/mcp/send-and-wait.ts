/**
 * `reach_send` and the capability tools: a message through the api's own intake (acceptMessage: size limit, ACL,
 * routing, idempotency by message id, metrics), then a bounded wait for its end, reporting progress meanwhile.
 * Ended `processed` → its status; ended otherwise → a tool error with the reason's code and the status; still in
 * flight when the wait runs out → its id and state, to poll with `reach_status`.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SendRequest } from '../../messages/intake';
import type { MessageStatus } from '../../messages/message';
import type { ReplyBody } from '../../messages/message-schema';
import { newTraceId } from '../../rules/ids';
import { requireScope } from '../caller-auth';
import { acceptMessage, messageLinks, sendAnswer } from '../routes/messages';
import type { Continuation, McpDeps, McpRound, ToolCall } from './context';
import {
  askingOf,
  continuedSend,
  elicitationOf,
  howToAnswer,
  isFlatForm,
  REPLY_KEY,
  replyTo,
  type Asking,
} from './asking';
import { asInputRequired, asToolResult, type AgentInputRequired } from './mcp-results';
import { canPlay, MAX_SESSION_ROUNDS, playRound } from './session-rounds';
import { toolError, toolValue } from './tool-result';

export function withLinks(deps: McpDeps, status: MessageStatus) {
  return { ...status, links: messageLinks(deps.config, status.tenant, status.message_id) };
}

/**
 * The answer for a message that ended (or is still running): its status, or a tool error when it did not succeed.
 * `passthrough`: a processed result that is an MCP tool result is the answer itself (mcp-results.ts).
 */
export function endedAnswer(deps: McpDeps, status: MessageStatus, passthrough = false, round?: McpRound): ToolAnswer {
  const shown = withLinks(deps, status);
  const processed = passthrough && status.state === 'processed';
  const asking = processed && round ? asInputRequired(status.result) : undefined;
  if (asking) return asking;
  const own = processed ? asToolResult(status.result, status.message_id) : undefined;
  if (own) return own;
  if (status.state === 'processed') return toolValue(shown);
  const reason = status.reason ?? { code: 'failed' as const, message: `The message ended ${status.state}` };
  return toolError(reason.code, `Message ${status.message_id} ended ${status.state}: ${reason.message}`, shown);
}

/**
 * Sends the message through the api's intake and waits up to `waitMs` for its end: its status, and whether it ended.
 * `asking`: the wait also ends when the message waits for its caller's input, and the router's refusal for missing
 * parameters is returned as the recorded message (asking.ts) rather than thrown.
 */
export async function sendAndAwait(
  deps: McpDeps,
  call: ToolCall,
  body: SendRequest,
  waitMs: number,
  { asking = false } = {},
): Promise<{ status: MessageStatus; ended: boolean }> {
  const caller = requireScope(call.caller, 'send');
  const result = await acceptMessage(deps, caller, body, newTraceId());
  if (asking && result.kind === 'rejected' && result.status.reason?.code === 'input_required')
    return { status: result.status, ended: true };
  sendAnswer(result, (status) => withLinks(deps, status), caller); // throws the refusals, with the codes of POST /v1/messages
  if (result.kind !== 'accepted' && result.kind !== 'duplicate')
    throw new Error(`unexpected send result ${result.kind}`);
  const { message_id } = result.status;
  await call.log?.('info', `message ${message_id}: ${result.kind === 'duplicate' ? 'already sent' : 'accepted'}`);
  return awaitMessage(deps, call, result.status, waitMs, asking);
}

/** Waits up to `waitMs` for the message to end (or, `asking`, to wait for its caller): its status, and whether it did. */
async function awaitMessage(
  deps: McpDeps,
  call: ToolCall,
  status: MessageStatus,
  waitMs: number,
  asking: boolean,
): Promise<{ status: MessageStatus; ended: boolean }> {
  const { tenant, message_id } = status;
  const ended = await waitForEnd(deps, call, status, waitMs, asking);
  if (ended) {
    await call.log?.('info', `message ${message_id}: ${ended.state}`);
    return { status: ended, ended: true };
  }
  const latest = (await deps.messages.get(tenant, message_id).catch(() => undefined)) ?? status;
  return { status: latest, ended: false };
}

/** What a tool call answers: a tool result, or (2026-07-28) an input_required result, the agent's or the gateway's. */
export type ToolAnswer = CallToolResult | AgentInputRequired;

export async function sendAndWait(
  deps: McpDeps,
  call: ToolCall,
  body: SendRequest,
  waitMs: number,
  { passthrough = false, rounds = 0 } = {},
): Promise<ToolAnswer> {
  const continues = call.round?.continues;
  if (continues)
    return continueMessage(deps, call, body, continues, call.round?.inputResponses?.[REPLY_KEY], {
      waitMs,
      passthrough,
    });
  const { status, ended } = await sendAndAwait(deps, call, body, waitMs, { asking: true });
  return answerOf(deps, call, body, status, ended, { waitMs, passthrough, rounds });
}

export interface Waiting {
  waitMs: number;
  passthrough: boolean;
  /** Rounds of an agent's input_required result played for a 2025-11-25 session so far (session-rounds.ts). */
  rounds?: number;
}

/** The answer once the wait is over: the caller asked when the message needs its input, else the message as it is. */
async function answerOf(
  deps: McpDeps,
  call: ToolCall,
  body: SendRequest,
  status: MessageStatus,
  ended: boolean,
  waiting: Waiting,
): Promise<ToolAnswer> {
  const asking = await askingOf(deps, status);
  if (asking) return askCaller(deps, call, body, asking, waiting);
  const round = ended && waiting.passthrough ? await sessionRound(call, status, waiting) : undefined;
  if (round) {
    const { message_id: _, ...rest } = body;
    return sendAndWait(deps, call, { ...rest, payload: round }, waiting.waitMs, {
      passthrough: true,
      rounds: (waiting.rounds ?? 0) + 1,
    });
  }
  if (ended) return endedAnswer(deps, status, waiting.passthrough, call.round);
  return toolValue({
    ...withLinks(deps, status),
    ended: false,
    hint: `Still in flight after ${waiting.waitMs} ms: read it later with reach_status {"message_id": "${status.message_id}"}`,
  });
}

/** For a 2025-11-25 session, an agent's input_required result played as requests to its client: the next round's payload. */
async function sessionRound(
  call: ToolCall,
  status: MessageStatus,
  waiting: Waiting,
): Promise<{ mcp: Record<string, unknown> } | undefined> {
  const agentAsks = call.session && status.state === 'processed' ? asInputRequired(status.result) : undefined;
  if (!agentAsks || !canPlay(call.session!, agentAsks) || (waiting.rounds ?? 0) >= MAX_SESSION_ROUNDS) return undefined;
  await call.log?.(
    'info',
    `message ${status.message_id}: the agent asks the client (${Object.keys(agentAsks.inputRequests ?? {}).join(', ')})`,
  );
  return playRound(call.session!, agentAsks);
}

/** Asks the caller as its revision can (asking.ts): an input_required result, an elicitation, or a result saying how. */
async function askCaller(
  deps: McpDeps,
  call: ToolCall,
  body: SendRequest,
  asking: Asking,
  waiting: Waiting,
): Promise<ToolAnswer> {
  const inputRequest = elicitationOf(asking.question);
  // A 2026-07-28 client is asked only for what it declared it can give (the SDK refuses anything else: -32021).
  if (call.round?.clientCapabilities.elicitation)
    return { resultType: 'input_required', inputRequests: { [REPLY_KEY]: inputRequest }, continues: asking.continues };
  if (call.elicit && isFlatForm(inputRequest.params.requestedSchema))
    return continueMessage(deps, call, body, asking.continues, await call.elicit(inputRequest.params), waiting);
  const how = howToAnswer(asking);
  if (asking.continues.kind === 'router') return toolError('input_required', how.how, how);
  const status = await deps.messages.get(call.caller.tenant, asking.continues.message_id);
  return toolValue({ ...(status ? withLinks(deps, status) : {}), ended: false, ...how });
}

/** The caller's answer (an elicitation result) continues the message: its reply, or a new message after the router's refusal. */
async function continueMessage(
  deps: McpDeps,
  call: ToolCall,
  body: SendRequest,
  continues: Continuation,
  response: unknown,
  waiting: Waiting,
): Promise<ToolAnswer> {
  const { tenant } = requireScope(call.caller, 'send');
  // No answer under our key (a retry without it): the question is asked again.
  const reply = response === undefined ? undefined : replyTo(continues, response);
  const status = await deps.messages.get(tenant, continues.message_id);
  if (!status) return toolError('message_not_found', `No message ${continues.message_id}`);
  // What follows is a call of its own: a question it meets is asked anew.
  const onward: ToolCall = {
    ...call,
    ...(call.round ? { round: { clientCapabilities: call.round.clientCapabilities } } : {}),
  };
  if (continues.kind === 'router') {
    return reply
      ? sendAndWait(deps, onward, continuedSend(body, status, reply), waiting.waitMs, {
          passthrough: waiting.passthrough,
        })
      : answerOf(deps, onward, body, status, true, waiting);
  }
  // An answer to an earlier question (a repeated retry, the message asked again since) is not taken for the new one.
  const open =
    continues.question === undefined || Object.hasOwn(status.input_required?.questions ?? {}, continues.question);
  const answers =
    reply !== undefined && status.state === 'input_required' && (status.turns?.length ?? 0) === continues.asked && open;
  return replyAndWait(deps, onward, body, status, answers ? reply : undefined, waiting);
}

/**
 * Gives the message waiting for its caller `reply` (reach_reply, or an answer to its question), and waits for what it
 * comes to, asking the caller again when the agent asks again. Without a reply, only waits.
 */
export async function replyAndWait(
  deps: McpDeps,
  call: ToolCall,
  body: SendRequest,
  status: MessageStatus,
  reply: ReplyBody | undefined,
  waiting: Waiting,
): Promise<ToolAnswer> {
  if (reply) {
    const outcome = await deps.messages.reply(status.tenant, status.message_id, reply, status.input_required);
    if (outcome.kind === 'invalid')
      return toolError('invalid_request', "The answer does not fit the schema of the agent's question", outcome.issues);
    if (outcome.kind === 'unknown_message') return toolError('message_not_found', `No message ${status.message_id}`);
    await call.log?.(
      'info',
      `message ${status.message_id}: ${outcome.kind === 'replied' ? 'replied' : `not waiting for input (${outcome.state})`}`,
    );
  }
  const next = await awaitMessage(deps, call, status, waiting.waitMs, true);
  return answerOf(deps, call, body, next.status, next.ended, waiting);
}

/**
 * Waits up to `waitMs` for the message to end. With a progress or log callback, the wait is cut in slices of
 * MCP_PROGRESS_INTERVAL_MS, and after each one the message's current state is reported (logged when it changed).
 */
async function waitForEnd(
  deps: McpDeps,
  call: ToolCall,
  status: MessageStatus,
  waitMs: number,
  orInput: boolean,
): Promise<MessageStatus | undefined> {
  const { tenant, message_id } = status;
  const deadline = Date.now() + waitMs;
  const watching = call.progress !== undefined || call.log !== undefined;
  let logged: string = status.state;
  for (let reported = 0; ;) {
    const remaining = Math.max(0, deadline - Date.now());
    const slice = watching ? Math.min(remaining, deps.config.MCP_PROGRESS_INTERVAL_MS) : remaining;
    const ended = await (orInput
      ? deps.messages.waitForAnswer(tenant, message_id, slice)
      : deps.messages.waitForEnd(tenant, message_id, slice));
    if (ended) return ended;
    if (remaining <= slice || call.signal.aborted) return undefined;
    if (!watching) continue;
    const state = (await deps.messages.get(tenant, message_id).catch(() => undefined))?.state ?? 'in flight';
    await call.progress?.(++reported, `message ${message_id}: ${state}`);
    if (state !== logged) await call.log?.('info', `message ${message_id}: ${state}`);
    logged = state;
  }
}
