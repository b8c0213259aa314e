/**
 * What an agent reports about a message: inline in its answer to a delivery, or later in a receipt posted to
 * `POST /v1/callback` (or sent as a WebSocket `receipt` frame), authenticated with the agent's secret.
 */
import { z } from 'zod';
import { MESSAGE_ID_PATTERN } from '../rules/ids';
import { anyJson, label, prose } from '../rules/text';
import { MAX_INPUT_REQUESTS, MAX_QUESTIONS, type InputRequest } from './turns';

/** A failure as the agent reports it; `retryable: true` asks the gateway to deliver the message again later. */
export interface AgentError {
  code?: string;
  message: string;
  retryable?: boolean;
}

/**
 * `misrouted`: the message was not for this capability (the agent did nothing). A message routed by its intent goes
 * to the next capability that clears the router's thresholds, or ends `failed` `no_route`; the report counts towards
 * a lesson (docs/routing.md). A message sent to a named capability ends `failed` `misrouted`.
 *
 * `input_required`: the agent needs more from the caller (`input`: a question, optionally the JSON Schema of the data
 * it wants; or several named questions at once in `input.questions`). The message waits in state `input_required`
 * until the caller has answered; the agent then gets it again as a follow-up delivery (protocol/turns.ts,
 * protocol/answers.ts).
 */
export const RECEIPT_STATUSES = ['processed', 'failed', 'misrouted', 'input_required'] as const;

/** The key of one of several questions asked at once: the caller answers under it. */
export const questionKey = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'letters, digits and _.- (at most 64), starting with a letter or digit');

const question = z.strictObject({
  message: prose(4000).min(1),
  schema: z.record(z.string(), anyJson).optional(),
});

/** What the agent asks the caller for: one question (`message`, `schema?`), or several by key in `questions`. */
export const inputRequest = question
  .extend({
    /** Several questions at once (1 to MAX_QUESTIONS); `message` then says what they are for, and `schema` is absent. */
    questions: z
      .record(questionKey, question)
      .refine((questions) => Object.keys(questions).length >= 1 && Object.keys(questions).length <= MAX_QUESTIONS, {
        message: `ask 1 to ${MAX_QUESTIONS} questions`,
      })
      .meta({ minProperties: 1, maxProperties: MAX_QUESTIONS })
      .optional(),
  })
  .refine((input) => input.questions === undefined || input.schema === undefined, {
    message: 'with questions, each question has its own schema: give none beside them',
    path: ['schema'],
  })
  // The same rule in the OpenAPI document.
  .meta({ not: { required: ['schema', 'questions'] } });

export const callbackBody = z
  .strictObject({
    message_id: z
      .string()
      .regex(MESSAGE_ID_PATTERN, '1–128 characters: letters, digits and ._:- (starting with a letter or digit)'),
    status: z.enum(RECEIPT_STATUSES),
    /** Which delivery of the message this reports on: 1 (the default) for the first, n for the n-th turn's follow-up. */
    turn: z
      .number()
      .int()
      .min(1)
      .max(MAX_INPUT_REQUESTS + 1)
      .optional(),
    result: anyJson.optional(),
    error: z
      .strictObject({ code: label(128).optional(), message: prose(4000), retryable: z.boolean().optional() })
      .optional(),
    input: inputRequest.optional(),
  })
  .refine((body) => body.status !== 'input_required' || body.input !== undefined, {
    message: 'an input_required receipt says what it needs in `input`',
    path: ['input'],
  })
  // The same rule in the OpenAPI document.
  .meta({
    if: { required: ['status'], properties: { status: { const: 'input_required' } } },
    then: { required: ['input'] },
  });
export type CallbackBody = z.output<typeof callbackBody>;

/**
 * The outcome of work an agent did, with or without the message id: a receipt, or the answer to a delivery.
 * (`misrouted` is a receipt only: it says no work was done.)
 */
export type AgentOutcome = Omit<CallbackBody, 'message_id' | 'status' | 'input' | 'turn'> &
  ({ status: 'processed' | 'failed'; input?: undefined } | { status: 'input_required'; input: InputRequest });
