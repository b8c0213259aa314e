/** `npm run api`: the stateless HTTP api, as production runs it (any number of replicas). */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startSweeper } from '../catalogue/sweeper';
import { startA2aProbe } from '../catalogue/a2a-probe';
import { guardedFetch } from '../platform/guarded-fetch';
import { endpointPolicy } from '../rules/endpoint-policy';
import { retentionPruners } from './retention';
import { ensureSearchAttributes } from '../messages/search-attributes';
import { retentionShortfall } from '../messages/idempotency-window';
import { loadConfigOrExit } from '../platform/config';
import { connectMongo, connectTemporalClient, connectTemporalWorker } from '../platform/connections';
import { installLastResort } from '../platform/last-resort';
import { createLogger } from '../platform/logger';
import { withoutNoWorkflowsWarning } from '../platform/activity-worker';
import { startTelemetry } from '../platform/telemetry';
import { runMessageWorker } from '../worker/run-message-worker';
import { createApiServices, createTemporalClient, startApiReplica } from './wiring';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger('api', config);
  // One connection's error is logged and the others are served; anything else exits for a clean restart.
  installLastResort({ logger });
  // The api's small activity workers (socket delivery, routing): only their warnings belong in the api's log, and
  // not the SDK's warning that they serve no workflows, which they never do.
  Runtime.install({ logger: withoutNoWorkflowsWarning(new DefaultLogger('WARN')) });
  const mongo = await connectMongo(config.MONGODB_URI, logger);
  const connection = await connectTemporalClient(config, logger);
  const telemetry = startTelemetry('api', config.OTEL_EXPORTER_OTLP_ENDPOINT);
  // The socket-delivery worker's connection; also the client's when this process runs the message worker.
  const workerConnection = await connectTemporalWorker(config, logger);
  const client = createTemporalClient(
    config.API_RUNS_WORKER ? workerConnection : connection,
    config,
    Boolean(telemetry),
  );
  await ensureSearchAttributes(connection, config.TEMPORAL_NAMESPACE);
  const shortfall = await retentionShortfall(
    connection.workflowService,
    config.TEMPORAL_NAMESPACE,
    config.IDEMPOTENCY_WINDOW_MS,
  ).catch(() => undefined);
  if (shortfall) logger.warn(shortfall);
  const services = await createApiServices({ config, logger, mongo, client });
  if (!config.API_KEYS) logger.warn('API_KEYS is not set: only keys created earlier through /v1/keys are accepted');
  // Embeds the default tenant's catalogue now, so the first routed message does not wait for it.
  services.router
    .prepare(config.DEFAULT_TENANT)
    .catch((error: unknown) => logger.warn({ err: error }, 'router warm-up failed'));
  const messageWorker = config.API_RUNS_WORKER
    ? await runMessageWorker({
        config,
        mongo,
        logger,
        connection: workerConnection,
        ...(telemetry ? { telemetry } : {}),
      })
    : undefined;
  const replica = await startApiReplica({
    config,
    logger,
    services,
    mongo,
    connection,
    workerConnection,
    host: config.API_HOST,
    port: config.API_PORT,
  });
  logger.info({ url: config.PUBLIC_URL }, 'api listening');
  // Every replica sweeps; the conditional updates make each offline transition happen (and be recorded) once,
  // and replicas deleting the same old documents only find fewer to delete.
  const pruners = retentionPruners(config, mongo, services.catalogue.models);
  const stopSweeper = startSweeper(services.catalogue.heartbeats, config.SWEEP_INTERVAL_MS, logger, pruners);
  const stopIndex = services.catalogue.index.start(logger);
  const stopA2aProbe = startA2aProbe(
    {
      catalogue: services.catalogue.index,
      heartbeats: services.catalogue.heartbeats,
      fetch: guardedFetch(endpointPolicy(config)),
      timeoutMs: config.A2A_FETCH_TIMEOUT_MS,
    },
    config.A2A_PROBE_INTERVAL_MS,
    logger,
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'api stopping');
    stopIndex();
    await replica.stop();
    if (messageWorker) {
      messageWorker.shutdown();
      await messageWorker.done;
    }
    // The local models' threads finish their batch first: stopped inside onnxruntime, they abort the process.
    await Promise.all([stopSweeper(), stopA2aProbe(), services.router.close()]);
    await Promise.allSettled([connection.close(), workerConnection.close(), mongo.close(), telemetry?.shutdown()]);
    logger.info({ signal }, 'api stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error('api failed to start:', error);
  process.exit(1);
});
