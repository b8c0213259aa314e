/**
 * `reach_reply`: the MCP twin of `POST /v1/messages/:id/reply`, for clients that cannot be asked in the middle of a
 * call (asking.ts): the caller's answer to the question of a message waiting for input, delivered to its agent as the
 * next turn of the same message; then waits for what the message comes to, as `reach_send` does.
 */
import { z } from 'zod';
import { replyBody } from '../../messages/message-schema';
import { requireScope } from '../caller-auth';
import { messageIdParams } from '../schemas';
import { parseInput } from '../validate';
import { inputSchemaOf, type ReachTool } from './reach-tool';
import { replyAndWait, sendAndWait } from './send-and-wait';
import { toolError } from './tool-result';

function replyArguments(maxWaitMs: number) {
  return z.strictObject({
    ...messageIdParams.shape,
    intent: z.string().optional().describe('Your answer in words'),
    params: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("The parameters the agent asked for (its question's JSON Schema), merged over the earlier ones"),
    payload: z.unknown().optional().describe('Any JSON for the agent'),
    answers: z
      .record(z.string(), z.record(z.string(), z.unknown()))
      .optional()
      .describe(
        'When the agent asked several questions (`input_required.questions`): an answer ({params, intent, payload}) ' +
          'per question key, for some or all of those still open; alone, without intent, params or payload',
      ),
    wait_ms: z
      .number()
      .int()
      .min(0)
      .max(maxWaitMs)
      .optional()
      .describe(`How long to wait for the message to end, in ms (at most and by default ${maxWaitMs})`),
  });
}

export function replyTool(maxWaitMs: number): ReachTool {
  const args = replyArguments(maxWaitMs);
  return {
    scope: 'send',
    definition: {
      name: 'reach_reply',
      title: 'Answer a message that waits for input',
      description:
        'A message in state input_required waits for its caller: its agent asked a question (`input_required.message`, ' +
        'with the JSON Schema of what it wants in `input_required.schema`). Answer with `params` (checked against that ' +
        'schema), `intent` (words) and/or `payload`: the agent gets the same message again with your answer. Waits up to ' +
        '`wait_ms` for what the message comes to, as reach_send does.',
      inputSchema: inputSchemaOf(args),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    async run(deps, call, input) {
      const { tenant } = requireScope(call.caller, 'send');
      const { message_id, wait_ms, ...answer } = parseInput(args, input, 'arguments');
      const waiting = { waitMs: wait_ms ?? maxWaitMs, passthrough: false };
      // A 2026-07-28 retry answering the question this call met (asking.ts).
      if (call.round?.continues) return sendAndWait(deps, call, { target: { agent_id: '' } }, waiting.waitMs);
      const reply = parseInput(replyBody, answer, 'arguments');
      const status = await deps.messages.get(tenant, message_id);
      if (!status) return toolError('message_not_found', `No message ${message_id}`);
      if (status.state !== 'input_required')
        return toolError('not_waiting_for_input', `Message ${message_id} is ${status.state}, not waiting for input`, {
          state: status.state,
        });
      return replyAndWait(deps, call, { target: status.target }, status, reply, waiting);
    },
  };
}
