/**
 * The Temporal worker inside each api replica that routes intent-only `sendMessage` starts (Temporal-native
 * callers): the router and its models live in the api, so the workflow sends such inputs to this queue, where
 * `prepareMessage` runs with the router, exactly as `POST /v1/messages` routes.
 */
import type { NativeConnection } from '@temporalio/worker';
import { createPrepareMessage } from '../activities/prepare-message';
import type { AgentQueries } from '../catalogue/agent-queries';
import { routingTaskQueue } from '../messages/direct';
import { startActivityWorker, type RunningActivityWorker } from '../platform/activity-worker';
import type { Config } from '../platform/config';
import type { Router } from '../router/router';
import type { ApiKeyStore } from '../store/api-keys';
import type { SealKeys } from '../messages/seal';

export async function startRoutingWorker(options: {
  connection: NativeConnection;
  config: Config;
  queries: Pick<AgentQueries, 'checkReach'>;
  router: Pick<Router, 'route'>;
  keys: Pick<ApiKeyStore, 'callerById' | 'callerByProof'>;
  sealKeys: SealKeys;
}): Promise<RunningActivityWorker> {
  const { connection, config, queries, router, keys, sealKeys } = options;
  return startActivityWorker({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: routingTaskQueue(config.TEMPORAL_TASK_QUEUE),
    activities: { prepareMessage: createPrepareMessage({ queries, config, keys, router, sealKeys, now: Date.now }) },
  });
}
