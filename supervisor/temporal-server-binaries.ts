/**
 * Finds or builds cluster mode's Temporal server and its SQL schema tool: `temporal-server` and `temporal-sql-tool`
 * from the `go.temporal.io/server` module, the same server version the Temporal CLI embeds (`temporal --version`).
 * Search order as for the other servers (binaries.ts): environment variable → PATH → cached build → `go install`.
 * One `go install` builds both (they share most of their packages); the builds are cached in {@link cacheDir}.
 */
import { chmodSync, existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from '../platform/cache-dir';
import { findOnPath, goAvailable, runWithProgress, type FoundBinary } from './binaries';

export const TEMPORAL_SERVER_MODULE = 'go.temporal.io/server';
/** The server inside Temporal CLI v1.5.1 (binaries.ts): its dev server and this cluster speak the same version. */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';

export interface TemporalServerBinaries {
  server: FoundBinary;
  sqlTool: FoundBinary;
}

type Log = (line: string) => void;

const NAMES = {
  server: { envVar: 'TEMPORAL_SERVER_PATH', command: 'temporal-server', goName: 'server', pkg: 'cmd/server' },
  sqlTool: { envVar: 'TEMPORAL_SQL_TOOL_PATH', command: 'temporal-sql-tool', goName: 'sql', pkg: 'cmd/tools/sql' },
} as const;

function cachedPath(command: string): string {
  return join(cacheDir(), 'bin', `${command}-${TEMPORAL_SERVER_VERSION}`);
}

function found(key: keyof typeof NAMES): FoundBinary | undefined {
  const { envVar, command } = NAMES[key];
  const explicit = process.env[envVar];
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`${envVar}=${explicit}, but no file exists there`);
    return { path: explicit, source: 'env' };
  }
  const onPath = findOnPath(command);
  if (onPath) return { path: onPath, source: 'path' };
  const cached = cachedPath(command);
  return existsSync(cached) ? { path: cached, source: 'cache' } : undefined;
}

/** Builds both commands with one `go install` into a private GOBIN, then moves them into the cache atomically. */
async function buildBoth(log: Log): Promise<void> {
  if (!goAvailable())
    throw new Error('temporal-server not found (set TEMPORAL_SERVER_PATH) and Go is not installed to build it');
  const gobin = join(cacheDir(), `gobin-temporal-server-${process.pid}`);
  mkdirSync(gobin, { recursive: true });
  mkdirSync(join(cacheDir(), 'bin'), { recursive: true });
  await runWithProgress(
    `Building Temporal server ${TEMPORAL_SERVER_VERSION} and its SQL tool with go install (several minutes on two cores)`,
    'go',
    ['install', ...Object.values(NAMES).map((n) => `${TEMPORAL_SERVER_MODULE}/${n.pkg}@${TEMPORAL_SERVER_VERSION}`)],
    { env: { ...process.env, GOBIN: gobin }, logFile: join(cacheDir(), 'build-temporal-server.log') },
    log,
  );
  for (const { goName, command } of Object.values(NAMES)) {
    chmodSync(join(gobin, goName), 0o755);
    renameSync(join(gobin, goName), cachedPath(command));
  }
}

export async function resolveTemporalServer(log: Log = console.log): Promise<TemporalServerBinaries> {
  let server = found('server');
  let sqlTool = found('sqlTool');
  if (!server || !sqlTool) {
    await buildBoth(log);
    server ??= { path: cachedPath(NAMES.server.command), source: 'built' };
    sqlTool ??= { path: cachedPath(NAMES.sqlTool.command), source: 'built' };
  }
  return { server, sqlTool };
}
