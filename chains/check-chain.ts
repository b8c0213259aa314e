/**
 * A chain checked in full before anything runs, by the api (`POST /v1/chains`) and by `runChain`'s local activity:
 * the schema, the size, the plan (chains/plan.ts), every named target against the catalogue (and the caller's ACL,
 * when the caller is known), and the mapping's types against the capabilities' schemas. Every refusal names the
 * step it is about.
 */
import type { AgentQueries } from '../catalogue/agent-queries';
import type { Caller } from '../rules/api-key';
import type { ErrorCode } from '../rules/error-codes';
import { jsonBytes } from '../util/json-bytes';
import type { ChainStepBody } from './chain';
import { chainBody, type ChainBodyInput } from './chain-schema';
import { checkPlan, type PlanLimits, type PlannedStep } from './plan';
import { knownSizeIssue } from './known-sizes';
import { typeCheck, type CapabilitySchemas } from './type-check';

export interface ChainLimits extends PlanLimits {
  maxBytes: number;
  /** The message size cap (MAX_PAYLOAD_BYTES): a step whose message is known now must fit it. */
  maxMessageBytes?: number;
  /** History size past which a chain's run continues as new (CHAIN_HISTORY_MAX_BYTES). */
  maxHistoryBytes?: number;
}

export interface ChainCheckDeps {
  queries: Pick<AgentQueries, 'get' | 'checkReach'>;
  limits: ChainLimits;
}

export interface ChainRefusal {
  /** `invalid_request` (the schema), `payload_too_large`, a plan issue's code, `agent_not_found`, `unknown_capability`, `capability_forbidden`. */
  code: ErrorCode;
  message: string;
  step?: string;
  issues?: { location: string; message: string }[];
}

export type ChainCheck =
  { ok: true; body: ChainBodyInput; steps: PlannedStep[] } | { ok: false; refusal: ChainRefusal };

const refused = (refusal: ChainRefusal): ChainCheck => ({ ok: false, refusal });

/** Every (step, address) that names a target: the step's own and its compensation's. */
function namedTargets(
  steps: readonly ChainStepBody[],
): { step: string; target: { agent_id: string; capability: string } }[] {
  return steps.flatMap((s) =>
    [s.target, s.compensate?.target].filter((t) => t !== undefined).map((target) => ({ step: s.id, target: target! })),
  );
}

function parsedSchema(json: string | undefined): Record<string, unknown> | undefined {
  if (!json) return undefined;
  try {
    const parsed: unknown = JSON.parse(json);
    return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A capability's stored `parameters` and `returns`, as the type check reads them. */
export function capabilitySchemas(capability: { parameters_json?: string; returns_json?: string }): CapabilitySchemas {
  const parameters = parsedSchema(capability.parameters_json);
  const returns = parsedSchema(capability.returns_json);
  return { ...(parameters ? { parameters } : {}), ...(returns ? { returns } : {}) };
}

/** Checks `value` as a chain of `tenant`, sent by `caller` when known (its ACLs are then checked too). */
export async function checkChain(
  deps: ChainCheckDeps,
  tenant: string,
  value: unknown,
  caller?: Caller,
): Promise<ChainCheck> {
  const parsed = chainBody.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({
      location: ['body', ...issue.path.map(String)].join('.'),
      message: issue.message,
    }));
    const stepIndex = parsed.error.issues[0]?.path[0] === 'steps' ? parsed.error.issues[0].path[1] : undefined;
    const stepOf =
      typeof stepIndex === 'number' ? (value as { steps?: { id?: unknown }[] }).steps?.[stepIndex]?.id : undefined;
    return refused({
      code: 'invalid_request',
      message: 'Invalid request body',
      ...(typeof stepOf === 'string' ? { step: stepOf } : {}),
      issues,
    });
  }
  const body = parsed.data;
  const bytes = jsonBytes(body);
  if (bytes > deps.limits.maxBytes)
    return refused({
      code: 'payload_too_large',
      message: `the chain takes ${bytes} bytes of JSON; at most ${deps.limits.maxBytes} are kept`,
    });
  const plan = checkPlan(body, deps.limits);
  if (!plan.ok) return refused({ ...plan.issue });
  const schemas = new Map<string, CapabilitySchemas>();
  for (const { step, target } of namedTargets(body.steps)) {
    const key = `${target.agent_id}/${target.capability}`;
    if (schemas.has(key)) continue;
    const found = await deps.queries.get(tenant, target.agent_id);
    const capability = found?.agent.capabilities.find((c) => c.name === target.capability);
    // The codes of a message to the same target (messages/intake-refusals.ts).
    if (!found)
      return refused({
        code: 'agent_not_found',
        step,
        message: `step ${step}: no agent ${target.agent_id} in this tenant`,
      });
    if (!capability)
      return refused({
        code: 'unknown_capability',
        step,
        message: `step ${step}: agent ${target.agent_id} has no capability ${target.capability}`,
      });
    if (
      caller &&
      (await deps.queries.checkReach(tenant, target.agent_id, target.capability, caller)).kind === 'forbidden'
    ) {
      return refused({
        code: 'capability_forbidden',
        step,
        message: `step ${step}: this API key may not reach ${target.capability}`,
      });
    }
    schemas.set(key, capabilitySchemas(capability));
  }
  const typeIssue = typeCheck(plan.steps, body.input, (t) => schemas.get(`${t.agent_id}/${t.capability}`));
  if (typeIssue) return refused({ ...typeIssue });
  const sizeIssue =
    deps.limits.maxMessageBytes === undefined
      ? undefined
      : knownSizeIssue(plan.steps, body.input, deps.limits.maxMessageBytes);
  if (sizeIssue) return refused({ ...sizeIssue });
  return { ok: true, body, steps: plan.steps };
}
