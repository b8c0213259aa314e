/**
 * `npm start`: embedded mode, one supervised command. Starts the Temporal dev server and FerretDB (unless
 * TEMPORAL_ADDRESS / MONGODB_URI point elsewhere), then the api and the worker; prints the URLs; Ctrl-C stops
 * everything; a child that dies is reported and takes the others down with a non-zero exit.
 *
 * supervisor/ runs Agent-Reach on one machine: it finds or builds the local servers (the Temporal CLI dev server,
 * FerretDB; for cluster mode the Temporal server, PostgreSQL and HAProxy), starts them, and supervises the api and
 * worker processes. This file is embedded mode; cluster.ts is cluster mode; servers-cli.ts only builds the servers.
 */
import { Connection } from '@temporalio/client';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { loadConfigOrExit, temporalSqlitePragmas, type Config } from '../platform/config';
import { locateModel, obtainModel } from '../router/embeddings/model-files';
import { cacheDir } from '../platform/cache-dir';
import { resolveFerretDb, resolveTemporalCli, serversToBuild, type FoundBinary, type SdkDownload } from './binaries';
import {
  portAcceptsConnections,
  processServer,
  startFerretDb,
  startTemporalDevServer,
  supervisedProcessGroups,
  waitUntil,
  type LocalServer,
} from './dev-servers';
import { startTemporalBySdkDownload } from './temporal-sdk-download';
import { devServerSearchAttributes } from '../messages/search-attributes';
import { setNamespaceRetention } from '../messages/idempotency-window';
import { newSigningSecret } from '../rules/signing';
import { newApiKey } from '../rules/api-key';
import { configKeyEntry } from '../rules/config-keys';
import { DEV_KEY_FILE } from './dev-key';
import { workflowThreadFlags } from '../worker/workflow-thread';

const ROOT = resolve(__dirname, '..');
const say = (line: string) => console.log(`[agent-reach] ${line}`);

function formatDays(ms: number): string {
  const days = ms / 86_400_000;
  return `${Number.isInteger(days) ? days : days.toFixed(1)} day${days === 1 ? '' : 's'}`;
}

async function ensurePortFree(port: number, variable: string): Promise<void> {
  if (await portAcceptsConnections(port)) {
    throw new Error(`port ${port} is already in use; stop what holds it or set ${variable}`);
  }
}

/** Runs one of our own processes with its output prefixed by its name. */
function spawnOwn(name: string, entry: string, env: NodeJS.ProcessEnv): LocalServer {
  const child = spawn(process.execPath, [...workflowThreadFlags(), '--import', 'tsx', join(ROOT, entry)], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, as the servers' (supervisedProcessGroups)
  });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => console.log(`[${name}] ${line}`));
  }
  const exited = new Promise<number | string>((done) =>
    child.once('exit', (code, signal) => done(code ?? signal ?? 'unknown')),
  );
  return processServer(name, child, exited, 15_000);
}

interface Started {
  servers: LocalServer[];
  env: NodeJS.ProcessEnv;
  lines: string[];
}

async function startServers(config: Config, dataDir: string): Promise<Started> {
  const started: Started = { servers: [], env: { ...process.env }, lines: [] };
  const logs = join(dataDir, 'logs');
  const models =
    config.ROUTER_PROVIDER === 'auto' || config.ROUTER_PROVIDER === 'local'
      ? config.ROUTER_LOCAL_MODELS.split(',')
      : [];
  const ourTemporal = !process.env.TEMPORAL_ADDRESS;
  const ourMongo = !process.env.MONGODB_URI;
  // Ports first: a clash is better known before minutes of building.
  if (ourTemporal) {
    await ensurePortFree(config.EMBEDDED_TEMPORAL_PORT, 'EMBEDDED_TEMPORAL_PORT');
    await ensurePortFree(config.EMBEDDED_TEMPORAL_UI_PORT, 'EMBEDDED_TEMPORAL_UI_PORT');
  }
  if (ourMongo) await ensurePortFree(config.EMBEDDED_MONGODB_PORT, 'EMBEDDED_MONGODB_PORT');
  announceFirstStart(
    serversToBuild({ temporalCli: ourTemporal, ferretDb: ourMongo }),
    models.filter((id) => !locateModel(id)),
  );
  // Downloads (the models) go beside the Go builds, which take the CPU; the two builds go one after the other.
  const modelsObtained = Promise.all(models.map((id) => obtainModel(id, (line) => say(`model ${id}: ${line}`))));
  modelsObtained.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
  const cli = ourTemporal ? await resolveTemporalCli(say) : undefined;
  const ferretBinary = ourMongo ? await resolveFerretDb(say) : undefined;
  if (cli) await startOurTemporal(config, dataDir, cli, started);
  if (!process.env.API_KEYS) {
    const key = developmentKey(dataDir);
    started.env.API_KEYS = configKeyEntry(config.DEFAULT_TENANT, ['admin', 'metrics'], key);
    started.lines.push(
      `API key      ${key} (tenant ${config.DEFAULT_TENANT}, admin; export REACH_API_KEY=… for the CLI and SDK)`,
    );
  }
  // Development: agents and webhooks on this machine or its network are fine.
  started.env.ENDPOINT_ALLOW_LOOPBACK ??= 'true';
  started.env.ENDPOINT_ALLOW_PRIVATE ??= 'true';
  if (!process.env.CALLER_WEBHOOK_SECRET) {
    started.env.CALLER_WEBHOOK_SECRET = callerWebhookSecret(dataDir);
    started.lines.push(`Caller webhook secret  ${started.env.CALLER_WEBHOOK_SECRET} (verifies reply_to notifications)`);
  }
  if (ferretBinary) {
    say('starting FerretDB…');
    const ferret = await startFerretDb({
      binary: ferretBinary.path,
      port: config.EMBEDDED_MONGODB_PORT,
      dataDir: join(dataDir, 'ferretdb'),
      logFile: join(logs, 'ferretdb.log'),
    });
    started.servers.push(ferret);
    started.env.MONGODB_URI = `${ferret.uri}/agent-reach`;
    started.lines.push(`MongoDB      ${started.env.MONGODB_URI} (FerretDB on SQLite in ${join(dataDir, 'ferretdb')})`);
  }
  if (models.length > 0) {
    const found = await modelsObtained;
    started.lines.push(
      `Router       ${found.every(Boolean) ? `local models ${models.join(' + ')}` : 'lexical matching (local models unavailable)'}`,
    );
  }
  return started;
}

/** The Temporal dev server (the CLI's, else the SDK's download), with the namespace's retention set. */
async function startOurTemporal(
  config: Config,
  dataDir: string,
  cli: FoundBinary | SdkDownload,
  started: Started,
): Promise<void> {
  const options = {
    port: config.EMBEDDED_TEMPORAL_PORT,
    uiPort: config.EMBEDDED_TEMPORAL_UI_PORT,
    dbFile: join(dataDir, 'temporal.db'),
    namespace: config.TEMPORAL_NAMESPACE,
    logFile: join(dataDir, 'logs', 'temporal.log'),
    searchAttributes: devServerSearchAttributes(),
    sqlitePragmas: temporalSqlitePragmas(config),
  };
  say('starting Temporal dev server…');
  const temporal =
    'sdkDownload' in cli
      ? (say(`no Temporal CLI (${cli.reason}); trying the SDK's download`), await startTemporalBySdkDownload(options))
      : await startTemporalDevServer({ ...options, binary: cli.path });
  started.servers.push(temporal);
  started.env.TEMPORAL_ADDRESS = temporal.address;
  // The idempotency window is the namespace's retention of closed runs: this Temporal is ours, so set it.
  const connection = await Connection.connect({ address: temporal.address });
  await setNamespaceRetention(
    connection.workflowService,
    config.TEMPORAL_NAMESPACE,
    config.IDEMPOTENCY_WINDOW_MS,
  ).finally(() => connection.close());
  started.lines.push(
    `Idempotency  a message id answers with its message for ${formatDays(config.IDEMPOTENCY_WINDOW_MS)} after it ends (namespace retention)`,
  );
  started.env.TEMPORAL_UI_URL ??= `http://127.0.0.1:${config.EMBEDDED_TEMPORAL_UI_PORT}`;
  started.lines.push(`Temporal     ${temporal.address} (history in ${options.dbFile})`);
  started.lines.push(
    'Trust        one trust domain, for development: the dev server checks no tokens, so any client of it can act as',
    "             the gateway (start, signal, read any run, poll its queues). The wall between tenants, Temporal's",
    '             authorization per namespace, is cluster mode: npm run cluster (docs/cluster.md, "The wall").',
  );
}

/** On a first start, one line saying what will be built and fetched, and roughly how long it takes. */
function announceFirstStart(builds: string[], fetches: string[]): void {
  if (builds.length === 0 && fetches.length === 0) return;
  const work = [
    ...(builds.length > 0
      ? [`building ${builds.join(' and ')} with Go (one after the other: each takes both cores)`]
      : []),
    ...(fetches.length > 0
      ? [`fetching the router model${fetches.length > 1 ? 's' : ''} ${fetches.join(', ')} meanwhile`]
      : []),
  ];
  say(
    `first start: ${work.join(', ')}; about 5 min on 2 free cores, 15 or more on a busy machine; cached in ${cacheDir()}, later starts take seconds`,
  );
}

/** True once a worker polls the task queue, so "running" means messages are being processed. */
async function workerPolling(address: string, config: Config): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: 2_000 });
  try {
    const { pollers } = await connection.workflowService.describeTaskQueue({
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: { name: config.TEMPORAL_TASK_QUEUE },
    });
    return pollers.length > 0;
  } finally {
    await connection.close();
  }
}

/** Embedded mode's development API key (admin of the default tenant): made once, kept in the data folder. */
function developmentKey(dataDir: string): string {
  const file = join(dataDir, DEV_KEY_FILE);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const { key } = newApiKey();
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

/** Embedded mode's secret for signing `reply_to` notifications: made once, kept in the data folder. */
function callerWebhookSecret(dataDir: string): string {
  const file = join(dataDir, 'caller-webhook-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = newSigningSecret();
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  supervisedProcessGroups();
  const dataDir = resolve(config.DATA_DIR);
  const children: LocalServer[] = [];
  let stopping = false;

  const stopAll = async (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    say('stopping…');
    const ours = children.filter((c) => c.name === 'api' || c.name === 'worker');
    await Promise.allSettled(ours.map((c) => c.stop()));
    await Promise.allSettled(children.filter((c) => !ours.includes(c)).map((c) => c.stop()));
    say('stopped');
    process.exit(exitCode);
  };
  // A stop, not a failure: exit 0 (npm reports 130 after Ctrl-C, having had the SIGINT itself).
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stopAll(0));

  const watch = (child: LocalServer) => {
    children.push(child);
    void child.exited.then((code) => {
      if (stopping) return;
      say(`${child.name} exited unexpectedly (${code}); stopping everything`);
      void stopAll(1);
    });
  };

  try {
    const started = await startServers(config, dataDir);
    started.servers.forEach(watch);
    // The api runs the message worker itself and starts runs eagerly (docs/configuration.md), unless
    // API_RUNS_WORKER=false asks for the worker as a process of its own, as production runs it.
    const apiRunsWorker = process.env.API_RUNS_WORKER !== 'false';
    if (!apiRunsWorker) watch(spawnOwn('worker', 'worker/main.ts', started.env));
    watch(spawnOwn('api', 'api/main.ts', { ...started.env, API_RUNS_WORKER: String(apiRunsWorker) }));
    const api = `http://127.0.0.1:${config.API_PORT}`;
    await waitUntil('api', async () => (await fetch(`${api}/readyz`)).ok, 120_000);
    await waitUntil(
      'worker',
      () => workerPolling(started.env.TEMPORAL_ADDRESS ?? config.TEMPORAL_ADDRESS, config),
      120_000,
    );
    console.log(
      [
        '',
        'Agent-Reach is running (embedded mode)',
        `  API          ${config.PUBLIC_URL}`,
        `  MCP          ${config.PUBLIC_URL}/mcp (docs/mcp.md)`,
        ...(started.env.TEMPORAL_UI_URL ? [`  Temporal UI  ${started.env.TEMPORAL_UI_URL}`] : []),
        ...started.lines.map((line) => `  ${line}`),
        `  Server logs  ${join(dataDir, 'logs')}`,
        'Press Ctrl-C to stop.',
        '',
      ].join('\n'),
    );
  } catch (error) {
    say(`start-up failed: ${(error as Error).message}`);
    await stopAll(1);
  }
}

void main();
