/**
 * What the message worker's activities read and write, kept off the database on the per-message path: an
 * in-memory copy of the catalogue (refreshed on the change counter), circuits merged into the shared records in
 * batches, and ranking statistics written in batches. Built once for `worker/main.ts` and for the tests.
 */
import type mongoose from 'mongoose';
import type { Logger } from 'pino';
import type { ActivityDeps } from '../activities';
import { AgentQueries } from '../catalogue/agent-queries';
import { createCatalogue } from '../catalogue/catalogue';
import { guardedFetch } from '../platform/guarded-fetch';
import { answerLimits, chainLimits, circuitPolicy, type Config } from '../platform/config';
import type { WorkerMetrics } from '../platform/metrics';
import { RoutingStats, routingStatsModel } from '../store/routing-stats';
import { endpointPolicy } from '../rules/endpoint-policy';
import { createApiKeyStore } from '../store/api-keys';
import { BatchedCircuits } from '../store/batched-circuits';
import { catalogueModels } from '../store/models';
import { loadSealKeys } from '../store/seal-keys';
import { RunProvenance } from '../activities/run-provenance';

/** Instances whose circuit a worker keeps in memory. */
const CIRCUIT_CAPACITY = 100_000;
/** Outcomes a worker keeps while the database is unreachable. */
const CIRCUIT_MAX_PENDING = 100_000;
/** How often ranking statistics are written. */
const STATS_FLUSH_MS = 2_000;

export interface DeliveryDeps {
  activityDeps: ActivityDeps;
  circuits: BatchedCircuits;
  /** Stops the refresh and flush loops, flushing once more. */
  stop(): Promise<void>;
}

export interface DeliveryDepsOptions {
  config: Config;
  mongo: mongoose.Connection;
  logger: Logger;
  metrics?: WorkerMetrics;
  /** The catalogue's clock (tests move it). */
  now?: () => Date;
  /** How often ranking statistics are written, in ms. */
  statsFlushMs?: number;
}

export async function startDeliveryDeps(options: DeliveryDepsOptions): Promise<DeliveryDeps> {
  const { config, mongo, logger } = options;
  const catalogue = createCatalogue(catalogueModels(mongo), config, options.now);
  const warn = (what: string) => (error: unknown) => logger.warn({ err: error }, `${what} failed`);
  await catalogue.index.refresh().catch(warn('catalogue copy load'));
  const stopIndex = catalogue.index.start(logger);
  const circuits = new BatchedCircuits(catalogue.circuits, circuitPolicy(config), {
    capacity: CIRCUIT_CAPACITY,
    maxPending: CIRCUIT_MAX_PENDING,
  });
  const stopCircuits = circuits.start(config.CIRCUIT_FLUSH_MS, warn('circuit flush'));
  const stats = new RoutingStats(routingStatsModel(mongo));
  const stopStats = stats.start(options.statsFlushMs ?? STATS_FLUSH_MS, warn('routing stats flush'));
  const policy = endpointPolicy(config);
  const sealKeys = await loadSealKeys(config, mongo);
  const queries = new AgentQueries(catalogue.models, catalogue.policy, catalogue.now, circuits, catalogue.index);
  const activityDeps: ActivityDeps = {
    queries,
    intake: { queries, config, keys: createApiKeyStore(mongo, config) },
    chains: { queries, limits: chainLimits(config) },
    circuits,
    stats,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    logger,
    fetch: guardedFetch(policy),
    answerLimits: answerLimits(config),
    now: Date.now,
    endpointPolicy: policy,
    sealKeys,
    provenance: new RunProvenance({ gatewayTaskQueue: config.TEMPORAL_TASK_QUEUE }),
    ...(config.CALLER_WEBHOOK_SECRET ? { callerWebhookSecret: config.CALLER_WEBHOOK_SECRET } : {}),
  };
  return {
    activityDeps,
    circuits,
    async stop() {
      stopIndex();
      await Promise.all([stopCircuits(), stopStats()]);
    },
  };
}
