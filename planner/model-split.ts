/**
 * A split proposed by a language model (the local judge's model, or another that generates JSON under a grammar):
 * the request's sub-requests, how each follows the one before and the condition it runs under, generated under the
 * JSON-Schema grammar below. The proposal is checked before it is used — each sub-request must be the request's own
 * words (no step the request does not ask for), an "otherwise" needs a condition before it — and then goes through
 * the same routing, connecting and chain checks as the rules' split (planner/plan-chain.ts).
 */
import type { SubRequest } from './split';

/** What the planner asks of a model: one JSON value under `schema`'s grammar. */
export interface SplitModel {
  propose(
    request: { system: string; user: string; schema: Record<string, unknown>; maxTokens: number },
    signal?: AbortSignal,
  ): Promise<unknown>;
}

export const MAX_MODEL_STEPS = 6;
const MAX_ANSWER_TOKENS = 400;

export const SPLIT_SCHEMA = {
  type: 'object',
  properties: {
    steps: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_MODEL_STEPS,
      items: {
        type: 'object',
        properties: {
          request: { type: 'string', maxLength: 200 },
          beside_previous: { type: 'boolean' },
          only_if: { type: ['string', 'null'], maxLength: 100 },
          otherwise: { type: 'boolean' },
        },
        required: ['request', 'beside_previous', 'only_if', 'otherwise'],
        additionalProperties: false,
      },
    },
  },
  required: ['steps'],
  additionalProperties: false,
} as const;

export const SPLIT_SYSTEM_PROMPT =
  'You split a user\'s request into the separate actions it asks for, in order. For each action give: "request", the ' +
  'words of the request that ask for it (copied, same language, with the object it acts on, such as an order number); ' +
  '"beside_previous": true only when the request says to do it at the same time as the action before; "only_if": the ' +
  'condition the request puts on it, in the request\'s words ("it has not shipped", "还没发货"), or null; "otherwise": ' +
  'true when it runs only if the previous condition does not hold. Never add an action the request does not ask for.';

/** The characters (Chinese) or words (other scripts) of a text, lower case. */
function units(text: string): string[] {
  const lower = text.toLowerCase();
  const cjk = lower.match(/[\u4e00-\u9fff]/g) ?? [];
  const words = lower.replace(/[\u4e00-\u9fff]/g, ' ').match(/[a-z0-9@._-]+/g) ?? [];
  return [...cjk, ...words];
}

/** Share of a sub-request's units that the request has: the model copies, it does not write. */
export function groundedShare(sub: string, request: string): number {
  const own = units(sub);
  if (own.length === 0) return 0;
  const have = new Set(units(request));
  return own.filter((u) => have.has(u)).length / own.length;
}

const GROUNDED = 0.75;

export type ModelSplit = { ok: true; subs: SubRequest[] } | { ok: false; why: string };

/** The model's answer as sub-requests, or why it cannot be used. */
export function checkedProposal(answer: unknown, request: string): ModelSplit {
  const steps = (answer as { steps?: unknown } | null)?.steps;
  if (!Array.isArray(steps) || steps.length === 0) return { ok: false, why: 'no steps proposed' };
  if (steps.length > MAX_MODEL_STEPS) return { ok: false, why: `more than ${MAX_MODEL_STEPS} steps` };
  const subs: SubRequest[] = [];
  let condition: string | undefined;
  for (const [index, step] of steps.entries()) {
    const {
      request: text,
      beside_previous,
      only_if,
      otherwise,
    } = (step ?? {}) as { request?: unknown; beside_previous?: unknown; only_if?: unknown; otherwise?: unknown };
    if (typeof text !== 'string' || !text.trim()) return { ok: false, why: `step ${index + 1} asks for nothing` };
    const share = groundedShare(text, request);
    if (share < GROUNDED)
      return {
        ok: false,
        why: `step ${index + 1} ("${text}") is not the request's own words (${Math.round(share * 100)} %)`,
      };
    if (otherwise === true && condition === undefined)
      return { ok: false, why: `step ${index + 1} is an "otherwise" with no condition before it` };
    const when = typeof only_if === 'string' && only_if.trim() ? only_if.trim() : undefined;
    if (when) condition = when;
    subs.push({
      text: text.trim(),
      link: beside_previous === true && index > 0 ? 'parallel' : 'then',
      ...(otherwise === true
        ? { condition: { text: condition!, otherwise: true } }
        : when
          ? { condition: { text: when, otherwise: false } }
          : {}),
    });
  }
  return { ok: true, subs };
}

/** The model's split of `request`, checked; a model that fails or times out is a reason, not an error. */
export async function modelSplit(model: SplitModel, request: string, timeoutMs: number): Promise<ModelSplit> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const answer = await model.propose(
      {
        system: SPLIT_SYSTEM_PROMPT,
        user: request,
        schema: SPLIT_SCHEMA as unknown as Record<string, unknown>,
        maxTokens: MAX_ANSWER_TOKENS,
      },
      abort.signal,
    );
    return checkedProposal(answer, request);
  } catch (error) {
    return {
      ok: false,
      why: abort.signal.aborted ? `no answer within ${timeoutMs} ms` : `the model failed: ${(error as Error).message}`,
    };
  } finally {
    clearTimeout(timer);
  }
}
