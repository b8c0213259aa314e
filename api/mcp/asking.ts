/**
 * A tool call whose message needs its caller's input: the agent asked a question (the message waits in
 * `input_required`), or the router chose a capability whose required parameters the intent does not give (the
 * message is recorded `rejected`, `input_required`, with the parameters `missing`). Either way the caller is asked
 * with the JSON Schema of what is wanted, as an elicitation, and its answer goes on:
 *
 * - the agent's question (`reply`): the answer is the message's reply, as `POST /v1/messages/:id/reply` — the agent
 *   gets the same message as its next turn — and the call waits again for the message;
 * - the router's (`router`): the message was refused and has ended, so the answer is a new message to the capability
 *   the router chose, with the params it read and the answer merged over them, `parent_message_id` naming the refused
 *   one; its id is made from the refused one's and the params, so the same answer never sends twice.
 *
 * How the caller is asked depends on its revision (send-and-wait.ts): a 2026-07-28 client gets an input_required
 * result whose sealed requestState names the message (input-rounds.ts); a 2025-11-25 session whose client declared
 * `elicitation` gets an `elicitation/create` request in the middle of the call; any other client a tool result
 * saying what is missing and how to answer (reach_reply, or reach_send again with the params).
 */
import { createHash } from 'node:crypto';
import type { MessageStatus } from '../../messages/message';
import { replyBody, type ReplyBody } from '../../messages/message-schema';
import type { SendRequest } from '../../messages/intake';
import type { InputRequest } from '../../protocol/turns';
import { schemaIssues } from '../../router/parameter-check';
import { ApiError } from '../errors';
import { parseInput } from '../validate';
import type { Continuation, McpDeps } from './context';

/** The key of the one input request of a message waiting for its caller (a message asks one question at a time). */
export const REPLY_KEY = 'reply';

/** What the caller is asked, and how its answer goes on. */
export interface Asking {
  continues: Continuation;
  question: InputRequest;
}

/** A free-text answer, for a question that gave no JSON Schema of an object. */
const FREE_TEXT = {
  type: 'object',
  properties: { answer: { type: 'string', description: 'Your answer' } },
  required: ['answer'],
};

/** The question as an elicitation: a form of its JSON Schema (an object one), else a free-text answer. */
export function elicitationOf(question: InputRequest) {
  const schema = question.schema?.type === 'object' ? question.schema : FREE_TEXT;
  return { method: 'elicitation/create' as const, params: { message: question.message, requestedSchema: schema } };
}

/** Whether a 2025-11-25 client can be asked for this schema: that revision's forms hold only strings, numbers and booleans. */
export function isFlatForm(schema: Record<string, unknown>): boolean {
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown }>;
  return Object.values(properties).every((property) =>
    ['string', 'number', 'integer', 'boolean'].includes(property.type as string),
  );
}

/** What the message asks its caller now, if anything. */
export async function askingOf(deps: McpDeps, status: MessageStatus): Promise<Asking | undefined> {
  const { message_id } = status;
  if (status.state === 'input_required') {
    const asked = status.input_required ?? { message: 'The agent needs more input' };
    const continues = { kind: 'reply' as const, message_id, asked: status.turns?.length ?? 0 };
    // Several questions are asked one at a time, each answered under its key.
    const [key, question] = Object.entries(asked.questions ?? {})[0] ?? [];
    if (key === undefined || !question) return { continues, question: asked };
    return {
      continues: { ...continues, question: key },
      question: { ...question, message: `${asked.message} ${question.message}` },
    };
  }
  const reason = status.reason;
  if (status.state !== 'rejected' || reason?.code !== 'input_required' || !status.target.capability) return undefined;
  return {
    continues: { kind: 'router', message_id },
    question: { message: reason.message, schema: await missingSchema(deps, status, reason.missing ?? []) },
  };
}

/** The JSON Schema of the parameters a refused message misses: the capability's own, for those (nested ones whole). */
async function missingSchema(
  deps: McpDeps,
  status: MessageStatus,
  missing: string[],
): Promise<Record<string, unknown>> {
  const { index } = deps.catalogue;
  await index.ensureCurrent(deps.logger);
  const agent = index.agents(status.tenant).find((a) => a.agent._id === status.target.agent_id)?.agent;
  const capability = agent?.capabilities.find((c) => c.name === status.target.capability);
  const parameters = capability?.parameters_json
    ? (JSON.parse(capability.parameters_json) as { properties?: Record<string, unknown> })
    : {};
  // "new_address.province" asks for new_address: replies are merged over the params one level deep.
  const names = [...new Set(missing.map((path) => path.split('.')[0]!))];
  const properties = Object.fromEntries(names.map((name) => [name, parameters.properties?.[name] ?? {}]));
  return { type: 'object', properties, required: names };
}

/** The reply an elicitation result makes to the question `continues` names (one of several: as its answer). */
export function replyTo(continues: Continuation, response: unknown): ReplyBody {
  const reply = replyOf(response);
  return continues.question === undefined ? reply : { answers: { [continues.question]: reply } };
}

/** The reply an elicitation result makes: its accepted content as params, any other action as the payload. */
export function replyOf(response: unknown): ReplyBody {
  const { action, content } = (typeof response === 'object' && response !== null ? response : {}) as {
    action?: unknown;
    content?: unknown;
  };
  const reply =
    action === 'accept' && typeof content === 'object' && content !== null
      ? { params: content }
      : { payload: { action: typeof action === 'string' ? action : 'unknown' } };
  return parseInput(replyBody, reply, 'params');
}

/** The new message an answer to the router's question sends: the refused one's, to its capability, with the params. */
export function continuedSend(body: SendRequest, refused: MessageStatus, reply: ReplyBody): SendRequest {
  if (!reply.params)
    throw new ApiError(
      422,
      'input_required',
      `Message ${refused.message_id} needs parameters the answer did not give (${reply.payload ? JSON.stringify(reply.payload) : 'none'})`,
    );
  const question = refused.reason?.missing ?? [];
  const params = { ...(refused.params ?? {}), ...reply.params };
  const stillMissing = question.map((path) => path.split('.')[0]!).filter((name) => params[name] === undefined);
  if (stillMissing.length > 0)
    throw new ApiError(422, 'input_required', `Still missing: ${stillMissing.join(', ')}`, { missing: stillMissing });
  const id = continuedId(refused.message_id, params);
  return {
    ...body,
    message_id: id,
    target: { agent_id: refused.target.agent_id, capability: refused.target.capability },
    params,
    parent_message_id: refused.message_id,
  };
}

/** The continued message's id: the refused one's and a digest of its params (at most 128 characters, as every id). */
function continuedId(refusedId: string, params: Record<string, unknown>): string {
  const digest = createHash('sha256')
    .update(refusedId)
    .update('\0')
    .update(JSON.stringify(params))
    .digest('hex')
    .slice(0, 16);
  return `${refusedId.slice(0, 100)}.input-${digest}`;
}

/** The params of an answer that do not fit the question's schema (nothing is sent then). */
export function answerIssues(question: InputRequest, reply: ReplyBody): { location: string; message: string }[] {
  return question.schema && reply.params ? schemaIssues(JSON.stringify(question.schema), reply.params) : [];
}

/** What a client that can be asked nothing is told: what is missing, and how to answer. */
export function howToAnswer(asking: Asking): { message_id: string; asks: InputRequest; how: string } {
  const { continues, question } = asking;
  const how =
    continues.kind === 'reply'
      ? `The agent asks: ${question.message} Answer with reach_reply {"message_id": "${continues.message_id}", ${answerShape(continues)}} (the JSON Schema is in "asks"), or POST /v1/messages/${continues.message_id}/reply.`
      : `${question.message} Call reach_send again with these params added (the JSON Schema is in "asks"), or choose the capability with target.`;
  return { message_id: continues.message_id, asks: question, how };
}

/** How reach_reply's arguments answer the question: params, or params under the question's key. */
function answerShape(continues: Continuation): string {
  return continues.question === undefined ? '"params": {…}' : `"answers": {"${continues.question}": {"params": {…}}}`;
}
