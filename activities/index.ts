/**
 * All activities, built from their dependencies. The worker passes the real ones; tests may pass others.
 */
import type { AgentQueries } from '../catalogue/agent-queries';
import type { CircuitStore } from '../store/circuits';
import type { RoutingStats } from '../router/routing-stats';
import type { EndpointPolicy } from '../rules/endpoint-policy';
import type { WorkerMetrics } from '../platform/metrics';
import type { Logger } from 'pino';
import { createDeliver } from './deliver';
import { createNotifyCaller } from './notify-caller';
import { createNotifyCancel } from './notify-cancel';
import { createPrepareMessage, type PrepareMessageDeps } from './prepare-message';
import { createResolveAndDeliver } from './resolve-and-deliver';
import { createResolveTarget } from './resolve-target';
import { createSettleMessage } from './settle-message';

export interface ActivityDeps {
  queries: Pick<AgentQueries, 'findTarget' | 'signingSecrets'>;
  circuits: Pick<CircuitStore, 'record'>;
  /** Each attempt's outcome and latency feed the router's ranking. */
  stats?: Pick<RoutingStats, 'record'>;
  metrics?: WorkerMetrics;
  /** Structured logs of delivery attempts, with message and trace ids. */
  logger?: Logger;
  /** Signs `reply_to` notifications; absent → they fail (the api refuses `reply_to` then). */
  callerWebhookSecret?: string;
  fetch: typeof fetch;
  now: () => number;
  /** Checked again before every HTTP delivery and reply_to post (an address may have changed since it was accepted). */
  endpointPolicy?: EndpointPolicy;
  /** What `prepareMessage` (direct `sendMessage` starts) reads; absent → such starts fail, non-retryable. */
  intake?: Pick<PrepareMessageDeps, 'queries' | 'config' | 'keys'>;
}

export function createActivities(deps: ActivityDeps) {
  const resolveTarget = createResolveTarget(deps);
  const deliver = createDeliver(deps);
  return {
    resolveTarget,
    deliver,
    resolveAndDeliver: createResolveAndDeliver({ resolveTarget, deliver }),
    notifyCancel: createNotifyCancel(deps),
    notifyCaller: createNotifyCaller(deps),
    settleMessage: createSettleMessage(deps),
    prepareMessage: createPrepareMessage({ ...deps.intake, now: deps.now }),
    /** A delivered message got no receipt in time: counts against the instance's circuit. */
    async recordMissingReceipt(request: { agent_id: string; instance_id: string }): Promise<void> {
      await deps.circuits.record(request.agent_id, request.instance_id, false);
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
