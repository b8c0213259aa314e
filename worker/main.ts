/** `npm run worker`: the Temporal worker (workflows + activities), as production runs it (any number of replicas). */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { withoutNoWorkflowsWarning } from '../platform/activity-worker';
import { loadConfigOrExit } from '../platform/config';
import { connectMongo, connectTemporalClient, connectTemporalWorker } from '../platform/connections';
import { ensureSearchAttributes } from '../messages/search-attributes';
import { createServer } from 'node:http';
import { installLastResort } from '../platform/last-resort';
import { createLogger } from '../platform/logger';
import { createWorkerMetrics } from '../platform/metrics';
import { startTelemetry } from '../platform/telemetry';
import { runMessageWorker } from './run-message-worker';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger('worker', config);
  // One connection's error is logged and the others are served; anything else exits for a clean restart.
  installLastResort({ logger });
  // The SDK's default runtime logger, without its warning that a Nexus-only worker (NEXUS_TENANTS) polls no workflows.
  Runtime.install({ logger: withoutNoWorkflowsWarning(new DefaultLogger('INFO')) });
  const mongo = await connectMongo(config.MONGODB_URI, logger);
  const connection = await connectTemporalWorker(config, logger);
  const admin = await connectTemporalClient(config, logger);
  await ensureSearchAttributes(admin, config.TEMPORAL_NAMESPACE);
  await admin.close();
  const telemetry = startTelemetry('worker', config.OTEL_EXPORTER_OTLP_ENDPOINT);
  const metrics = createWorkerMetrics();
  if (config.WORKER_METRICS_PORT) {
    createServer((req, res) => {
      if (req.url !== '/metrics') return void res.writeHead(404).end();
      void metrics.registry
        .metrics()
        .then((text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text));
    }).listen(config.WORKER_METRICS_PORT);
    logger.info({ port: config.WORKER_METRICS_PORT }, 'worker metrics on /metrics');
  }
  const worker = await runMessageWorker({
    config,
    mongo,
    logger,
    connection,
    metrics,
    ...(telemetry ? { telemetry } : {}),
  });
  // The SDK drains the worker at the first signal and then lets go of them; ours stay, so a second signal (a
  // supervisor's SIGTERM after a Ctrl-C) waits for the drain instead of killing the process in the middle of it.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (!stopping) logger.info({ signal }, 'worker stopping');
    stopping = true;
    worker.shutdown();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  await worker.done;
  await Promise.allSettled([connection.close(), mongo.close(), telemetry?.shutdown()]);
  logger.info('worker stopped');
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error('worker failed:', error);
  process.exit(1);
});
