/**
 * The Temporal worker inside each api replica that routes for runs: intent-only `sendMessage` starts (Temporal-native
 * callers), where `prepareMessage` runs with the router exactly as `POST /v1/messages` routes, and messages whose
 * agent answered `misrouted` (`rerouteMessage`). The router and its models live in the api, so runs send such work
 * to this queue.
 */
import type { NativeConnection } from '@temporalio/worker';
import type { Logger } from 'pino';
import { createPrepareMessage } from '../activities/prepare-message';
import { createRerouteMessage, type RerouteRequest } from '../activities/reroute-message';
import type { MisrouteStore } from '../store/misroutes';
import type { AgentQueries } from '../catalogue/agent-queries';
import { routingTaskQueue } from '../temporal-callers/contract';
import { startActivityWorker, type RunningActivityWorker } from '../platform/activity-worker';
import type { Config } from '../platform/config';
import type { Router } from '../router/router';
import type { ApiKeyStore } from '../store/api-keys';
import type { SealKeys } from '../messages/seal';
import { RunProvenance } from '../activities/run-provenance';
import { callerChecks, checked } from '../activities/caller-checks';

export async function startRoutingWorker(options: {
  connection: NativeConnection;
  config: Config;
  queries: Pick<AgentQueries, 'checkReach'>;
  router: Pick<Router, 'route'>;
  keys: Pick<ApiKeyStore, 'callerById' | 'callerByProof'>;
  sealKeys: SealKeys;
  misroutes: Pick<MisrouteStore, 'report'>;
  logger: Pick<Logger, 'warn'>;
}): Promise<RunningActivityWorker> {
  const { connection, config, queries, router, keys, sealKeys, misroutes, logger } = options;
  // Only the gateway's own runs may ask (activities/caller-checks.ts): a foreign run routes and records nothing.
  const provenance = new RunProvenance({ gatewayTaskQueue: config.TEMPORAL_TASK_QUEUE });
  const checks = callerChecks(provenance, sealKeys);
  const rerouteMessage = createRerouteMessage({
    router,
    misroutes,
    onReportError: (error) => logger.warn({ err: error }, 'router: a misroute report was not stored'),
  });
  return startActivityWorker({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: routingTaskQueue(config.TEMPORAL_TASK_QUEUE),
    activities: {
      prepareMessage: createPrepareMessage({ queries, config, keys, router, sealKeys, now: Date.now, provenance }),
      rerouteMessage: checked(
        (request: RerouteRequest) => checks.messageRun('rerouteMessage', request),
        rerouteMessage,
      ),
    },
  });
}
