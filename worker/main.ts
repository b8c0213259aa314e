/** `npm run worker`: the Temporal worker (workflows + activities), as production runs it (any number of replicas). */
import { RoutingStats, routingStatsModel } from '../router/routing-stats';
import { guardedFetch } from '../platform/guarded-fetch';
import { endpointPolicy } from '../rules/endpoint-policy';
import { createCatalogue } from '../catalogue/catalogue';
import { catalogueModels } from '../store/models';
import { loadConfigOrExit, workerTuning } from '../platform/config';
import { connectMongo, connectTemporalClient, connectTemporalWorker } from '../platform/connections';
import { ensureSearchAttributes } from '../messages/search-attributes';
import { createServer } from 'node:http';
import { installLastResort } from '../platform/last-resort';
import { createLogger } from '../platform/logger';
import { createWorkerMetrics } from '../platform/metrics';
import { startTelemetry } from '../platform/telemetry';
import { createMessageWorker } from './create-worker';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const policy = endpointPolicy(config);
  const logger = createLogger('worker', config);
  // One connection's error is logged and the others are served; anything else exits for a clean restart.
  installLastResort({ logger });
  const mongo = await connectMongo(config.MONGODB_URI, logger);
  const connection = await connectTemporalWorker(config.TEMPORAL_ADDRESS, logger);
  const admin = await connectTemporalClient(config.TEMPORAL_ADDRESS, logger);
  await ensureSearchAttributes(admin, config.TEMPORAL_NAMESPACE);
  await admin.close();
  const catalogue = createCatalogue(catalogueModels(mongo), config);
  const telemetry = startTelemetry('worker', config.OTEL_EXPORTER_OTLP_ENDPOINT);
  const metrics = createWorkerMetrics();
  if (config.WORKER_METRICS_PORT) {
    createServer((req, res) => {
      if (req.url !== '/metrics') return void res.writeHead(404).end();
      void metrics.registry.metrics().then((text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text));
    }).listen(config.WORKER_METRICS_PORT);
    logger.info({ port: config.WORKER_METRICS_PORT }, 'worker metrics on /metrics');
  }
  // Delivery outcomes for the router's ranking, written in batches every 2 s.
  const stats = new RoutingStats(routingStatsModel(mongo));
  const stopStats = stats.start(2_000, (error) => logger.warn({ err: error }, 'routing stats flush failed'));
  const worker = await createMessageWorker({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    tuning: workerTuning(config),
    ...(telemetry ? { telemetry } : {}),
    activityDeps: { queries: catalogue.queries, circuits: catalogue.circuits, stats, metrics, logger, fetch: guardedFetch(policy), now: Date.now, endpointPolicy: policy, ...(config.CALLER_WEBHOOK_SECRET ? { callerWebhookSecret: config.CALLER_WEBHOOK_SECRET } : {}) },
  });
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE }, 'worker running');
  // Worker.run() installs SIGINT/SIGTERM handlers: it stops polling, lets activities finish, then resolves.
  await worker.run();
  await stopStats();
  await Promise.allSettled([connection.close(), mongo.close(), telemetry?.shutdown()]);
  logger.info('worker stopped');
}

main().catch((error: unknown) => {
  console.error('worker failed:', error);
  process.exit(1);
});
