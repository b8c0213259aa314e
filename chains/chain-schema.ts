/**
 * The body of `POST /v1/chains` (and the input of `runChain`), as a zod schema; the plan's own rules (references,
 * cycles, depth, the mapping's types) are checked after it (chains/plan.ts, chains/type-check.ts).
 */
import { z } from 'zod';
import { capabilityName, httpUrl } from '../messages/message-schema';
import { anyJson, NOT_BLANK_PATTERN, prose } from '../rules/text';
import { ON_FAILURE } from './chain';
import { pointerTokens, refOf } from './pointer';

/** Chain ids: no `:` (a step's message id is `<chain_id>:<step_id>`), at most 64 characters. */
export const CHAIN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Step ids: letters, digits, `_` and `-`, at most 32. */
export const STEP_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;
/** The longest `deadline_ms` of a step: 30 days, as a message's deadline. */
export const MAX_STEP_DEADLINE_MS = 30 * 24 * 3600_000;

export const chainId = z.string().regex(CHAIN_ID_PATTERN, '1–64 characters: letters, digits and ._- (starting with a letter or digit)');
const stepId = z.string().regex(STEP_ID_PATTERN, '1–32 characters: letters, digits, _ and - (starting with a letter or digit)');
const pointer = z.string().max(1024).refine((p) => pointerTokens(p) !== undefined, 'a JSON Pointer (RFC 6901): empty, or / followed by tokens with ~0 and ~1 escapes');

/** A template whose `$ref`s are all pointers. */
const template = anyJson.refine(function validRefs(value: unknown): boolean {
  const ref = refOf(value);
  if (ref !== undefined) return pointerTokens(ref) !== undefined;
  if (Array.isArray(value)) return value.every(validRefs);
  if (value !== null && typeof value === 'object') return Object.values(value).every(validRefs);
  return true;
}, 'every {"$ref": …} must hold a JSON Pointer');
/** A step's `input` becomes its message's `params`: an object, or one `$ref` to an object. */
const inputTemplate = template.refine((v) => v !== null && typeof v === 'object' && !Array.isArray(v), 'an object (the message params), or {"$ref": pointer}');

const address = {
  target: z.strictObject({ agent_id: z.string().min(1).max(64), capability: capabilityName }).optional(),
  intent: prose(10_000).optional(),
  input: inputTemplate.optional(),
  payload: template.optional(),
};
const targetOrIntent = (a: { target?: unknown; intent?: string | undefined }) => (a.target === undefined) !== (a.intent === undefined || !new RegExp(NOT_BLANK_PATTERN).test(a.intent));
const targetOrIntentMessage = { message: 'name exactly one of target ({agent_id, capability}) and intent', path: ['target'] };

export const compensationBody = z.strictObject(address).refine(targetOrIntent, targetOrIntentMessage);

export const chainStepBody = z
  .strictObject({
    id: stepId,
    ...address,
    after: z.array(stepId).max(256).optional(),
    when: z.strictObject({ $ref: pointer, equals: anyJson }).optional(),
    deadline_ms: z.number().int().min(1).max(MAX_STEP_DEADLINE_MS).optional(),
    on_failure: z.enum(ON_FAILURE).optional(),
    compensate: compensationBody.optional(),
  })
  .refine(targetOrIntent, targetOrIntentMessage);

export const chainBody = z.strictObject({
  /** Idempotency key chosen by the caller; generated when absent. */
  chain_id: chainId.optional(),
  /** What `$ref`s under /input read. */
  input: anyJson.optional(),
  steps: z.array(chainStepBody).min(1).max(256),
  /** Where to post the chain's final status (signed with CALLER_WEBHOOK_SECRET). */
  reply_to: z.strictObject({ url: httpUrl }).optional(),
});
export type ChainBodyInput = z.output<typeof chainBody>;

export const chainIdParams = z.strictObject({ chain_id: chainId });
