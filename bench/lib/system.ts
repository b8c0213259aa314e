/**
 * The gateway under test as four separate child processes — Temporal dev server (on a SQLite file), FerretDB,
 * api and worker — on free ports with a data folder under /tmp, so that the chaos harness can SIGKILL and restart
 * each one. (`npm start`'s supervisor stops everything when a child dies, which is right for users but not here.)
 */
import { newApiKey } from '../../rules/api-key';
import { configKeyEntry } from '../../rules/config-keys';
import { Connection } from '@temporalio/client';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../platform/config';
import { devServerSearchAttributes } from '../../messages/search-attributes';
import { resolveFerretDb, resolveTemporalCli } from '../../supervisor/binaries';
import { stopOnInterrupt } from './cleanup';
import { workflowThreadFlags } from '../../worker/workflow-thread';
import {
  freePort,
  spawnServer,
  startFerretDb,
  startTemporalDevServer,
  waitUntil,
  type LocalServer,
} from '../../supervisor/dev-servers';

const ROOT = resolve(__dirname, '../..');

/**
 * The benchmarks' SQLite pragmas for Temporal's history file (EMBEDDED_TEMPORAL_SQLITE_PRAGMAS). With Temporal's
 * own settings the dev server falls behind at 60 pipelines a minute on a shared 2-core machine (see docs/benchmarks.md).
 */
export const BENCH_TEMPORAL_PRAGMAS = 'journal_mode=wal,synchronous=normal';

/** `a=b,c=d` → ['a=b', 'c=d']; `none` → []. */
export function pragmaList(text: string): string[] {
  return text === 'none' || text === '' ? [] : text.split(',').map((p) => p.trim());
}

export const COMPONENTS = ['temporal', 'ferretdb', 'api', 'worker'] as const;
export type Component = (typeof COMPONENTS)[number];

export interface BenchSystem {
  apiUrl: string;
  /** The Temporal server's gRPC address (host:port). */
  temporalAddress: string;
  /** An admin key of the `default` tenant, made for this run (callers and agents' registrations use it). */
  apiKey: string;
  dataDir: string;
  pids(): Record<Component, number[]>;
  /** SIGKILL one component and wait until it is gone. */
  kill(component: Component): Promise<void>;
  /** Start a component again (same ports, same data); resolves when it answers. */
  start(component: Component): Promise<void>;
  stop(): Promise<void>;
}

export interface SystemOptions {
  /** Extra environment of the api and the worker (delivery knobs, worker tuning). */
  env?: Record<string, string>;
  /** Keep the data folder (logs, SQLite files) after stop. */
  keepData?: boolean;
  log?: (line: string) => void;
  /** Run Temporal's dev server on an in-memory SQLite database (no history kept across its restarts). */
  temporalInMemory?: boolean;
  /** SQLite pragmas of Temporal's history file (`name=value`). */
  temporalPragmas?: string[];
  /** Write V8 CPU profiles of the api and the worker into this folder when they exit (node --cpu-prof). */
  cpuProfileDir?: string;
  /** Partitions of each Temporal task queue (see startTemporalDevServer; its default is 1). */
  temporalPartitions?: number;
  /** Run the api and the worker from another checkout (e.g. the previous commit, to compare shapes in one run). */
  root?: string;
}

const NAMESPACE = 'default';

/** What the components are started with. */
interface Setup {
  options: SystemOptions;
  dataDir: string;
  ports: { temporal: number; mongo: number; api: number };
  env: NodeJS.ProcessEnv;
  apiUrl: string;
  binaries: { temporal: string; ferretDb: string };
}

/** The api's and the worker's environment: this process's, the ports, a config key for `apiKey`, then `extra`. */
function childEnv(ports: Setup['ports'], dataDir: string, apiKey: string, extra?: Record<string, string>) {
  return {
    ...process.env,
    API_PORT: String(ports.api),
    TEMPORAL_ADDRESS: `127.0.0.1:${ports.temporal}`,
    MONGODB_URI: `mongodb://127.0.0.1:${ports.mongo}/agent-reach`,
    TEMPORAL_NAMESPACE: NAMESPACE,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    API_KEYS: configKeyEntry('default', ['admin'], apiKey),
    // The simulated agents listen on 127.0.0.1.
    ENDPOINT_ALLOW_LOOPBACK: 'true',
    ...extra,
  };
}

/** How to start each component; each resolves when the component answers. */
function componentStarters({ options, dataDir, ports, env, apiUrl, binaries }: Setup) {
  const nodeFlags = options.cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', options.cpuProfileDir] : [];
  const logs = join(dataDir, 'logs');
  const starters: Record<Component, () => Promise<LocalServer>> = {
    temporal: () =>
      startTemporalDevServer({
        binary: binaries.temporal,
        port: ports.temporal,
        ...(options.temporalInMemory ? {} : { dbFile: join(dataDir, 'temporal.db') }),
        namespace: NAMESPACE,
        logFile: join(logs, 'temporal.log'),
        searchAttributes: devServerSearchAttributes(),
        sqlitePragmas: options.temporalPragmas ?? [],
        ...(options.temporalPartitions ? { taskQueuePartitions: options.temporalPartitions } : {}),
      }),
    ferretdb: () =>
      startFerretDb({
        binary: binaries.ferretDb,
        port: ports.mongo,
        dataDir: join(dataDir, 'ferretdb'),
        logFile: join(logs, 'ferretdb.log'),
      }),
    api: async () => {
      const api = spawnNode('api', join(options.root ?? ROOT, 'api/main.ts'), env, join(logs, 'api.log'), [
        ...nodeFlags,
        ...workflowThreadFlags(options.root ?? ROOT),
      ]);
      await waitUntil('api', async () => (await fetch(`${apiUrl}/readyz`)).ok, 120_000, api);
      return api;
    },
    worker: async () => {
      const worker = spawnNode('worker', join(options.root ?? ROOT, 'worker/main.ts'), env, join(logs, 'worker.log'), [
        ...nodeFlags,
        ...workflowThreadFlags(options.root ?? ROOT),
      ]);
      const pid = worker.child?.pid ?? 0;
      await waitUntil(
        'worker',
        () => workerPolling(env.TEMPORAL_ADDRESS!, NAMESPACE, env.TEMPORAL_TASK_QUEUE ?? 'agent-reach', pid),
        180_000,
        worker,
      );
      return worker;
    },
  };
  return starters;
}

export async function startBenchSystem(options: SystemOptions = {}): Promise<BenchSystem> {
  const log = options.log ?? (() => undefined);
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-reach-bench-'));
  const ports = { temporal: await freePort(), mongo: await freePort(), api: await freePort() };
  const temporalCli = await resolveTemporalCli(log);
  if ('sdkDownload' in temporalCli) throw new Error(`the benchmark needs the Temporal CLI: ${temporalCli.reason}`);
  const ferretDb = await resolveFerretDb(log);
  const apiKey = newApiKey().key;
  const env: NodeJS.ProcessEnv = childEnv(ports, dataDir, apiKey, options.env);
  loadConfig(env); // a bad knob fails here, not in a child
  const apiUrl = `http://127.0.0.1:${ports.api}`;
  const binaries = { temporal: temporalCli.path, ferretDb: ferretDb.path };
  const starters = componentStarters({ options, dataDir, ports, env, apiUrl, binaries });
  const running = new Map<Component, LocalServer>();
  stopOnInterrupt(async () => {
    await Promise.allSettled([...running.values()].map((server) => server.stop(2_000)));
    if (!options.keepData) rmSync(dataDir, { recursive: true, force: true });
  });
  const start = async (component: Component) => {
    log(`starting ${component}`);
    running.set(component, await starters[component]());
  };
  try {
    // With API_RUNS_WORKER the api runs the message worker itself (eager starts): no worker process.
    for (const component of COMPONENTS)
      if (component !== 'worker' || env.API_RUNS_WORKER !== 'true') await start(component);
  } catch (error) {
    await Promise.allSettled([...running.values()].map((server) => server.stop(2_000)));
    throw error;
  }
  return {
    apiUrl,
    temporalAddress: env.TEMPORAL_ADDRESS!,
    apiKey,
    dataDir,
    pids() {
      const pids = {} as Record<Component, number[]>;
      for (const component of COMPONENTS) {
        const pid = running.get(component)?.child?.pid;
        pids[component] = pid ? [pid] : [];
      }
      return pids;
    },
    async kill(component) {
      const server = running.get(component);
      if (!server) return;
      server.child?.kill('SIGKILL');
      await server.exited;
      running.delete(component);
    },
    start,
    async stop() {
      for (const component of ['api', 'worker', 'ferretdb', 'temporal'] as const) await running.get(component)?.stop();
      running.clear();
      if (!options.keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function spawnNode(name: string, entry: string, env: NodeJS.ProcessEnv, logFile: string, flags: string[]): LocalServer {
  return spawnServer(name, process.execPath, [...flags, '--import', 'tsx', entry], logFile, env);
}

/**
 * True once the worker process `pid` polls the task queue. Temporal lists a dead worker's pollers for a while, so
 * a poller counts only if its identity (`<pid>@<host>`, the SDK's default) is this process's.
 */
export async function workerPolling(
  address: string,
  namespace: string,
  taskQueue: string,
  pid: number,
): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: 2_000 });
  try {
    const { pollers } = await connection.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name: taskQueue },
    });
    return pollers.some((poller) => poller.identity?.startsWith(`${pid}@`));
  } finally {
    await connection.close();
  }
}
