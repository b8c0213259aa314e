/**
 * `/v1/router/misroutes`: requests reported as misrouted to a capability, and lessons. An operator teaches one
 * directly (`POST /v1/router/misroutes`: applied at once) or decides on a report (`POST …/:misroute_id`: apply or
 * dismiss; agents report with a `misrouted` receipt). A lesson keeps nearly the same request away from that
 * capability (router/head/card-borders.ts).
 */
import { Router as ExpressRouter } from 'express';
import type { LessonCache } from '../../router/lessons';
import type { MisrouteDoc, MisrouteStore } from '../../store/misroutes';
import { requireCaller } from '../caller-auth';
import { ApiError } from '../errors';
import { decideMisrouteBody, listMisroutesQuery, misrouteParams, teachMisrouteBody } from '../schemas';
import { parseInput } from '../validate';

function shown(doc: MisrouteDoc) {
  const { _id, tenant: _tenant, first_reported_at, last_reported_at, decided_at, ...rest } = doc;
  return {
    misroute_id: _id,
    ...rest,
    first_reported_at: first_reported_at.toISOString(),
    last_reported_at: last_reported_at.toISOString(),
    ...(decided_at ? { decided_at: decided_at.toISOString() } : {}),
  };
}

export function misrouteRoutes(deps: { store: MisrouteStore; cache: LessonCache }): ExpressRouter {
  const router = ExpressRouter();
  router.get('/v1/router/misroutes', async (req, res) => {
    const caller = requireCaller(res, 'read');
    const query = parseInput(listMisroutesQuery, req.query, 'query');
    res.json({ items: (await deps.store.list(caller.tenant, query.state, query.limit)).map(shown) });
  });
  router.post('/v1/router/misroutes', async (req, res) => {
    const caller = requireCaller(res, 'admin');
    const body = parseInput(teachMisrouteBody, req.body, 'body');
    const taught = await deps.store.teach(
      caller.tenant,
      `${body.agent_id}/${body.capability}`,
      body.text,
      `key:${caller.key_id}`,
    );
    deps.cache.invalidate(caller.tenant);
    res.status(201).json(shown(taught));
  });
  router.post('/v1/router/misroutes/:misroute_id', async (req, res) => {
    const caller = requireCaller(res, 'admin');
    const { misroute_id } = parseInput(misrouteParams, req.params, 'params');
    const body = parseInput(decideMisrouteBody, req.body, 'body');
    const decided = await deps.store.decide(caller.tenant, misroute_id, body.state, `key:${caller.key_id}`);
    if (!decided) throw new ApiError(404, 'misroute_not_found', `No misroute report ${misroute_id}`);
    deps.cache.invalidate(caller.tenant);
    res.json(shown(decided));
  });
  return router;
}
