/**
 * The whole system in the test process: real Temporal dev server, real FerretDB, the real worker (real activities)
 * and the real api app on a free port. Each system gets its own task queue and database.
 */
import { createServer } from 'node:http';
import { Connection, type Client } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Runtime, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type mongoose from 'mongoose';
import pino from 'pino';
import { createApiServices, createTemporalClient, startApiReplica } from '../../api/wiring';
import type { Catalogue } from '../../catalogue/catalogue';
import { loadConfig, type Config } from '../../platform/config';
import { connectMongo } from '../../platform/connections';
import { createWorkerMetrics, type WorkerMetrics } from '../../platform/metrics';
import type { Telemetry } from '../../platform/telemetry';
import { configKeyEntry } from '../../rules/config-keys';
import type { ApiKeyStore } from '../../store/api-keys';
import { freePort } from '../../supervisor/dev-servers';
import { createMessageWorker, otelWorkflowModule, workflowsPath } from '../../worker/create-worker';
import { startDeliveryDeps } from '../../worker/delivery-deps';
import { TEST_API_KEY } from './http';
import type { TestServers } from './servers';

const bundles = new Map<boolean, Promise<WorkflowBundleWithSourceMap>>();
let runtimeQuiet = false;

/** One webpack bundle of `workflows/` per test process (and one with the tracing interceptors, when asked). */
function workflowBundle(withTelemetry: boolean): Promise<WorkflowBundleWithSourceMap> {
  let bundle = bundles.get(withTelemetry);
  if (!bundle) {
    bundle = bundleWorkflowCode({
      workflowsPath: workflowsPath(),
      ...(withTelemetry ? { workflowInterceptorModules: [otelWorkflowModule()] } : {}),
      logger: { log() {}, info() {}, warn() {}, error() {}, debug() {}, trace() {} },
    });
    bundles.set(withTelemetry, bundle);
  }
  return bundle;
}

export interface TestSystem {
  baseUrl: string;
  config: Config;
  client: Client;
  catalogue: Catalogue;
  /** Callers' API keys: `keys.create(tenant, {scopes}, 'test')` makes a key of any tenant. */
  keys: ApiKeyStore;
  mongo: mongoose.Connection;
  workerMetrics: WorkerMetrics;
  /** Another api replica on the same database and Temporal (WebSocket tests). */
  startReplica(): Promise<ApiReplica>;
  stop(): Promise<void>;
}

export interface ApiReplica {
  baseUrl: string;
  stop(): Promise<void>;
}

let systems = 0;

/** A free port kept bound until `release`. */
async function reservePort(): Promise<{ port: number; release(): Promise<void> }> {
  const holder = createServer();
  await new Promise<void>((resolve, reject) => holder.once('error', reject).listen(0, '127.0.0.1', resolve));
  const address = holder.address();
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return { port: address.port, release: () => new Promise((resolve) => holder.close(() => resolve())) };
}

export interface SystemOptions {
  /** The catalogue's clock (heartbeat ages, offline sweeps). */
  now?: () => Date;
  /** What the api uses to fetch remote A2A cards. */
  fetch?: typeof fetch;
  /** Trace workflow starts, runs and activities. */
  telemetry?: Telemetry;
}

export async function startSystem(
  servers: TestServers,
  env: Record<string, string> = {},
  options: SystemOptions = {},
): Promise<TestSystem> {
  if (!runtimeQuiet) {
    Runtime.install({
      logger: { log() {}, info() {}, warn() {}, error: console.error, debug() {}, trace() {} } as never,
    });
    runtimeQuiet = true;
  }
  systems += 1;
  // Held until the api listens (building the system takes seconds), so no other test process is given this port.
  const reserved = await reservePort();
  const port = reserved.port;
  const config = loadConfig({
    API_PORT: String(port),
    TEMPORAL_ADDRESS: servers.temporalAddress,
    TEMPORAL_TASK_QUEUE: `test-${process.pid}-${systems}`,
    MONGODB_URI: servers.mongoUri.replace(/\/[^/]*$/, `/test-${process.pid}-${systems}`),
    DELIVERY_INITIAL_BACKOFF_MS: '50',
    DELIVERY_MAX_BACKOFF_MS: '200',
    DELIVERY_TIMEOUT_MS: '2000',
    DEFAULT_ACK_TIMEOUT_MS: '10000',
    // Tests that need the local models ask for them; the rest skip loading them.
    ROUTER_PROVIDER: 'lexical',
    // A request waits for its catalogue's head however slow the machine, so the deciding stage is always the same.
    ROUTER_HEAD_WAIT_MS: '60000',
    // Tests that read the judge give it to their router themselves.
    ROUTER_JUDGE: 'off',
    API_KEYS: configKeyEntry('default', ['admin', 'metrics'], TEST_API_KEY),
    // Fake agents and receivers listen on 127.0.0.1.
    ENDPOINT_ALLOW_LOOPBACK: 'true',
    ...env,
  });
  const logger = pino({ level: 'silent' });
  const mongo = await connectMongo(config.MONGODB_URI, logger);
  const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  const client = createTemporalClient(connection, config, Boolean(options.telemetry));
  const services = await createApiServices({
    config,
    logger,
    mongo,
    client,
    ...(options.now ? { now: options.now } : {}),
  });
  const { catalogue, keys } = services;
  const stopIndex = catalogue.index.start(logger);

  const workerMetrics = createWorkerMetrics();
  // The worker's own copies of the catalogue and circuits, as worker/main.ts builds them.
  const deliveryDeps = await startDeliveryDeps({
    config,
    mongo,
    logger,
    metrics: workerMetrics,
    statsFlushMs: 500,
    ...(options.now ? { now: options.now } : {}),
  });
  const workerConnection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const worker = await createMessageWorker({
    connection: workerConnection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    activityDeps: deliveryDeps.activityDeps,
    nexus: config,
    workflowBundle: await workflowBundle(Boolean(options.telemetry)),
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
  });
  const workerRun = worker.run();

  /** One api replica on its own port, wired as `api/main.ts` wires it. */
  const startReplica = async (replicaPort: number): Promise<ApiReplica> => {
    const replica = await startApiReplica({
      config,
      logger,
      services,
      mongo,
      connection,
      workerConnection,
      host: '127.0.0.1',
      port: replicaPort,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    return { baseUrl: `http://127.0.0.1:${replicaPort}`, stop: () => replica.stop({ dropConnections: true }) };
  };
  await reserved.release();
  const main = await startReplica(port);
  const replicas: ApiReplica[] = [main];

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    config,
    client,
    catalogue,
    keys,
    mongo,
    workerMetrics,
    async startReplica() {
      const replica = await startReplica(await freePort());
      replicas.push(replica);
      return replica;
    },
    async stop() {
      await Promise.allSettled(replicas.map((r) => r.stop()));
      worker.shutdown();
      await workerRun;
      stopIndex();
      await deliveryDeps.stop();
      await Promise.allSettled([connection.close(), workerConnection.close()]);
      await mongo.dropDatabase().catch(() => undefined);
      await mongo.close();
    },
  };
}
