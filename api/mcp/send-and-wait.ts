/**
 * `reach_send` and the capability tools: a message through the api's own intake (acceptMessage: size limit, ACL,
 * routing, idempotency by message id, metrics), then a bounded wait for its end, reporting progress meanwhile.
 * Ended `processed` → its status; ended otherwise → a tool error with the reason's code and the status; still in
 * flight when the wait runs out → its id and state, to poll with `reach_status`.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SendRequest } from '../../messages/intake';
import type { MessageStatus } from '../../messages/message';
import { newTraceId } from '../../rules/ids';
import { requireScope } from '../caller-auth';
import { acceptMessage, messageLinks, sendAnswer } from '../routes/messages';
import type { McpDeps, McpRound, ToolCall } from './context';
import { asInputRequired, asToolResult, type AgentInputRequired } from './mcp-results';
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
  const reason = status.reason ?? { code: status.state, message: `The message ended ${status.state}` };
  return toolError(reason.code, `Message ${status.message_id} ended ${status.state}: ${reason.message}`, shown);
}

/** Sends the message through the api's intake and waits up to `waitMs` for its end: its status, and whether it ended. */
export async function sendAndAwait(deps: McpDeps, call: ToolCall, body: SendRequest, waitMs: number): Promise<{ status: MessageStatus; ended: boolean }> {
  const caller = requireScope(call.caller, 'send');
  const result = await acceptMessage(deps, caller, body, newTraceId());
  sendAnswer(result, (status) => withLinks(deps, status), caller); // throws the refusals, with the codes of POST /v1/messages
  if (result.kind !== 'accepted' && result.kind !== 'duplicate') throw new Error(`unexpected send result ${result.kind}`);
  const { message_id } = result.status;
  await call.log?.('info', `message ${message_id}: ${result.kind === 'duplicate' ? 'already sent' : 'accepted'}`);
  const ended = await waitForEnd(deps, call, result.status, waitMs);
  if (ended) {
    await call.log?.('info', `message ${message_id}: ended ${ended.state}`);
    return { status: ended, ended: true };
  }
  const latest = (await deps.messages.get(caller.tenant, message_id).catch(() => undefined)) ?? result.status;
  return { status: latest, ended: false };
}

/** What a tool call answers: a tool result, or (2026-07-28) an agent's input_required result. */
export type ToolAnswer = CallToolResult | AgentInputRequired;

export async function sendAndWait(deps: McpDeps, call: ToolCall, body: SendRequest, waitMs: number, { passthrough = false } = {}): Promise<ToolAnswer> {
  const { status: latest, ended } = await sendAndAwait(deps, call, body, waitMs);
  if (ended) return endedAnswer(deps, latest, passthrough, call.round);
  return toolValue({
    ...withLinks(deps, latest),
    ended: false,
    hint: `Still in flight after ${waitMs} ms: read it later with reach_status {"message_id": "${latest.message_id}"}`,
  });
}

/**
 * Waits up to `waitMs` for the message to end. With a progress or log callback, the wait is cut in slices of
 * MCP_PROGRESS_INTERVAL_MS, and after each one the message's current state is reported (logged when it changed).
 */
async function waitForEnd(deps: McpDeps, call: ToolCall, status: MessageStatus, waitMs: number): Promise<MessageStatus | undefined> {
  const { tenant, message_id } = status;
  const deadline = Date.now() + waitMs;
  const watching = call.progress !== undefined || call.log !== undefined;
  let logged: string = status.state;
  for (let reported = 0; ; ) {
    const remaining = Math.max(0, deadline - Date.now());
    const slice = watching ? Math.min(remaining, deps.config.MCP_PROGRESS_INTERVAL_MS) : remaining;
    const ended = await deps.messages.waitForEnd(tenant, message_id, slice);
    if (ended) return ended;
    if (remaining <= slice || call.signal.aborted) return undefined;
    if (!watching) continue;
    const state = (await deps.messages.get(tenant, message_id).catch(() => undefined))?.state ?? 'in flight';
    await call.progress?.(++reported, `message ${message_id}: ${state}`);
    if (state !== logged) await call.log?.('info', `message ${message_id}: ${state}`);
    logged = state;
  }
}
