/**
 * The body of `POST /v1/messages`, as a zod schema: the api validates requests with it, and the worker's
 * `sendMessage` workflow (Temporal-native callers) validates its input with the very same schema.
 */
import { z } from 'zod';
import { MESSAGE_ID_PATTERN } from '../rules/ids';
import { anyJson, NOT_BLANK_PATTERN, prose } from '../rules/text';
import { questionKey } from '../protocol/receipt';
import { MAX_QUESTIONS } from '../protocol/turns';

export const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

export const capabilityName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'letters, digits and _.- (at most 64), starting with a letter or digit');

export const messageId = z
  .string()
  .regex(MESSAGE_ID_PATTERN, '1–128 characters: letters, digits and ._:- (starting with a letter or digit)');

export const sessionId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, '1–128 characters: letters, digits and ._:-');
/** Parameters for the capability, as its `parameters` schema describes them. */
export const paramsSchema = z.record(z.string().max(128), anyJson);
export const routeTarget = z.strictObject({
  agent_id: z.string().min(1).max(64),
  capability: capabilityName.optional(),
});
export const needsTargetOrIntent = (b: {
  target?: { capability?: string | undefined } | undefined;
  intent?: string | undefined;
}) => Boolean(b.target?.capability) || Boolean(b.intent?.trim());
export const targetOrIntent = {
  message: 'give a target with a capability, or an intent for the router',
  path: ['intent'],
};
/** The same rule in the OpenAPI document. */
export const targetOrIntentSchema = {
  anyOf: [
    { required: ['target'], properties: { target: { required: ['capability'] } } },
    { required: ['intent'], properties: { intent: { pattern: NOT_BLANK_PATTERN } } },
  ],
};

export const sendMessageBody = z
  .strictObject({
    /** Idempotency key chosen by the caller; generated when absent. */
    message_id: messageId.optional(),
    /** Where the message goes. Without `capability` (or without `target`), the router chooses from `intent`. */
    target: routeTarget.optional(),
    /** What the caller wants, in natural language (Chinese or English): routed when no capability is named. */
    intent: prose(10_000).optional(),
    /** Same session → same agent and instance while it stays healthy and matches. */
    session_id: sessionId.optional(),
    params: paramsSchema.optional(),
    payload: anyJson.optional(),
    /** ISO date-time after which the message is no longer delivered (state `expired`); at most 30 days ahead. */
    deadline: z.iso.datetime({ offset: true }).optional(),
    /** The message this one was sent on behalf of (an agent passing work on): links the hops of a trace. */
    parent_message_id: messageId.optional(),
    /** Where to post the final status (signed with CALLER_WEBHOOK_SECRET), retried for about a day. */
    reply_to: z.strictObject({ url: httpUrl }).optional(),
  })
  .refine(needsTargetOrIntent, targetOrIntent)
  .meta({ ...targetOrIntentSchema, examples: [{ intent: 'echo this back', payload: { text: 'hello' } }] });
export type SendMessageBody = z.output<typeof sendMessageBody>;

/** A reply's words: parameters for the capability (merged over the earlier ones), data, or both. */
const replyWords = {
  intent: prose(10_000).optional(),
  params: paramsSchema.optional(),
  payload: anyJson.optional(),
};
const hasWords = (b: { intent?: unknown; params?: unknown; payload?: unknown }) =>
  b.intent !== undefined || b.params !== undefined || b.payload !== undefined;

/** The answer to one of several questions asked at once (protocol/answers.ts). */
const answerBody = z
  .strictObject(replyWords)
  .refine(hasWords, { message: 'give intent, params or payload', path: ['intent'] })
  .meta({ minProperties: 1 });

/**
 * The body of `POST /v1/messages/:id/reply`: the caller's reply to a message waiting for input (state
 * `input_required`): words, parameters for the capability (merged over the earlier ones) or data; at least one. When
 * the agent asked several questions at once: `answers` alone, an answer per question key (some or all of those open).
 */
export const replyBody = z
  .strictObject({
    ...replyWords,
    answers: z
      .record(questionKey, answerBody)
      .refine((answers) => Object.keys(answers).length >= 1 && Object.keys(answers).length <= MAX_QUESTIONS, {
        message: `answer 1 to ${MAX_QUESTIONS} questions`,
      })
      .meta({ minProperties: 1, maxProperties: MAX_QUESTIONS })
      .optional(),
  })
  .refine((b) => hasWords(b) || b.answers !== undefined, {
    message: 'give intent, params, payload or answers',
    path: ['intent'],
  })
  .refine((b) => b.answers === undefined || !hasWords(b), {
    message: 'answers stand alone: give no intent, params or payload beside them',
    path: ['answers'],
  })
  // The same rules in the OpenAPI document.
  .meta({ minProperties: 1, if: { required: ['answers'] }, then: { maxProperties: 1 } });
export type ReplyBody = z.output<typeof replyBody>;
