/**
 * Finds or builds the two servers Agent-Reach needs locally: the Temporal CLI (for `temporal server start-dev`)
 * and FerretDB (a MongoDB-wire server on SQLite). Search order (docs/configuration.md, "Where the servers come
 * from"): environment variable → PATH → cached build → build with Go → (Temporal only) the SDK's own download.
 * Builds are cached outside the work tree, in {@link cacheDir}.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  renameSync,
  rmSync,
  writeFileSync,
  createWriteStream,
} from 'node:fs';
import { cacheDir } from '../platform/cache-dir';
import { delimiter, join } from 'node:path';

export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';
/** Newer tags carry a `replace` directive that `go install` refuses. */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
export const FERRETDB_MODULE = 'github.com/FerretDB/FerretDB';
export const FERRETDB_VERSION = 'v1.24.2';

export type BinarySource = 'env' | 'path' | 'cache' | 'built';
export interface FoundBinary {
  path: string;
  source: BinarySource;
}
/** No binary could be found or built; the Temporal SDK may still download its dev server (needs internet). */
export interface SdkDownload {
  sdkDownload: true;
  reason: string;
}

type Log = (line: string) => void;

export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

function fromEnv(variable: string, env: NodeJS.ProcessEnv): string | undefined {
  const value = env[variable];
  if (!value) return undefined;
  if (!existsSync(value)) throw new Error(`${variable}=${value}, but no file exists there`);
  return value;
}

/** Runs a long command, sending its output to a log file and printing a progress line every 15 s. */
export async function runWithProgress(
  what: string,
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; logFile: string },
  log: Log,
): Promise<void> {
  log(`${what} (first run only; output in ${options.logFile})`);
  const started = Date.now();
  const out = createWriteStream(options.logFile);
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  const timer = setInterval(() => log(`  … ${Math.round((Date.now() - started) / 1000)} s`), 15_000);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    if (code !== 0) throw new Error(`${what} failed (exit ${code}); see ${options.logFile}`);
    log(`  done in ${Math.round((Date.now() - started) / 1000)} s`);
  } finally {
    clearInterval(timer);
  }
}

export function goAvailable(): boolean {
  return spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0;
}

/** Builds the Temporal CLI with `go install` into the cache. */
async function buildTemporalCli(target: string, log: Log): Promise<void> {
  const gobin = join(cacheDir(), 'gobin-temporal');
  mkdirSync(gobin, { recursive: true });
  await runWithProgress(
    `Building Temporal CLI ${TEMPORAL_CLI_VERSION} with go install (2–9 min on 2 cores, by how busy they are)`,
    'go',
    ['install', `${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}`],
    { env: { ...process.env, GOBIN: gobin }, logFile: join(cacheDir(), 'build-temporal.log') },
    log,
  );
  renameSync(join(gobin, 'temporal'), target);
}

/**
 * Builds FerretDB from its module source. A plain `go install` builds, but the binary panics at start because
 * the module lacks its generated `build/version/version.txt`; so we copy the source, write that file, and build.
 */
async function buildFerretDb(target: string, log: Log): Promise<void> {
  const download = spawnSync('go', ['mod', 'download', '-json', `${FERRETDB_MODULE}@${FERRETDB_VERSION}`], {
    encoding: 'utf8',
    cwd: cacheDir(),
  });
  if (download.status !== 0)
    throw new Error(`go mod download of FerretDB failed: ${download.stderr || download.stdout}`);
  const moduleDir = (JSON.parse(download.stdout) as { Dir: string }).Dir;
  const source = join(cacheDir(), `src-ferretdb-${FERRETDB_VERSION}`);
  rmSync(source, { recursive: true, force: true });
  cpSync(moduleDir, source, { recursive: true });
  spawnSync('chmod', ['-R', 'u+w', source]);
  writeFileSync(join(source, 'build/version/version.txt'), `${FERRETDB_VERSION}\n`);
  await runWithProgress(
    `Building FerretDB ${FERRETDB_VERSION} with go build (2–7 min on 2 cores, by how busy they are)`,
    'go',
    ['build', '-o', target, './cmd/ferretdb'],
    { cwd: source, logFile: join(cacheDir(), 'build-ferretdb.log') },
    log,
  );
  rmSync(source, { recursive: true, force: true });
}

interface ServerBinary {
  envVar: string;
  command: string;
  cached: string;
  build: (target: string, log: Log) => Promise<void>;
}

const TEMPORAL_CLI: ServerBinary = {
  envVar: 'TEMPORAL_CLI_PATH',
  command: 'temporal',
  cached: `temporal-${TEMPORAL_CLI_VERSION}`,
  build: buildTemporalCli,
};
const FERRETDB: ServerBinary = {
  envVar: 'FERRETDB_PATH',
  command: 'ferretdb',
  cached: `ferretdb-${FERRETDB_VERSION}`,
  build: buildFerretDb,
};

/** The binary from its variable, PATH or the cache; undefined when only a build would give it. */
function findExisting(options: ServerBinary, env: NodeJS.ProcessEnv = process.env): FoundBinary | undefined {
  const explicit = fromEnv(options.envVar, env);
  if (explicit) return { path: explicit, source: 'env' };
  const onPath = findOnPath(options.command, env);
  if (onPath) return { path: onPath, source: 'path' };
  const cached = join(cacheDir(env), 'bin', options.cached);
  return existsSync(cached) ? { path: cached, source: 'cache' } : undefined;
}

/** Of the servers wanted, those a start will build (not found): for its plan line; nothing is built here. */
export function serversToBuild(
  wanted: { temporalCli: boolean; ferretDb: boolean },
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  return [
    ...(wanted.temporalCli && !findExisting(TEMPORAL_CLI, env) ? [`Temporal CLI ${TEMPORAL_CLI_VERSION}`] : []),
    ...(wanted.ferretDb && !findExisting(FERRETDB, env) ? [`FerretDB ${FERRETDB_VERSION}`] : []),
  ];
}

async function findOrBuild(options: ServerBinary, log: Log): Promise<FoundBinary> {
  const existing = findExisting(options);
  if (existing) return existing;
  const cached = join(cacheDir(), 'bin', options.cached);
  if (!goAvailable())
    throw new Error(`${options.command} not found (set ${options.envVar}) and Go is not installed to build it`);
  mkdirSync(join(cacheDir(), 'bin'), { recursive: true });
  const partial = `${cached}.partial-${process.pid}`;
  await options.build(partial, log);
  chmodSync(partial, 0o755);
  renameSync(partial, cached); // atomic: a concurrent reader sees no half-written binary
  return { path: cached, source: 'built' };
}

/** The Temporal CLI, or a note that only the SDK's download (internet) is left. */
export async function resolveTemporalCli(log: Log = console.log): Promise<FoundBinary | SdkDownload> {
  try {
    return await findOrBuild(TEMPORAL_CLI, log);
  } catch (error) {
    if (process.env.TEMPORAL_CLI_PATH) throw error;
    return { sdkDownload: true, reason: (error as Error).message };
  }
}

export async function resolveFerretDb(log: Log = console.log): Promise<FoundBinary> {
  return findOrBuild(FERRETDB, log);
}
