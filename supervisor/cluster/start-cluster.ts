/**
 * Starts cluster mode's processes in order and keeps a handle on each, so that the supervisor (supervisor/cluster.ts)
 * can restart what dies and the tests can kill and restart any of them:
 * PostgreSQL → Temporal schema → Temporal server → namespace → FerretDB on PostgreSQL → workers and api replicas →
 * HAProxy in front of the replicas.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import type { Config } from '../../platform/config';
import { newApiKey } from '../../rules/api-key';
import { configKeyEntry } from '../../rules/config-keys';
import { newSigningSecret } from '../../rules/signing';
import { resolveFerretDb } from '../binaries';
import { DEV_KEY_FILE } from '../dev-key';
import { waitUntil, type LocalServer } from '../dev-servers';
import { resolveTemporalServer } from '../temporal-server-binaries';
import { haproxyBinary, startBalancer, type Balancer } from './balancer';
import { startFerretDbOnPostgres } from './ferretdb-postgres';
import { keptSecret } from './kept-secret';
import { spawnNodeProcess } from './node-process';
import { postgresBinDir, startPostgres } from './postgres';
import { prepareNamespace, setupTemporalSchema, startTemporalServer } from './temporal-server';

/** PostgreSQL's role for Temporal and FerretDB (docker-compose.yml uses the same name). */
export const POSTGRES_USER = 'agent_reach';
export const FERRETDB_DATABASE = 'ferretdb';

export interface ClusterOptions {
  config: Config;
  /** Progress lines. */
  log: (line: string) => void;
  /** Environment of the api replicas and workers, over this process's (e.g. a test's shrunk timings). */
  appEnv?: Record<string, string>;
  /** Aborting it during start-up stops what has started; startCluster then rejects. */
  signal?: AbortSignal;
}

/** One supervised process: its current incarnation, and how to start another one. */
export interface Member {
  name: string;
  current: LocalServer;
  /** Starts it again (same data, same ports) and waits until it is ready. */
  restart(): Promise<void>;
}

export interface Cluster {
  /** The balancer: the api as callers and agents reach it. */
  url: string;
  /** Each api replica directly, in deploy/haproxy.cfg's order (api1, api2). */
  replicaUrls: string[];
  temporalAddress: string;
  mongoUri: string;
  apiKey: string;
  dataDir: string;
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

  const members = new Map<string, Member>();
  const expected = new Set<LocalServer>();
  /** Our own processes from their spawn on, so that a stop during start-up reaches those not yet ready. */
  const spawned = new Set<LocalServer>();
  const spawnOwn = (name: string, entry: string, env: NodeJS.ProcessEnv): LocalServer => {
    const server = spawnNodeProcess(name, entry, env, join(logs, `${name}.log`));
    spawned.add(server);
    void server.exited.then(() => spawned.delete(server));
    return server;
  };
  /** Waits until `server` is ready; stops it when it does not get there. */
  const ready = async (server: LocalServer, what: string, check: () => Promise<boolean>): Promise<LocalServer> => {
    try {
      await waitUntil(what, check, 180_000, server);
      return server;
    } catch (error) {
      expected.add(server);
      await server.stop();
      throw error;
    }
  };
  const listeners: ((member: Member, code: number | string) => void)[] = [];
  const watch = (member: Member) => {
    members.set(member.name, member);
    const server = member.current;
    void server.exited.then((code) => {
      if (expected.has(server) || member.current !== server) return;
      for (const listener of listeners) listener(member, code);
    });
  };
  /** A member whose `start` makes a ready incarnation; restart replaces it. */
  const add = async (name: string, start: () => Promise<LocalServer>): Promise<Member> => {
    options.signal?.throwIfAborted();
    const member: Member = {
      name,
      current: await start(),
      async restart() {
        expected.add(member.current);
        await member.current.stop();
        member.current = await start();
        watch(member);
      },
    };
    watch(member);
    return member;
  };
  const stopAll = async () => {
    const order = [['balancer'], [...members.keys()].filter((n) => /^(api|worker)-/.test(n)), ['ferretdb', 'temporal'], ['postgresql']];
    const starting = [...spawned].filter((server) => ![...members.values()].some((m) => m.current === server));
    starting.forEach((server) => expected.add(server));
    await Promise.allSettled(starting.map((server) => server.stop()));
    for (const names of order) {
      await Promise.allSettled(
        names.map((name) => {
          const member = members.get(name);
          if (!member) return undefined;
          expected.add(member.current);
          return member.current.stop();
        }),
      );
    }
  };

  const abort = () => void stopAll();
  options.signal?.addEventListener('abort', abort, { once: true });
  try {
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
    await add('postgresql', async () => postgres);
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
    };
    const temporalAddress = `127.0.0.1:${config.CLUSTER_TEMPORAL_PORT}`;
    await add('temporal', () => startTemporalServer(temporalOptions));
    await prepareNamespace(temporalAddress, config.TEMPORAL_NAMESPACE);

    log('starting FerretDB on PostgreSQL…');
    await postgres.ensureDatabase(FERRETDB_DATABASE);
    const ferretOptions = {
      binary: ferretBinary.path,
      port: config.CLUSTER_MONGODB_PORT,
      postgresqlUrl: postgres.url(FERRETDB_DATABASE),
      stateDir: join(dataDir, 'ferretdb'),
      logFile: join(logs, 'ferretdb.log'),
    };
    await add('ferretdb', () => startFerretDbOnPostgres(ferretOptions));
    const mongoUri = `mongodb://127.0.0.1:${config.CLUSTER_MONGODB_PORT}/agent-reach`;

    const url = `http://127.0.0.1:${config.CLUSTER_PORT}`;
    const apiKey = keptSecret(dataDir, DEV_KEY_FILE, () => newApiKey().key);
    const appEnv: NodeJS.ProcessEnv = {
      ...process.env,
      TEMPORAL_ADDRESS: temporalAddress,
      MONGODB_URI: mongoUri,
      PUBLIC_URL: url,
      API_KEYS: process.env.API_KEYS || configKeyEntry(config.DEFAULT_TENANT, ['admin', 'metrics'], apiKey),
      CALLER_WEBHOOK_SECRET: process.env.CALLER_WEBHOOK_SECRET || keptSecret(dataDir, 'caller-webhook-secret', newSigningSecret),
      // Development: agents and webhooks on this machine or its network are fine (as in embedded mode).
      ENDPOINT_ALLOW_LOOPBACK: process.env.ENDPOINT_ALLOW_LOOPBACK || 'true',
      ENDPOINT_ALLOW_PRIVATE: process.env.ENDPOINT_ALLOW_PRIVATE || 'true',
      ...options.appEnv,
    };

    log(`starting ${config.CLUSTER_WORKERS} workers and 2 api replicas…`);
    const replicaPorts = [config.CLUSTER_PORT + 1, config.CLUSTER_PORT + 2];
    const replicaUrls = replicaPorts.map((port) => `http://127.0.0.1:${port}`);
    const starts: Promise<Member>[] = [];
    for (let i = 1; i <= config.CLUSTER_WORKERS; i++) {
      const name = `worker-${i}`;
      starts.push(
        add(name, async () => {
          const server = spawnOwn(name, 'worker/main.ts', { ...appEnv, WORKER_METRICS_PORT: '0' });
          const identity = `${server.child!.pid}@`;
          return ready(server, name, async () => (await pollers(temporalAddress, config)).some((p) => p.startsWith(identity)));
        }),
      );
    }
    replicaPorts.forEach((port, i) => {
      const name = `api-${i + 1}`;
      starts.push(
        add(name, async () => {
          const server = spawnOwn(name, 'api/main.ts', { ...appEnv, API_HOST: '127.0.0.1', API_PORT: String(port) });
          return ready(server, name, async () => (await fetch(`${replicaUrls[i]}/readyz`)).ok);
        }),
      );
    });
    await Promise.all(starts);

    log('starting the balancer…');
    const balancerOptions = {
      port: config.CLUSTER_PORT,
      statsPort: config.CLUSTER_PORT + 3,
      replicas: replicaPorts.map((port) => `127.0.0.1:${port}`) as [string, string],
      logFile: join(logs, 'balancer.log'),
    };
    const balancer = await startBalancer(balancerOptions);
    await add('balancer', async () => balancer);
    await waitUntil('both replicas in rotation', async () => Object.values(await balancer.replicaStates()).filter((s) => s === 'UP').length === 2, 60_000);

    options.signal?.throwIfAborted();
    options.signal?.removeEventListener('abort', abort);
    return {
      url,
      replicaUrls,
      temporalAddress,
      mongoUri,
      apiKey,
      dataDir,
      balancer,
      members,
      onUnexpectedExit: (listener) => void listeners.push(listener),
      async kill(name, signal = 'SIGKILL') {
        const member = members.get(name);
        if (!member) throw new Error(`no cluster member ${name}`);
        expected.add(member.current);
        member.current.child?.kill(signal);
        await member.current.exited;
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** The identities (`pid@host`) of the workers that polled the message task queue lately. */
async function pollers(address: string, config: Config): Promise<string[]> {
  const connection = await Connection.connect({ address, connectTimeout: 2_000 });
  try {
    const { pollers } = await connection.workflowService.describeTaskQueue({
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: { name: config.TEMPORAL_TASK_QUEUE },
    });
    return pollers.map((p) => p.identity ?? '');
  } finally {
    await connection.close();
  }
}
