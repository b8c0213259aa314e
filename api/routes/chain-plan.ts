/**
 * `POST /v1/chains/plan`: one free-text request → a proposed chain body and why each step is there (planner/);
 * nothing runs. With `?run=true` the chain starts at once when the plan is runnable: every step accepted by the
 * router outright, nothing left unplanned, and the body passes the checks of `POST /v1/chains`.
 */
import { Router as ExpressRouter } from 'express';
import type { RateLimiter } from '../../util/rate-limiter';
import { requireCaller } from '../caller-auth';
import { proposePlan, startPlannedChain, type PlanningDeps, type Spend } from '../chain-planning';
import { refuseWhenSpent } from '../client-limit';
import { chainPlanBody, chainPlanQuery } from '../schemas';
import { parseInput } from '../validate';
import { chainLinks } from './chains';

export interface ChainPlanDeps extends PlanningDeps {
  config: PlanningDeps['config'] & Parameters<typeof chainLinks>[0];
  limiter: RateLimiter;
}

export function chainPlanRoutes(deps: ChainPlanDeps): ExpressRouter {
  const router = ExpressRouter();
  router.post('/v1/chains/plan', async (req, res) => {
    const caller = requireCaller(res, 'send');
    const { run } = parseInput(chainPlanQuery, req.query, 'query');
    const body = parseInput(chainPlanBody, req.body, 'body');
    // The request itself took one unit (caller-auth.ts); a refusal sets Retry-After.
    const spend: Spend = (units) => {
      if (units > 0) refuseWhenSpent(res, deps.limiter.take(caller.tenant, units), 'for this tenant');
    };
    const answer = await proposePlan(deps, caller, body, spend);
    if (run !== 'true') {
      res.json(answer);
      return;
    }
    if (!answer.runnable) {
      res.json({ ...answer, started: false });
      return;
    }
    const result = await startPlannedChain(deps, caller, answer.chain, spend);
    const status = result.status;
    res.location(`/v1/chains/${encodeURIComponent(status.chain_id)}`);
    res.status(result.kind === 'accepted' ? 202 : 200).json({
      ...answer,
      started: true,
      status: {
        chain_id: status.chain_id,
        state: status.state,
        steps: status.steps.map((s) => ({ id: s.id, after: s.after, message_id: s.message_id, state: s.state })),
      },
      links: chainLinks(deps.config, status.tenant, status.chain_id),
    });
  });
  return router;
}
