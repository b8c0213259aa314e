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
import type { McpDeps, ToolCall } from './context';
import { toolError, toolValue } from './tool-result';

export function withLinks(deps: McpDeps, status: MessageStatus) {
  return { ...status, links: messageLinks(deps.config, status.tenant, status.message_id) };
}

/** The answer for a message that ended (or is still running): its status, or a tool error when it did not succeed. */
export function endedAnswer(deps: McpDeps, status: MessageStatus): CallToolResult {
  const shown = withLinks(deps, status);
  if (status.state === 'processed') return toolValue(shown);
  const reason = status.reason ?? { code: status.state, message: `The message ended ${status.state}` };
  return toolError(reason.code, `Message ${status.message_id} ended ${status.state}: ${reason.message}`, shown);
}

export async function sendAndWait(deps: McpDeps, call: ToolCall, body: SendRequest, waitMs: number): Promise<CallToolResult> {
  const caller = requireScope(call.caller, 'send');
  const result = await acceptMessage(deps, caller, body, newTraceId());
  sendAnswer(result, (status) => withLinks(deps, status), caller); // throws the refusals, with the codes of POST /v1/messages
  if (result.kind !== 'accepted' && result.kind !== 'duplicate') throw new Error(`unexpected send result ${result.kind}`);
  const ended = await waitForEnd(deps, call, result.status, waitMs);
  if (ended) return endedAnswer(deps, ended);
  const latest = (await deps.messages.get(caller.tenant, result.status.message_id).catch(() => undefined)) ?? result.status;
  return toolValue({
    ...withLinks(deps, latest),
    ended: false,
    hint: `Still in flight after ${waitMs} ms: read it later with reach_status {"message_id": "${latest.message_id}"}`,
  });
}

/**
 * Waits up to `waitMs` for the message to end. With a progress callback, the wait is cut in slices of
 * MCP_PROGRESS_INTERVAL_MS, and after each one the message's current state is reported.
 */
async function waitForEnd(deps: McpDeps, call: ToolCall, status: MessageStatus, waitMs: number): Promise<MessageStatus | undefined> {
  const { tenant, message_id } = status;
  const deadline = Date.now() + waitMs;
  for (let reported = 0; ; ) {
    const remaining = Math.max(0, deadline - Date.now());
    const slice = call.progress ? Math.min(remaining, deps.config.MCP_PROGRESS_INTERVAL_MS) : remaining;
    const ended = await deps.messages.waitForEnd(tenant, message_id, slice);
    if (ended) return ended;
    if (remaining <= slice || call.signal.aborted) return undefined;
    if (call.progress) {
      const current = await deps.messages.get(tenant, message_id).catch(() => undefined);
      await call.progress(++reported, `message ${message_id}: ${current?.state ?? 'in flight'}`);
    }
  }
}
