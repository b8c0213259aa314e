/** `POST /v1/route`: the router's decision and explanation for an intent, without sending anything; `GET /v1/router/status`. */
import { Router as ExpressRouter } from 'express';
import type { ApiMetrics } from '../../platform/metrics';
import { routeRequest } from '../../router/route-request';
import type { RouteDecision, Router } from '../../router/router';
import { requireCaller } from '../caller-auth';
import type { Caller } from '../../rules/api-key';
import { routeBody, type RouteBody } from '../schemas';
import { parseInput } from '../validate';

export function decisionOutcome(decision: RouteDecision): string {
  return decision.kind === 'refused' ? decision.code : decision.kind;
}

/** The router's decision for `body`, nothing sent (here and in the MCP face's `reach_route`), counted as a dry run. */
export async function dryRun(
  deps: { router: Pick<Router, 'route'>; metrics: ApiMetrics },
  caller: Caller,
  body: RouteBody,
): Promise<RouteDecision> {
  const decision = await deps.router.route(routeRequest(caller, body));
  deps.metrics.routingDecisions.inc({
    outcome: decisionOutcome(decision),
    stage: decision.explanation.decided_by,
    dry_run: 'true',
  });
  return decision;
}

export function routeRoutes(deps: { router: Pick<Router, 'route' | 'status'>; metrics: ApiMetrics }): ExpressRouter {
  const router = ExpressRouter();
  // The caller's tenant's head: ready or training, its catalogue revision, since when, its fitted thresholds.
  router.get('/v1/router/status', async (_req, res) => {
    const caller = requireCaller(res, 'read');
    res.json(await deps.router.status(caller.tenant));
  });
  router.post('/v1/route', async (req, res) => {
    const caller = requireCaller(res, 'send');
    const body = parseInput(routeBody, req.body, 'body');
    res.json(await dryRun(deps, caller, body));
  });
  return router;
}
