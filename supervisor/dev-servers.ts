/**
 * Starts and stops the local servers of embedded mode and of the tests: the Temporal dev server and FerretDB.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, createWriteStream, existsSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { dirname } from 'node:path';
import { Connection } from '@temporalio/client';

export interface LocalServer {
  name: string;
  /** The OS process, when we spawned it ourselves. */
  child?: ChildProcess;
  /** Where its output goes, when we spawned it ourselves. */
  logFile?: string;
  /** Resolves with the exit code (or signal name) when the process ends, for whatever reason. */
  exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

/** A TCP port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export function portAcceptsConnections(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** spawnServer closes a log 100 ms after the exit, once the last output is in. */
const LOG_SETTLE_MS = 200;
const LOG_TAIL_BYTES = 2_048;

/** The end of a server's log, for an error that must say why it stopped (a CI run keeps no log files). */
function logTail(logFile: string | undefined): string {
  if (!logFile || !existsSync(logFile)) return '';
  const size = statSync(logFile).size;
  const tail = Buffer.alloc(Math.min(size, LOG_TAIL_BYTES));
  const fd = openSync(logFile, 'r');
  try {
    readSync(fd, tail, 0, tail.length, size - tail.length);
  } finally {
    closeSync(fd);
  }
  const text = tail.toString('utf8').trim();
  return text ? `; the end of ${logFile}:\n${text}` : '';
}

/** Polls `check` every 100 ms until it returns true; throws after `timeoutMs` or as soon as `server` exits. */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  server?: LocalServer,
): Promise<void> {
  let exitedWith: number | string | undefined;
  void server?.exited.then((code) => (exitedWith = code));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exitedWith !== undefined) {
      await new Promise((resolve) => setTimeout(resolve, LOG_SETTLE_MS));
      throw new Error(`${what}: ${server?.name} exited (${exitedWith}) before it was ready${logTail(server?.logFile)}`);
    }
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what}: not ready after ${timeoutMs} ms`);
}

/**
 * Spawns a server whose output goes to `logFile` (with this process's environment unless `env` is given; as another
 * user when `account` is given, e.g. PostgreSQL, which refuses to run as root).
 */
let ownProcessGroups = false;

/**
 * For a supervisor (`npm start`, `npm run cluster`): children spawned from now on get process groups of their own, so
 * a terminal's Ctrl-C reaches the supervisor alone, and it stops them in order (our processes before the servers they
 * use) instead of all of them dying at once. Elsewhere (tests, benchmarks) children stay in the caller's group, so a
 * Ctrl-C ends them with it.
 */
export function supervisedProcessGroups(): void {
  ownProcessGroups = true;
}

export function spawnServer(
  name: string,
  command: string,
  args: string[],
  logFile: string,
  env?: NodeJS.ProcessEnv,
  account?: { uid: number; gid: number },
): LocalServer {
  mkdirSync(dirname(logFile), { recursive: true });
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(command, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: ownProcessGroups,
    ...(env ? { env } : {}),
    ...(account ?? {}),
  });
  // Two sources into one file: neither may end it while the other still writes.
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  child.once('exit', () => setTimeout(() => log.end(), 100));
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
    child.once('error', (error) => resolve(`spawn error: ${error.message}`));
  });
  return { ...processServer(name, child, exited, 10_000), logFile };
}

/** A spawned process as a LocalServer: `stop` sends SIGTERM, then SIGKILL after the grace period. */
export function processServer(
  name: string,
  child: ChildProcess,
  exited: Promise<number | string>,
  defaultGraceMs: number,
): LocalServer {
  return {
    name,
    child,
    exited,
    async stop(graceMs = defaultGraceMs) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface TemporalDevServerOptions {
  binary: string;
  port: number;
  /** Port of Temporal UI, or undefined to run headless. */
  uiPort?: number;
  /** SQLite file that keeps history across restarts; in memory when undefined. */
  dbFile?: string;
  namespace: string;
  logFile: string;
  /** Search attributes to register at start, name → type (e.g. Keyword). */
  searchAttributes?: Record<string, string>;
  /** SQLite pragmas of the history file, `name=value` (e.g. `journal_mode=wal`, `synchronous=normal`). */
  sqlitePragmas?: string[];
  /**
   * Partitions of each task queue (the server's default is 4). One process serves every partition here, so one
   * partition spares the forwarding between them. @default 1
   */
  taskQueuePartitions?: number;
}

export async function startTemporalDevServer(
  options: TemporalDevServerOptions,
): Promise<LocalServer & { address: string }> {
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--namespace',
    options.namespace,
  ];
  args.push(...(options.uiPort === undefined ? ['--headless'] : ['--ui-port', String(options.uiPort)]));
  if (options.dbFile) {
    mkdirSync(dirname(options.dbFile), { recursive: true });
    args.push('--db-filename', options.dbFile);
  }
  for (const pragma of options.sqlitePragmas ?? []) args.push('--sqlite-pragma', pragma);
  const partitions = options.taskQueuePartitions ?? 1;
  for (const key of ['matching.numTaskqueueReadPartitions', 'matching.numTaskqueueWritePartitions'])
    args.push('--dynamic-config-value', `${key}=${partitions}`);
  for (const [name, type] of Object.entries(options.searchAttributes ?? {}))
    args.push('--search-attribute', `${name}=${type}`);
  args.push('--log-level', 'warn');
  const server = spawnServer('temporal', options.binary, args, options.logFile);
  const address = `127.0.0.1:${options.port}`;
  await readyOrStopped('Temporal dev server', server, () => namespaceReady(address, options.namespace), 60_000);
  return { ...server, address };
}

/** Waits until `check` passes; a server that does not get there in time is stopped, and the error thrown. */
export async function readyOrStopped(
  what: string,
  server: LocalServer,
  check: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  try {
    await waitUntil(what, check, timeoutMs, server);
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** Whether the Temporal server at `address` answers for `namespace`. */
export async function namespaceReady(address: string, namespace: string): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: 1_000 });
  try {
    await connection.workflowService.describeNamespace({ namespace });
    return true;
  } finally {
    await connection.close();
  }
}

export interface FerretDbOptions {
  binary: string;
  port: number;
  /** Folder of the SQLite databases. */
  dataDir: string;
  logFile: string;
  /** Extra SQLite pragmas, e.g. `synchronous(normal)`. */
  pragmas?: string[];
}

function sqliteQuery(pragmas: string[]): string {
  return pragmas.length === 0 ? '' : `?${pragmas.map((p) => `_pragma=${encodeURIComponent(p)}`).join('&')}`;
}

export async function startFerretDb(options: FerretDbOptions): Promise<LocalServer & { uri: string }> {
  return runFerretDb({
    ...options,
    stateDir: options.dataDir,
    storage: [
      '--handler=sqlite',
      `--sqlite-url=file:${options.dataDir.replace(/\/?$/, '/')}${sqliteQuery(options.pragmas ?? [])}`,
    ],
  });
}

/** FerretDB on the storage its `storage` arguments name, ready when its port accepts connections. */
export async function runFerretDb(options: {
  binary: string;
  port: number;
  stateDir: string;
  logFile: string;
  storage: string[];
  env?: NodeJS.ProcessEnv;
}): Promise<LocalServer & { uri: string }> {
  mkdirSync(options.stateDir, { recursive: true });
  const server = spawnServer(
    'ferretdb',
    options.binary,
    [
      ...options.storage,
      `--listen-addr=127.0.0.1:${options.port}`,
      `--state-dir=${options.stateDir}`,
      '--debug-addr=-',
      '--telemetry=disable',
      '--log-level=WARN',
    ],
    options.logFile,
    options.env,
  );
  await readyOrStopped('FerretDB', server, () => portAcceptsConnections(options.port), 30_000);
  return { ...server, uri: `mongodb://127.0.0.1:${options.port}` };
}
