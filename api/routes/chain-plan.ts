/**
 * `POST /v1/chains/plan`: one free-text request → a proposed chain body and why each step is there (planner/);
 * nothing runs. With `?run=true` the chain starts at once when the plan is runnable: every step accepted by the
 * router outright, nothing left unplanned, and the body passes the checks of `POST /v1/chains`.
 */
import { Router as ExpressRouter } from 'express';
import type { ChainService } from '../../chains/chain-service';
import type { AgentQueries } from '../../catalogue/agent-queries';
import { capabilitySchemas } from '../../chains/check-chain';
import type { Config } from '../../platform/config';
import type { ApiMetrics } from '../../platform/metrics';
import { planChain, type ChainPlan } from '../../planner/plan-chain';
import { splitRequest } from '../../planner/split';
import type { Router } from '../../router/router';
import type { RateLimiter } from '../../util/rate-limiter';
import { requireCaller } from '../caller-auth';
import { refuseWhenSpent } from '../client-limit';
import { ApiError } from '../errors';
import { chainPlanBody, chainPlanQuery } from '../schemas';
import { parseInput } from '../validate';
import { chainCost, chainLinks, startError } from './chains';
import { decisionOutcome } from './route';

export interface ChainPlanDeps {
  router: Pick<Router, 'route'>;
  queries: Pick<AgentQueries, 'get'>;
  chains: ChainService;
  config: Config;
  limiter: RateLimiter;
  metrics: ApiMetrics;
}

export function chainPlanRoutes(deps: ChainPlanDeps): ExpressRouter {
  const router = ExpressRouter();
  const plannerDeps = {
    route: async (request: Parameters<Router['route']>[0]) => {
      const decision = await deps.router.route(request);
      deps.metrics.routingDecisions.inc({ outcome: decisionOutcome(decision), stage: decision.explanation.decided_by, dry_run: 'true' });
      return decision;
    },
    schemas: async (tenant: string, agentId: string, capability: string) => {
      const found = (await deps.queries.get(tenant, agentId))?.agent.capabilities.find((c) => c.name === capability);
      return found ? capabilitySchemas(found) : {};
    },
  };

  router.post('/v1/chains/plan', async (req, res) => {
    const caller = requireCaller(res, 'send');
    const { run } = parseInput(chainPlanQuery, req.query, 'query');
    const body = parseInput(chainPlanBody, req.body, 'body');
    const parts = splitRequest(body.intent).length;
    if (parts === 0) throw new ApiError(422, 'intent_required', 'The intent asks for nothing the planner can split into steps');
    if (parts > deps.config.MAX_CHAIN_STEPS) throw new ApiError(422, 'too_many_steps', `The intent splits into ${parts} steps; a chain has at most ${deps.config.MAX_CHAIN_STEPS}`);
    // Each sub-request is routed as a dry run: one unit each, the request itself took one (caller-auth.ts).
    if (parts > 1) refuseWhenSpent(res, deps.limiter.take(caller.tenant, parts - 1), 'for this tenant');
    const plan = await planChain(plannerDeps, caller, { intent: body.intent, ...(body.input ? { input: body.input } : {}) });
    const chain = { ...(body.chain_id ? { chain_id: body.chain_id } : {}), ...plan.chain, ...(body.reply_to ? { reply_to: body.reply_to } : {}) };
    const checked = plan.chain.steps.length > 0 ? await deps.chains.check(caller, chain) : undefined;
    const check = checked && !checked.ok ? { ok: false as const, code: checked.refusal.code, message: checked.refusal.message, ...(checked.refusal.step ? { step: checked.refusal.step } : {}) } : { ok: checked !== undefined };
    const answer: ChainPlan & { chain: typeof chain; check: typeof check } = { ...plan, chain, check, runnable: plan.runnable && check.ok };
    if (run !== 'true') {
      res.json(answer);
      return;
    }
    if (!answer.runnable) {
      res.json({ ...answer, started: false });
      return;
    }
    const extra = chainCost(chain, deps.config.MAX_CHAIN_STEPS);
    refuseWhenSpent(res, deps.limiter.take(caller.tenant, extra), 'for this tenant');
    const result = await deps.chains.start(caller, chain);
    const error = startError(result, caller);
    if (error) throw error;
    switch (result.kind) {
      case 'duplicate':
      case 'accepted': {
        const status = result.status;
        res.location(`/v1/chains/${encodeURIComponent(status.chain_id)}`);
        res.status(result.kind === 'accepted' ? 202 : 200).json({ ...answer, started: true, status: { chain_id: status.chain_id, state: status.state, steps: status.steps.map((s) => ({ id: s.id, after: s.after, message_id: s.message_id, state: s.state })) }, links: chainLinks(deps.config, status.tenant, status.chain_id) });
      }
    }
  });
  return router;
}
