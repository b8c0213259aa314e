/** `npm run api`: the stateless HTTP api, as production runs it (any number of replicas). */
import { Client } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { Server } from 'node:http';
import { createCatalogue } from '../catalogue/catalogue';
import { catalogueModels, initCatalogueModels } from '../store/models';
import { startSweeper } from '../catalogue/sweeper';
import { loadConfigOrExit } from '../platform/config';
import { connectMongo, connectTemporalClient } from '../platform/connections';
import { createApiKeyStore } from '../store/api-keys';
import { createLogger } from '../platform/logger';
import { createApiMetrics } from '../platform/metrics';
import { ensureSearchAttributes } from '../messages/search-attributes';
import { startTelemetry } from '../platform/telemetry';
import { createRouter } from '../router/create-router';
import { createApp } from './app';
import { MessageService } from '../messages/message-service';
import { SocketHub } from './ws/socket-hub';
import { replicaTaskQueue, startSocketWorker } from './ws/socket-worker';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger('api', config);
  // The api's small socket-delivery worker: only its warnings belong in the api's log.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const mongo = await connectMongo(config.MONGODB_URI, logger);
  const models = catalogueModels(mongo);
  await initCatalogueModels(models); // indexes exist before the first registration
  const catalogue = createCatalogue(models, config);
  const keys = createApiKeyStore(mongo, config);
  await keys.init();
  if (!config.API_KEYS) logger.warn('API_KEYS is not set: only keys created earlier through /v1/keys are accepted');
  const connection = await connectTemporalClient(config.TEMPORAL_ADDRESS, logger);
  const telemetry = startTelemetry('api', config.OTEL_EXPORTER_OTLP_ENDPOINT);
  const client = new Client({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    ...(telemetry ? { interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } } : {}),
  });
  await ensureSearchAttributes(connection, config.TEMPORAL_NAMESPACE);
  const router = await createRouter(catalogue, mongo, config, logger);
  // Embeds the default tenant's catalogue now, so the first routed message does not wait for it.
  router.prepare(config.DEFAULT_TENANT).catch((error: unknown) => logger.warn({ err: error }, 'router warm-up failed'));
  const messages = new MessageService({ client, queries: catalogue.queries, config, router });
  const app = createApp({
    metrics: createApiMetrics(),
    config,
    catalogue,
    messages,
    router,
    keys,
    logger,
    health: {
      database: async () => Boolean(await mongo.db?.admin().ping()),
      temporal: async () => Boolean(await connection.workflowService.getSystemInfo({})),
    },
  });
  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(config.API_PORT, config.API_HOST, () => resolve(listening));
    listening.once('error', reject);
  });
  // WebSocket agents: this replica holds their sockets and serves their deliveries on a task queue of its own.
  const wsTaskQueue = replicaTaskQueue(config.TEMPORAL_TASK_QUEUE);
  const hub = new SocketHub({ catalogue, messages, taskQueue: wsTaskQueue, logger });
  hub.attach(server);
  const workerConnection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const socketWorker = await startSocketWorker({ connection: workerConnection, namespace: config.TEMPORAL_NAMESPACE, taskQueue: wsTaskQueue, hub, circuits: catalogue.circuits });
  logger.info({ url: config.PUBLIC_URL }, 'api listening');
  // Every replica sweeps; the conditional updates make each offline transition happen (and be recorded) once.
  const stopSweeper = startSweeper(catalogue.heartbeats, config.SWEEP_INTERVAL_MS, logger);
  const stopIndex = catalogue.index.start(logger);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'api stopping');
    server.close();
    server.closeIdleConnections();
    stopIndex();
    hub.close();
    await socketWorker.stop();
    await stopSweeper();
    await Promise.allSettled([connection.close(), workerConnection.close(), mongo.close(), telemetry?.shutdown()]);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error('api failed to start:', error);
  process.exit(1);
});
