import { Router } from 'express';
import type { Catalogue } from '../../catalogue/catalogue';
import { offlineAfterMs } from '../../rules/liveness';
import type { ApiMetrics } from '../../platform/metrics';
import { instanceView } from '../../catalogue/views';
import { tooManyInstances } from '../../catalogue/heartbeats';
import { requireAgent } from '../agent-auth';
import { requireAllowedEndpoints, type EndpointGuard } from '../endpoint-check';
import { ApiError } from '../errors';
import { agentIdParams, heartbeatBody } from '../schemas';
import { parseInput } from '../validate';

/** `POST /v1/agents/:agent_id/heartbeat`: keeps an instance alive, reports its state and load, or announces a move. */
export function heartbeatRoutes(deps: { catalogue: Catalogue; metrics: ApiMetrics; endpoints: EndpointGuard }): Router {
  const router = Router();
  const { store, heartbeats, policy, now } = deps.catalogue;
  router.post('/v1/agents/:agent_id/heartbeat', async (req, res) => {
    const { agent_id } = parseInput(agentIdParams, req.params, 'params');
    const agent = await requireAgent(req, store, agent_id, { cached: true });
    const body = parseInput(heartbeatBody, req.body, 'body');
    if (body.endpoint)
      await requireAllowedEndpoints(deps.endpoints, [{ location: 'body.endpoint', url: body.endpoint }]);
    const result = await heartbeats.beat(agent, body);
    deps.metrics.heartbeats.inc();
    if (result.kind === 'unknown_instance') {
      throw new ApiError(404, 'instance_not_found', `Agent ${agent_id} has no instance ${body.instance_id}`, {
        hint: 'send "endpoint" with the heartbeat to add this instance, or register it with PUT /v1/agents/:agent_id',
      });
    }
    if (result.kind === 'too_many_instances') {
      const refusal = tooManyInstances(agent_id, body.instance_id, result.limit);
      throw new ApiError(422, refusal.code, refusal.message, refusal.details);
    }
    res.json({
      status: 'ok',
      instance: instanceView(result.instance, now(), policy),
      transitions: result.transitions,
      next_heartbeat_in_ms: policy.intervalMs,
      offline_after_ms: offlineAfterMs(policy),
    });
  });
  return router;
}
