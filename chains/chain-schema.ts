/**
 * The body of `POST /v1/chains` (and the input of `runChain`), as a zod schema; the plan's own rules (references,
 * cycles, depth, the mapping's types) are checked after it (chains/plan.ts, chains/type-check.ts).
 */
import { z } from 'zod';
import { capabilityName, httpUrl } from '../messages/message-schema';
import { anyJson, NOT_BLANK_PATTERN, prose } from '../rules/text';
import { ON_FAILURE } from './chain';

/** Chain ids: no `:` (a step's message id is `<chain_id>:<step_id>`), at most 64 characters. */
export const CHAIN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Step ids: letters, digits, `_` and `-`, at most 32. */
export const STEP_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;
/** The longest `deadline_ms` of a step: 30 days, as a message's deadline. */
export const MAX_STEP_DEADLINE_MS = 30 * 24 * 3600_000;

export const chainId = z
  .string()
  .regex(CHAIN_ID_PATTERN, '1–64 characters: letters, digits and ._- (starting with a letter or digit)');
const stepId = z
  .string()
  .regex(STEP_ID_PATTERN, '1–32 characters: letters, digits, _ and - (starting with a letter or digit)');
/** A JSON Pointer; what it may name (the input, an earlier step's result) is the plan's check (422 `invalid_reference`). */
const pointer = z.string().max(1024);

/**
 * A template: any JSON, whose `{"$ref": pointer}` objects the plan checks (chains/plan.ts: a 422 naming the step, as
 * every rule the OpenAPI document cannot state). A step's `input` becomes its message's `params`: an object.
 */
const template = anyJson;
const inputTemplate = template
  .refine(
    (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
    'an object (the message params), or {"$ref": pointer}',
  )
  .meta({ type: 'object' });

const address = {
  target: z.strictObject({ agent_id: z.string().min(1).max(64), capability: capabilityName }).optional(),
  intent: prose(10_000).optional(),
  input: inputTemplate.optional(),
  payload: template.optional(),
};
const targetOrIntent = (a: { target?: unknown; intent?: string | undefined }) =>
  (a.target === undefined) !== (a.intent === undefined || !new RegExp(NOT_BLANK_PATTERN).test(a.intent));
const targetOrIntentMessage = {
  message: 'name exactly one of target ({agent_id, capability}) and intent',
  path: ['target'],
};
/** The same rule in the OpenAPI document. */
const nonBlankIntent = { required: ['intent'], properties: { intent: { pattern: NOT_BLANK_PATTERN } } };
const targetOrIntentSchema = {
  anyOf: [
    { required: ['target'], not: nonBlankIntent },
    { ...nonBlankIntent, not: { required: ['target'] } },
  ],
};

/** The most values a `when`'s `in` may list. */
export const MAX_WHEN_VALUES = 256;
const WHEN_OPERATORS = ['equals', 'not_equals', 'in'] as const;
/** `when`: a pointer and exactly one operator (`null` is a value: only an absent key is absent). */
const stepCondition = z
  .strictObject({
    $ref: pointer,
    equals: anyJson.optional(),
    not_equals: anyJson.optional(),
    in: z.array(anyJson).min(1).max(MAX_WHEN_VALUES).optional(),
  })
  .refine(
    (when) => WHEN_OPERATORS.filter((op) => when[op] !== undefined).length === 1,
    'name exactly one of equals, not_equals and in',
  )
  .meta({ oneOf: WHEN_OPERATORS.map((op) => ({ required: [op] })) });

export const compensationBody = z
  .strictObject(address)
  .refine(targetOrIntent, targetOrIntentMessage)
  .meta(targetOrIntentSchema);

export const chainStepBody = z
  .strictObject({
    id: stepId,
    ...address,
    after: z.array(stepId).max(256).optional(),
    when: stepCondition.optional(),
    deadline_ms: z.number().int().min(1).max(MAX_STEP_DEADLINE_MS).optional(),
    on_failure: z.enum(ON_FAILURE).optional(),
    compensate: compensationBody.optional(),
  })
  .refine(targetOrIntent, targetOrIntentMessage)
  .meta(targetOrIntentSchema);

export const chainBody = z.strictObject({
  /** Idempotency key chosen by the caller; generated when absent. */
  chain_id: chainId.optional(),
  /** What `$ref`s under /input read. */
  input: anyJson.optional(),
  steps: z.array(chainStepBody).min(1).max(256),
  /** Where to post the chain's final status (signed with CALLER_WEBHOOK_SECRET). */
  reply_to: z.strictObject({ url: httpUrl }).optional(),
  /** The caller's words asking to be told how it went ("tell me the result"): the chain's aggregate gains a summary. */
  summary: z.strictObject({ request: prose(1000) }).optional(),
});
export type ChainBodyInput = z.output<typeof chainBody>;

export const chainIdParams = z.strictObject({ chain_id: chainId });
