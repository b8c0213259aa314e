/**
 * Planning a chain and starting a planned one, for every face: `POST /v1/chains/plan` (routes/chain-plan.ts), the
 * MCP tool `reach_plan_and_run` and the A2A skill `plan_and_run` give the same answer, cost the same rate-limit units
 * and start only what the router accepted whole (docs/chains.md, "Planning a chain").
 */
import type { AgentQueries } from '../catalogue/agent-queries';
import { capabilitySchemas } from '../chains/check-chain';
import type { ChainService } from '../chains/chain-service';
import type { ChainStatus } from '../chains/chain';
import type { Config } from '../platform/config';
import type { ApiMetrics } from '../platform/metrics';
import { planChain, type ChainPlan } from '../planner/plan-chain';
import { splitRequest } from '../planner/split';
import type { Caller } from '../rules/api-key';
import type { Router } from '../router/router';
import type { RateDecision } from '../util/rate-limiter';
import { ApiError } from './errors';
import { chainCost, startError } from './routes/chains';
import { decisionOutcome } from './routes/route';
import type { ChainPlanBody } from './schemas';

export interface PlanningDeps {
  router: Pick<Router, 'route'>;
  queries: Pick<AgentQueries, 'get'>;
  chains: Pick<ChainService, 'check' | 'start'>;
  config: Pick<Config, 'MAX_CHAIN_STEPS'>;
  metrics: Pick<ApiMetrics, 'routingDecisions'>;
}

/** Takes `units` more of the caller's rate limit, or throws 429 `rate_limited` (the request itself took one). */
export type Spend = (units: number) => void;

/** A limiter's refusal as the api's 429 (the faces without HTTP headers to set). */
export function spendOrRefuse(take: (units: number) => RateDecision): Spend {
  return (units) => {
    if (units <= 0) return;
    const decision = take(units);
    if (decision.allowed) return;
    throw new ApiError(
      429,
      'rate_limited',
      `Too many requests for this tenant; retry in ${decision.retryAfterSeconds} s`,
      { retry_after_seconds: decision.retryAfterSeconds },
    );
  };
}

export type PlannedChain = ChainPlan['chain'] & Pick<ChainPlanBody, 'chain_id' | 'reply_to'>;
export type PlanCheck = { ok: true } | { ok: false; code?: string; message?: string; step?: string };

/** What every face answers for a plan: the proposed chain body, why each step is there, what could not be planned. */
export interface PlanAnswer extends ChainPlan {
  chain: PlannedChain;
  /** What `POST /v1/chains` would say of the body. */
  check: PlanCheck;
}

/** Plans the intent for `caller` (nothing runs): 422 when it splits into nothing or into too many steps. */
export async function proposePlan(
  deps: PlanningDeps,
  caller: Caller,
  body: ChainPlanBody,
  spend: Spend,
): Promise<PlanAnswer> {
  const parts = splitRequest(body.intent).length;
  if (parts === 0)
    throw new ApiError(422, 'intent_required', 'The intent asks for nothing the planner can split into steps');
  if (parts > deps.config.MAX_CHAIN_STEPS)
    throw new ApiError(
      422,
      'too_many_steps',
      `The intent splits into ${parts} steps; a chain has at most ${deps.config.MAX_CHAIN_STEPS}`,
    );
  // Each sub-request is routed as a dry run: one unit each.
  spend(parts - 1);
  const plan = await planChain(plannerDeps(deps), caller, {
    intent: body.intent,
    ...(body.input ? { input: body.input } : {}),
  });
  const chain: PlannedChain = {
    ...(body.chain_id ? { chain_id: body.chain_id } : {}),
    ...plan.chain,
    ...(body.reply_to ? { reply_to: body.reply_to } : {}),
  };
  const checked = plan.chain.steps.length > 0 ? await deps.chains.check(caller, chain) : undefined;
  const check: PlanCheck =
    checked && !checked.ok
      ? {
          ok: false,
          code: checked.refusal.code,
          message: checked.refusal.message,
          ...(checked.refusal.step ? { step: checked.refusal.step } : {}),
        }
      : { ok: checked !== undefined };
  return { ...plan, chain, check, runnable: plan.runnable && check.ok };
}

/**
 * Starts a planned chain, at its cost in units (one per message it may send). Callers start only a runnable plan;
 * the chain's refusals and conflicts are thrown with the codes of `POST /v1/chains`.
 */
export async function startPlannedChain(
  deps: PlanningDeps,
  caller: Caller,
  chain: PlannedChain,
  spend: Spend,
): Promise<{ kind: 'accepted' | 'duplicate'; status: ChainStatus }> {
  spend(chainCost(chain, deps.config.MAX_CHAIN_STEPS));
  const result = await deps.chains.start(caller, chain);
  const error = startError(result, caller);
  if (error) throw error;
  if (result.kind !== 'accepted' && result.kind !== 'duplicate')
    throw new Error(`unexpected chain start ${result.kind}`);
  return result;
}

/** What the caller is asked: the plan, a step a line. */
export function planText(answer: PlanAnswer): string {
  const lines = answer.steps.map((s) => {
    const when = s.condition ? ` (only ${s.condition.otherwise ? 'unless' : 'if'} ${s.condition.text || 'so'})` : '';
    return `${s.id}. ${s.capability}${when}: "${s.text}"`;
  });
  const summary = answer.chain.summary ? [`then tell you how it went ("${answer.chain.summary.request}")`] : [];
  return [`Run this plan (chain ${answer.chain.chain_id})?`, ...lines, ...summary].join('\n');
}

/** Why a plan is not runnable, in a sentence: nothing runs. */
export function notRunnable(answer: PlanAnswer): string {
  if (answer.unplanned.length > 0)
    return `Not runnable: ${answer.unplanned.map((u) => `${u.code} (${u.text})`).join('; ')}. Nothing runs; give what is missing and plan again, or correct the chain and POST it to /v1/chains.`;
  if (!answer.check.ok)
    return `Not runnable: the chain would be refused (${answer.check.code}: ${answer.check.message}). Nothing runs.`;
  return 'Not runnable: the router did not accept every step outright (ambiguous or escalated). Nothing runs; correct the chain and POST it to /v1/chains.';
}

function plannerDeps(deps: PlanningDeps) {
  return {
    route: async (request: Parameters<Router['route']>[0]) => {
      const decision = await deps.router.route(request);
      deps.metrics.routingDecisions.inc({
        outcome: decisionOutcome(decision),
        stage: decision.explanation.decided_by,
        dry_run: 'true',
      });
      return decision;
    },
    schemas: async (tenant: string, agentId: string, capability: string) => {
      const found = (await deps.queries.get(tenant, agentId))?.agent.capabilities.find((c) => c.name === capability);
      return found ? capabilitySchemas(found) : {};
    },
  };
}
