/**
 * How the api is put together, written once for `api/main.ts` and for the tests (test/helpers/system.ts): its
 * services on a database and a Temporal client, then replicas of the HTTP app, each with its WebSocket hub and the
 * small worker that delivers over the sockets it holds.
 */
import type { Server } from 'node:http';
import type { Express } from 'express';
import { Client, type Connection, type ConnectionLike } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import type { NativeConnection } from '@temporalio/worker';
import type mongoose from 'mongoose';
import type { Logger } from 'pino';
import { createCatalogue, type Catalogue } from '../catalogue/catalogue';
import { MessageService } from '../messages/message-service';
import type { Config } from '../platform/config';
import { createApiMetrics } from '../platform/metrics';
import { MisrouteStore } from '../store/misroutes';
import { PushConfigStore } from '../store/a2a-push-configs';
import { PlanTaskStore } from '../store/plan-tasks';
import type { RateLimiter } from '../util/rate-limiter';
import { guardedFetch } from '../platform/guarded-fetch';
import { startPushNotifier } from './a2a/push-notifier';
import { LessonCache } from '../router/lessons';
import { createRouter } from '../router/create-router';
import type { Router } from '../router/router';
import { ChainService } from '../chains/chain-service';
import { createApiKeyStore, type ApiKeyStore } from '../store/api-keys';
import { catalogueModels, initCatalogueModels } from '../store/models';
import { endpointPolicy } from '../rules/endpoint-policy';
import type { SealKeys } from '../messages/seal';
import { loadSealKeys } from '../store/seal-keys';
import { createApp, rateLimiterOf } from './app';
import { clientLimitOf } from './client-limit';
import { McpFace } from './mcp/sessions';
import { startRoutingWorker } from './routing-worker';
import { SocketHub } from './ws/socket-hub';
import { replicaTaskQueue, startSocketWorker } from './ws/socket-worker';

export interface ApiServices {
  catalogue: Catalogue;
  keys: ApiKeyStore;
  router: Router;
  messages: MessageService;
  chains: ChainService;
  /** Seal the message inputs the api builds (messages/seal.ts). */
  sealKeys: SealKeys;
  /** Misroute reports and the lessons the router reads from them (store/misroutes.ts, router/lessons.ts). */
  lessons: { store: MisrouteStore; cache: LessonCache };
  pushConfigs: PushConfigStore;
  planTasks: PlanTaskStore;
  /** The per-tenant rate limit, one for the app and the MCP face (whose plan_and_run costs what /v1/chains costs). */
  limiter: RateLimiter;
}

/**
 * The Temporal client of the api; with tracing on, workflow starts carry the caller's trace. On the worker's
 * NativeConnection when the api runs the message worker (eager starts need the two to share it).
 */
export function createTemporalClient(connection: ConnectionLike, config: Config, traced: boolean): Client {
  return new Client({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    ...(traced ? { interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } } : {}),
  });
}

/** The api's services; the catalogue's indexes and the bootstrap API keys exist when it returns. */
export async function createApiServices(options: {
  config: Config;
  logger: Logger;
  mongo: mongoose.Connection;
  client: Client;
  /** The catalogue's and the key store's clock (tests move it). */
  now?: () => Date;
}): Promise<ApiServices> {
  const { config, logger, mongo, client, now } = options;
  const models = catalogueModels(mongo);
  await initCatalogueModels(models); // indexes exist before the first registration
  const catalogue = createCatalogue(models, config, now);
  const keys = createApiKeyStore(mongo, config, now);
  await keys.init();
  const misroutes = new MisrouteStore(mongo);
  await misroutes.model.init();
  const lessons = { store: misroutes, cache: new LessonCache((tenant) => misroutes.applied(tenant)) };
  const pushConfigs = new PushConfigStore(mongo);
  await pushConfigs.model.init();
  const planTasks = new PlanTaskStore(mongo);
  await planTasks.model.init();
  const router = await createRouter(catalogue, mongo, config, logger, {
    lessons: (tenant) => lessons.cache.get(tenant),
  });
  const sealKeys = await loadSealKeys(config, mongo);
  const messages = new MessageService({ client, queries: catalogue.queries, config, router, sealKeys });
  const chains = new ChainService({
    client,
    queries: catalogue.queries,
    config,
    endpointPolicy: endpointPolicy(config),
    sealKeys,
  });
  return {
    catalogue,
    keys,
    router,
    messages,
    chains,
    sealKeys,
    lessons,
    pushConfigs,
    planTasks,
    limiter: rateLimiterOf(config),
  };
}

export interface ApiReplica {
  server: Server;
  /** Stops taking requests and sockets; `dropConnections` ends open requests and waits until the server closed. */
  stop(options?: { dropConnections?: boolean }): Promise<void>;
}

export interface ApiReplicaOptions {
  config: Config;
  logger: Logger;
  services: ApiServices;
  mongo: mongoose.Connection;
  /** Temporal: the client's connection (health check) and a worker connection (socket deliveries). */
  connection: Pick<Connection, 'workflowService'>;
  workerConnection: NativeConnection;
  host: string;
  port: number;
  /** What the api uses to fetch remote A2A cards (tests pass a fake). */
  fetch?: typeof fetch;
}

/** The app listening on `host:port`. */
async function listen(app: Express, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    // Express 5 hands a listen error to this callback (not only to 'error'): a port taken is a failure, not a start.
    const listening = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(listening)));
  });
}

/** The replica's workers: WebSocket deliveries on the replica's own task queue, and routing (intent-only direct starts). */
async function startReplicaWorkers(options: ApiReplicaOptions, hub: SocketHub, taskQueue: string) {
  const { config, services, logger } = options;
  const socketWorker = await startSocketWorker({
    connection: options.workerConnection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue,
    hub,
    circuits: services.catalogue.circuits,
    maxResultBytes: config.MAX_PAYLOAD_BYTES,
    gatewayTaskQueue: config.TEMPORAL_TASK_QUEUE,
    sealKeys: services.sealKeys,
  });
  const routingWorker = await startRoutingWorker({
    connection: options.workerConnection,
    config,
    queries: services.catalogue.queries,
    router: services.router,
    keys: services.keys,
    sealKeys: services.sealKeys,
    misroutes: services.lessons.store,
    logger,
  });
  return { stop: () => Promise.all([socketWorker.stop(), routingWorker.stop()]) };
}

/**
 * Every replica posts A2A task changes to the callers' webhooks; each change is claimed by one (push-notifier.ts).
 * Without CALLER_WEBHOOK_SECRET none is posted.
 */
function startA2aPushes(options: ApiReplicaOptions): () => Promise<void> {
  const { config, services, logger } = options;
  const secret = config.CALLER_WEBHOOK_SECRET;
  if (!secret) return async () => undefined;
  return startPushNotifier(
    {
      store: services.pushConfigs,
      messages: services.messages,
      fetch: guardedFetch(endpointPolicy(config)),
      policy: endpointPolicy(config),
      secret,
      logger,
    },
    config.A2A_STREAM_POLL_MS,
  );
}

/**
 * One api replica listening on `host:port`: the HTTP app, its WebSocket hub, its socket-delivery worker and its
 * routing worker (intent-only direct starts).
 */
export async function startApiReplica(options: ApiReplicaOptions): Promise<ApiReplica> {
  const { config, logger, services, mongo, connection } = options;
  const metrics = createApiMetrics();
  const mcp = new McpFace({ ...services, config, logger, metrics, endpoints: { policy: endpointPolicy(config) } });
  // One per-address limit for the api's failed authentications and the WebSocket's failed upgrades.
  const clients = clientLimitOf(config);
  const app = createApp({
    mcp,
    clients,
    metrics,
    config,
    // The catalogue, messages, chains, router, keys, lessons, the A2A stores and the per-tenant rate limit.
    ...services,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    logger,
    health: {
      database: async () => Boolean(await mongo.db?.admin().ping()),
      temporal: async () => Boolean(await connection.workflowService.getSystemInfo({})),
    },
  });
  const server = await listen(app, options.host, options.port);
  // WebSocket agents: this replica holds their sockets and serves their deliveries on a task queue of its own.
  const taskQueue = replicaTaskQueue(config.TEMPORAL_TASK_QUEUE);
  const hub = new SocketHub({ catalogue: services.catalogue, messages: services.messages, taskQueue, logger, clients });
  hub.attach(server);
  const workers = await startReplicaWorkers(options, hub, taskQueue);
  const stopPushNotifier = startA2aPushes(options);
  return {
    server,
    async stop({ dropConnections = false } = {}) {
      hub.close();
      await stopPushNotifier();
      await mcp.close();
      if (dropConnections) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      } else {
        // Open requests (a sync send may hold one for minutes) finish on their own; the process exits meanwhile.
        server.close();
        server.closeIdleConnections();
      }
      await workers.stop();
    },
  };
}
