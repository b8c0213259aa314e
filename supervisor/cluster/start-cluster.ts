/**
 * Starts cluster mode's processes in order and keeps a handle on each, so that the supervisor (supervisor/cluster.ts)
 * can restart what dies and the tests can kill and restart any of them:
 * the token key and its JWKS → PostgreSQL → Temporal schema → Temporal server → namespace → FerretDB on PostgreSQL →
 * workers and api replicas → HAProxy in front of the replicas.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../../platform/config';
import { newApiKey } from '../../rules/api-key';
import { configKeyEntry } from '../../rules/config-keys';
import { newSigningSecret } from '../../rules/signing';
import { resolveFerretDb } from '../binaries';
import { DEV_KEY_FILE } from '../dev-key';
import { waitUntil } from '../dev-servers';
import { resolveTemporalServer } from '../temporal-server-binaries';
import { ClusterMembers, type Member } from './cluster-members';
import { haproxyBinary, startBalancer, type Balancer } from './balancer';
import { startFerretDbOnPostgres } from './ferretdb-postgres';
import { startJwksServer, type JwksServer } from './jwks-server';
import { keptSecret } from './kept-secret';
import { postgresBinDir, startPostgres } from './postgres';
import { prepareNamespace, setupTemporalSchema, startTemporalServer, withTemporal } from './temporal-server';
import { mintTemporalToken, permission, SYSTEM_ADMIN, type TokenRequest } from './temporal-tokens';
import { clusterTokenKey } from './token-key';

/** PostgreSQL's role for Temporal and FerretDB (docker-compose.yml uses the same name). */
export const POSTGRES_USER = 'agent_reach';
export const FERRETDB_DATABASE = 'ferretdb';
/**
 * How long the tokens of the gateway's own processes live: one is minted at each start of an api or worker, which
 * cannot take a new one while it runs (production: tokens from the operator's IdP, and a restart to rotate them).
 */
const GATEWAY_TOKEN_TTL_SECONDS = 365 * 86_400;
const SUPERVISOR_TOKEN_TTL_SECONDS = 600;

export interface ClusterOptions {
  config: Config;
  /** Progress lines. */
  log: (line: string) => void;
  /** Environment of the api replicas and workers, over this process's (e.g. a test's shrunk timings). */
  appEnv?: Record<string, string>;
  /** Aborting it during start-up stops what has started; startCluster then rejects. */
  signal?: AbortSignal;
}

export type { Member } from './cluster-members';

export interface Cluster {
  /** The balancer: the api as callers and agents reach it. */
  url: string;
  /** Each api replica directly, in deploy/haproxy.cfg's order (api1, api2). */
  replicaUrls: string[];
  temporalAddress: string;
  /** Where Temporal fetches the keys its tokens are checked with. */
  jwksUrl: string;
  mongoUri: string;
  apiKey: string;
  dataDir: string;
  /** A token signed with the cluster's key (tests and `npm run temporal-token`). */
  mintToken(request: TokenRequest): Promise<string>;
  /** A short-lived `temporal-system:admin` token: namespaces, Nexus endpoints, anything. */
  adminToken(): Promise<string>;
  balancer: Balancer;
  members: Map<string, Member>;
  /** Called when a member exits that was not killed or stopped through this handle. */
  onUnexpectedExit(listener: (member: Member, code: number | string) => void): void;
  /** Sends `signal` (default SIGKILL) to a member and waits until it is gone. */
  kill(name: string, signal?: NodeJS.Signals): Promise<void>;
  stop(): Promise<void>;
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const { config, log } = options;
  const dataDir = resolve(config.CLUSTER_DATA_DIR);
  const logs = join(dataDir, 'logs');
  mkdirSync(logs, { recursive: true });
  // Everything that may be missing is looked for before anything starts.
  postgresBinDir();
  haproxyBinary();
  const temporalBinaries = await resolveTemporalServer(log);
  const ferretBinary = await resolveFerretDb(log);

  const run = new ClusterMembers(logs, options.signal);
  let jwks: JwksServer | undefined;
  const stopAll = async () => {
    await run.stopAll();
    await jwks?.stop();
  };
  const abort = () => void stopAll();
  options.signal?.addEventListener('abort', abort, { once: true });
  try {
    const tokenKey = await clusterTokenKey(dataDir, { create: true });
    const mintToken = (request: TokenRequest) => mintTemporalToken(tokenKey, request);
    const adminToken = () =>
      mintToken({
        subject: 'agent-reach-supervisor',
        permissions: [SYSTEM_ADMIN],
        ttlSeconds: SUPERVISOR_TOKEN_TTL_SECONDS,
      });
    jwks = await startJwksServer(config.CLUSTER_TEMPORAL_PORT + 7, [tokenKey.publicJwk]);
    const stores = await startStores(run, {
      ...options,
      dataDir,
      logs,
      jwksUrl: jwks.url,
      adminToken,
      temporalBinaries,
      ferretBinary,
    });

    const url = `http://127.0.0.1:${config.CLUSTER_PORT}`;
    const apiKey = keptSecret(dataDir, DEV_KEY_FILE, () => newApiKey().key);
    const appEnv = appEnvironment(options, { ...stores, dataDir, url, apiKey });
    const { replicaPorts, replicaUrls } = await startApps(run, config, log, {
      memberEnv: (extra) => memberEnvironment(appEnv, mintToken, config, extra),
      temporalAddress: stores.temporalAddress,
      adminToken,
    });
    const balancer = await startBalancerMember(run, config, logs, replicaPorts, log);

    options.signal?.throwIfAborted();
    options.signal?.removeEventListener('abort', abort);
    return {
      url,
      replicaUrls,
      temporalAddress: stores.temporalAddress,
      jwksUrl: jwks.url,
      mongoUri: stores.mongoUri,
      apiKey,
      dataDir,
      mintToken,
      adminToken,
      balancer,
      members: run.members,
      onUnexpectedExit: (listener) => run.onUnexpectedExit(listener),
      kill: (name, signal = 'SIGKILL') => run.kill(name, signal),
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

interface StoreSetup extends ClusterOptions {
  dataDir: string;
  logs: string;
  jwksUrl: string;
  adminToken: () => Promise<string>;
  temporalBinaries: Awaited<ReturnType<typeof resolveTemporalServer>>;
  ferretBinary: Awaited<ReturnType<typeof resolveFerretDb>>;
}

/** PostgreSQL, Temporal on it (schemas, server, namespace), FerretDB on it: where the gateway keeps its state. */
async function startStores(
  run: ClusterMembers,
  { config, log, dataDir, logs, jwksUrl, adminToken, temporalBinaries, ferretBinary }: StoreSetup,
): Promise<{ temporalAddress: string; mongoUri: string }> {
  const password = keptSecret(dataDir, 'postgres-password', () => randomBytes(18).toString('base64url'));
  log('starting PostgreSQL…');
  const postgres = await startPostgres({
    dataDir: join(dataDir, 'postgresql'),
    port: config.CLUSTER_POSTGRES_PORT,
    user: POSTGRES_USER,
    password,
    logFile: join(logs, 'postgresql.log'),
    log,
  });
  await run.add('postgresql', async () => postgres);
  const pg = { host: '127.0.0.1', port: config.CLUSTER_POSTGRES_PORT, user: POSTGRES_USER, password };

  log('setting up Temporal schemas…');
  setupTemporalSchema(temporalBinaries.sqlTool.path, pg, join(dataDir, 'temporal-schema-created'), log);
  log(`starting Temporal server (${config.CLUSTER_HISTORY_SHARDS} history shards)…`);
  const temporalOptions = {
    binary: temporalBinaries.server.path,
    port: config.CLUSTER_TEMPORAL_PORT,
    pg,
    historyShards: config.CLUSTER_HISTORY_SHARDS,
    logFile: join(logs, 'temporal.log'),
    jwksUrl,
    adminToken,
  };
  const temporalAddress = `127.0.0.1:${config.CLUSTER_TEMPORAL_PORT}`;
  await run.add('temporal', () => startTemporalServer(temporalOptions));
  await prepareNamespace(temporalAddress, await adminToken(), config.TEMPORAL_NAMESPACE);

  log('starting FerretDB on PostgreSQL…');
  await postgres.ensureDatabase(FERRETDB_DATABASE);
  const ferretOptions = {
    binary: ferretBinary.path,
    port: config.CLUSTER_MONGODB_PORT,
    postgresqlUrl: postgres.url(FERRETDB_DATABASE),
    stateDir: join(dataDir, 'ferretdb'),
    logFile: join(logs, 'ferretdb.log'),
  };
  await run.add('ferretdb', () => startFerretDbOnPostgres(ferretOptions));
  return { temporalAddress, mongoUri: `mongodb://127.0.0.1:${config.CLUSTER_MONGODB_PORT}/agent-reach` };
}

/** The environment of the api replicas and workers (each start adds its own token). */
function appEnvironment(
  options: ClusterOptions,
  at: { temporalAddress: string; mongoUri: string; dataDir: string; url: string; apiKey: string },
): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TEMPORAL_ADDRESS: at.temporalAddress,
    MONGODB_URI: at.mongoUri,
    PUBLIC_URL: at.url,
    API_KEYS: process.env.API_KEYS || configKeyEntry(options.config.DEFAULT_TENANT, ['admin', 'metrics'], at.apiKey),
    CALLER_WEBHOOK_SECRET:
      process.env.CALLER_WEBHOOK_SECRET || keptSecret(at.dataDir, 'caller-webhook-secret', newSigningSecret),
    // Development: agents and webhooks on this machine or its network are fine (as in embedded mode).
    ENDPOINT_ALLOW_LOOPBACK: process.env.ENDPOINT_ALLOW_LOOPBACK || 'true',
    ENDPOINT_ALLOW_PRIVATE: process.env.ENDPOINT_ALLOW_PRIVATE || 'true',
    // Behind the wall, Nexus callers (any namespace of the cluster may call an endpoint) must prove a key.
    TEMPORAL_CALLERS_REQUIRE_KEY: process.env.TEMPORAL_CALLERS_REQUIRE_KEY || 'true',
    ...options.appEnv,
  };
}

/** The environment of one api or worker start: with a fresh token for the gateway's namespace. */
async function memberEnvironment(
  appEnv: NodeJS.ProcessEnv,
  mintToken: (request: TokenRequest) => Promise<string>,
  config: Config,
  extra: NodeJS.ProcessEnv,
): Promise<NodeJS.ProcessEnv> {
  return {
    ...appEnv,
    TEMPORAL_API_KEY: await mintToken({
      subject: 'agent-reach-gateway',
      permissions: [permission(config.TEMPORAL_NAMESPACE, 'admin')],
      ttlSeconds: GATEWAY_TOKEN_TTL_SECONDS,
    }),
    ...extra,
  };
}

/** HAProxy in front of the two replicas, ready once both are in rotation. */
async function startBalancerMember(
  run: ClusterMembers,
  config: Config,
  logs: string,
  replicaPorts: number[],
  log: (line: string) => void,
): Promise<Balancer> {
  log('starting the balancer…');
  const balancerOptions = {
    port: config.CLUSTER_PORT,
    statsPort: config.CLUSTER_PORT + 3,
    replicas: replicaPorts.map((port) => `127.0.0.1:${port}`) as [string, string],
    logFile: join(logs, 'balancer.log'),
  };
  const balancer = await startBalancer(balancerOptions);
  await run.add('balancer', async () => balancer);
  await waitUntil(
    'both replicas in rotation',
    async () => Object.values(await balancer.replicaStates()).filter((s) => s === 'UP').length === 2,
    60_000,
  );
  return balancer;
}

interface AppSetup {
  memberEnv: (extra: NodeJS.ProcessEnv) => Promise<NodeJS.ProcessEnv>;
  temporalAddress: string;
  adminToken: () => Promise<string>;
}

/** The workers (ready once they poll the task queue) and the two api replicas (ready once `/readyz` says so). */
async function startApps(
  run: ClusterMembers,
  config: Config,
  log: (line: string) => void,
  { memberEnv, temporalAddress, adminToken }: AppSetup,
): Promise<{ replicaPorts: number[]; replicaUrls: string[] }> {
  log(`starting ${config.CLUSTER_WORKERS} workers and 2 api replicas…`);
  const replicaPorts = [config.CLUSTER_PORT + 1, config.CLUSTER_PORT + 2];
  const replicaUrls = replicaPorts.map((port) => `http://127.0.0.1:${port}`);
  const starts: Promise<Member>[] = [];
  for (let i = 1; i <= config.CLUSTER_WORKERS; i++) {
    const name = `worker-${i}`;
    starts.push(
      run.add(name, async () => {
        const server = run.spawnOwn(name, 'worker/main.ts', await memberEnv({ WORKER_METRICS_PORT: '0' }));
        const identity = `${server.child!.pid}@`;
        return run.ready(server, name, async () =>
          (await pollers(temporalAddress, await adminToken(), config)).some((p) => p.startsWith(identity)),
        );
      }),
    );
  }
  replicaPorts.forEach((port, i) => {
    const name = `api-${i + 1}`;
    starts.push(
      run.add(name, async () => {
        const server = run.spawnOwn(
          name,
          'api/main.ts',
          await memberEnv({ API_HOST: '127.0.0.1', API_PORT: String(port) }),
        );
        return run.ready(server, name, async () => (await fetch(`${replicaUrls[i]}/readyz`)).ok);
      }),
    );
  });
  await Promise.all(starts);
  return { replicaPorts, replicaUrls };
}

/** The identities (`pid@host`) of the workers that polled the message task queue lately. */
async function pollers(address: string, token: string, config: Config): Promise<string[]> {
  return withTemporal(address, token, async (connection) => {
    const { pollers } = await connection.workflowService.describeTaskQueue({
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: { name: config.TEMPORAL_TASK_QUEUE },
    });
    return pollers.map((p) => p.identity ?? '');
  });
}
