/** `npm run api`: the stateless HTTP api, as production runs it (any number of replicas). */
import type { Connection } from '@temporalio/client';
import { DefaultLogger, Runtime, type NativeConnection } from '@temporalio/worker';
import type mongoose from 'mongoose';
import type { Logger } from 'pino';
import { startSweeper } from '../catalogue/sweeper';
import { startA2aProbe } from '../catalogue/a2a-probe';
import { guardedFetch } from '../platform/guarded-fetch';
import { endpointPolicy } from '../rules/endpoint-policy';
import { retentionPruners } from './retention';
import { ensureSearchAttributes } from '../messages/search-attributes';
import { retentionShortfall } from '../messages/idempotency-window';
import { loadConfigOrExit, type Config } from '../platform/config';
import { connectMongo, connectTemporalClient, connectTemporalWorker } from '../platform/connections';
import { installLastResort } from '../platform/last-resort';
import { createLogger } from '../platform/logger';
import { withoutNoWorkflowsWarning } from '../platform/activity-worker';
import { startTelemetry, type Telemetry } from '../platform/telemetry';
import { runMessageWorker, type RunningMessageWorker } from '../worker/run-message-worker';
import { createApiServices, createTemporalClient, startApiReplica, type ApiReplica, type ApiServices } from './wiring';

/** The namespace has the search attributes messages need; a retention shorter than the idempotency window warns. */
async function checkNamespace(connection: Connection, config: Config, logger: Logger): Promise<void> {
  await ensureSearchAttributes(connection, config.TEMPORAL_NAMESPACE);
  const shortfall = await retentionShortfall(
    connection.workflowService,
    config.TEMPORAL_NAMESPACE,
    config.IDEMPOTENCY_WINDOW_MS,
  ).catch(() => undefined);
  if (shortfall) logger.warn(shortfall);
}

/**
 * Every replica's rounds: the sweeper with the retention pruners, the catalogue index's refresh and the A2A probe.
 * Every replica sweeps; the conditional updates make each offline transition happen (and be recorded) once, and
 * replicas deleting the same old documents only find fewer to delete.
 */
function startRounds(config: Config, logger: Logger, mongo: mongoose.Connection, services: ApiServices) {
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
  return { stopSweeper, stopIndex, stopA2aProbe };
}

/** What a stop ends, in its order. */
interface Running {
  logger: Logger;
  rounds: ReturnType<typeof startRounds>;
  replica: ApiReplica;
  messageWorker: RunningMessageWorker | undefined;
  router: ApiServices['router'];
  connection: Connection;
  workerConnection: NativeConnection;
  mongo: mongoose.Connection;
  telemetry: Telemetry | undefined;
}

/** On SIGTERM or SIGINT (once): the index, the replica, the message worker, the rounds, the connections; then exit. */
function stopOnSignals(running: Running): void {
  const { logger, rounds, replica, messageWorker } = running;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'api stopping');
    rounds.stopIndex();
    await replica.stop();
    if (messageWorker) {
      messageWorker.shutdown();
      await messageWorker.done;
    }
    // The local models' threads finish their batch first: stopped inside onnxruntime, they abort the process.
    await Promise.all([rounds.stopSweeper(), rounds.stopA2aProbe(), running.router.close()]);
    await Promise.allSettled([
      running.connection.close(),
      running.workerConnection.close(),
      running.mongo.close(),
      running.telemetry?.shutdown(),
    ]);
    logger.info({ signal }, 'api stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

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
  await checkNamespace(connection, config, logger);
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
  const rounds = startRounds(config, logger, mongo, services);
  const { router } = services;
  stopOnSignals({ logger, rounds, replica, messageWorker, router, connection, workerConnection, mongo, telemetry });
}

main().catch((error: unknown) => {
  console.error('api failed to start:', error);
  process.exit(1);
});
