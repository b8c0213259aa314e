/** `GET /metrics`: this api replica's Prometheus metrics, with catalogue and message gauges refreshed at scrape. */
import { Router } from 'express';
import type { Catalogue } from '../../catalogue/catalogue';
import { isOnline } from '../../rules/liveness';
import type { ApiMetrics } from '../../platform/metrics';
import { MESSAGE_STATES } from '../../messages/message';
import { METRICS_SCOPE } from '../../rules/api-key';
import { requireCaller } from '../caller-auth';
import type { MessageService } from '../../messages/message-service';

/** Counting messages by state costs one visibility query per state: done at most every 10 s. */
const MESSAGE_COUNT_EVERY_MS = 10_000;

/** Figures of every tenant, without tenant labels. Needs the `metrics` scope unless METRICS_PUBLIC is on. */
export function metricsRoutes(deps: {
  metrics: ApiMetrics;
  catalogue: Catalogue;
  messages: MessageService;
  isPublic: boolean;
}): Router {
  const router = Router();
  let countedAt = 0;

  const refreshCatalogue = async () => {
    const { index, policy, now, models } = deps.catalogue;
    await index.ensureCurrent();
    const at = now();
    const agents = index.allAgents();
    deps.metrics.agentsOnline.set(
      agents.filter((a) => a.instances.some((i) => isOnline(i.last_heartbeat_at, at, policy))).length,
    );
    deps.metrics.instances.reset();
    for (const { instances } of agents) {
      for (const i of instances)
        deps.metrics.instances.inc({ state: i.state, online: String(isOnline(i.last_heartbeat_at, at, policy)) });
    }
    deps.metrics.circuitsOpen.set(await models.circuits.countDocuments({ state: 'open' }));
  };

  const refreshMessages = async () => {
    if (Date.now() - countedAt < MESSAGE_COUNT_EVERY_MS) return;
    countedAt = Date.now();
    await Promise.all(
      MESSAGE_STATES.map(async (state) => {
        deps.metrics.messagesByState.set({ state }, await deps.messages.count(state));
      }),
    );
  };

  router.get('/metrics', async (_req, res) => {
    if (!deps.isPublic) requireCaller(res, METRICS_SCOPE);
    await Promise.all([refreshCatalogue(), refreshMessages()]);
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  return router;
}
