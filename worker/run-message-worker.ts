/**
 * The message worker running inside a process: its delivery dependencies, the worker, and how to stop both.
 * `npm run worker` runs one on its own; an api with API_RUNS_WORKER runs one beside itself (eager starts).
 */
import type { NativeConnection } from '@temporalio/worker';
import type mongoose from 'mongoose';
import type { Logger } from 'pino';
import { workerTuning, type Config } from '../platform/config';
import type { WorkerMetrics } from '../platform/metrics';
import type { Telemetry } from '../platform/telemetry';
import { createMessageWorker } from './create-worker';
import { startDeliveryDeps } from './delivery-deps';

export interface RunningMessageWorker {
  /** Resolves when the worker has stopped (after `shutdown`, or SIGINT/SIGTERM, which the worker handles). */
  done: Promise<void>;
  shutdown(): void;
}

export async function runMessageWorker(options: {
  config: Config;
  mongo: mongoose.Connection;
  logger: Logger;
  connection: NativeConnection;
  metrics?: WorkerMetrics;
  telemetry?: Telemetry;
}): Promise<RunningMessageWorker> {
  const { config, logger } = options;
  const deliveryDeps = await startDeliveryDeps({
    config,
    mongo: options.mongo,
    logger,
    ...(options.metrics ? { metrics: options.metrics } : {}),
  });
  const worker = await createMessageWorker({
    connection: options.connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    tuning: workerTuning(config),
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
    activityDeps: deliveryDeps.activityDeps,
    nexus: config,
  });
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, nexusTenants: config.NEXUS_TENANTS }, 'message worker running');
  // Worker.run() installs SIGINT/SIGTERM handlers: it stops polling, lets activities finish, then resolves.
  const done = worker.run().finally(() => deliveryDeps.stop());
  return {
    done,
    // After SIGINT/SIGTERM the workers are draining already (the SDK heard the signal too): only running ones are asked.
    shutdown: () => worker.shutdown(),
  };
}
