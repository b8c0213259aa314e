/**
 * Cluster mode's PostgreSQL: its own data folder and port, made with `initdb` on first start and run by
 * `postgres` in the foreground under an unprivileged user (PostgreSQL refuses to run as root, and CI is root).
 * Only TCP on 127.0.0.1, password (SCRAM) authentication; no Unix socket.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { portAcceptsConnections, spawnServer, waitUntil, type LocalServer } from '../dev-servers';
import { findOnPath } from '../binaries';

export interface PostgresOptions {
  dataDir: string;
  port: number;
  user: string;
  password: string;
  logFile: string;
  /** Progress lines. */
  log?: (line: string) => void;
}

export interface Postgres extends LocalServer {
  /** `postgres://user:password@127.0.0.1:port/<database>` */
  url(database: string): string;
  /** Creates the database unless it exists. */
  ensureDatabase(name: string): Promise<void>;
}

/** The folder of `initdb`, `postgres`, `psql`: POSTGRES_BIN_DIR, else PATH, else Debian's newest /usr/lib/postgresql/N/bin. */
export function postgresBinDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.POSTGRES_BIN_DIR) return env.POSTGRES_BIN_DIR;
  const onPath = findOnPath('initdb', env);
  if (onPath) return dirname(realpathSync(onPath)); // e.g. /usr/local/bin/initdb → /usr/lib/postgresql/15/bin
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0)
    throw new Error('PostgreSQL not found: install it (Debian: apt-get install postgresql) or set POSTGRES_BIN_DIR');
  return join(root, versions[0]!, 'bin');
}

/** Who runs PostgreSQL: ourselves, or when we are root the `postgres` account (else `nobody`). */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    const id = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
    if (id.status === 0 && gid.status === 0) return { uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) };
  }
  throw new Error('running as root, but neither a postgres nor a nobody account exists to run PostgreSQL');
}

/**
 * Lets the unprivileged account reach `dir`: every ancestor must be traversable (a temporary folder made by root is
 * not). Adds only the search bit (x), never read, and says so.
 */
function makeReachable(dir: string, log: (line: string) => void): void {
  for (let current = dirname(dir); current !== dirname(current); current = dirname(current)) {
    const mode = statSync(current).mode & 0o7777;
    if ((mode & 0o001) === 0) {
      chmodSync(current, mode | 0o011);
      log(`PostgreSQL runs unprivileged: made ${current} traversable (mode ${(mode | 0o011).toString(8)})`);
    }
  }
}

function initialise(bin: string, options: PostgresOptions, account: { uid: number; gid: number } | undefined): void {
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const passwordFile = join(options.dataDir, '..', `.pg-password-${process.pid}`);
  writeFileSync(passwordFile, `${options.password}\n`, { mode: 0o600 });
  if (account) {
    makeReachable(options.dataDir, options.log ?? (() => undefined));
    chownSync(options.dataDir, account.uid, account.gid);
    chownSync(passwordFile, account.uid, account.gid);
  }
  try {
    const result = spawnSync(
      join(bin, 'initdb'),
      [
        '-D',
        options.dataDir,
        '-U',
        options.user,
        `--pwfile=${passwordFile}`,
        '--auth-host=scram-sha-256',
        '--auth-local=peer',
        '-E',
        'UTF8',
        '--locale=C',
      ],
      { encoding: 'utf8', ...(account ?? {}) },
    );
    if (result.status !== 0)
      throw new Error(`initdb failed: ${result.stderr || result.stdout || result.error?.message}`);
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

export async function startPostgres(options: PostgresOptions): Promise<Postgres> {
  const bin = postgresBinDir();
  const account = runAs();
  if (!existsSync(join(options.dataDir, 'PG_VERSION'))) initialise(bin, options, account);
  else if (account) makeReachable(options.dataDir, options.log ?? (() => undefined));
  const args = [
    '-D',
    options.dataDir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `port=${options.port}`,
    '-c',
    'unix_socket_directories=',
    // Temporal's four services keep up to 30 connections each, FerretDB a pool of its own.
    '-c',
    'max_connections=300',
  ];
  const server = fastShutdown(
    spawnServer('postgresql', join(bin, 'postgres'), args, options.logFile, undefined, account),
  );
  await waitUntil('PostgreSQL', () => portAcceptsConnections(options.port), 60_000, server).catch(
    async (error: unknown) => {
      await server.stop();
      throw error;
    },
  );
  const url = (database: string) =>
    `postgres://${encodeURIComponent(options.user)}:${encodeURIComponent(options.password)}@127.0.0.1:${options.port}/${database}`;
  return {
    ...server,
    url,
    async ensureDatabase(name) {
      const psql = (sql: string) =>
        spawnSync(join(bin, 'psql'), ['-At', '-v', 'ON_ERROR_STOP=1', '-d', url('postgres'), '-c', sql], {
          encoding: 'utf8',
        });
      const exists = psql(`SELECT 1 FROM pg_database WHERE datname = '${name}'`);
      if (exists.status !== 0) throw new Error(`psql failed: ${exists.stderr || exists.error?.message}`);
      if (exists.stdout.trim() === '1') return;
      const created = psql(`CREATE DATABASE "${name}"`);
      if (created.status !== 0) throw new Error(`CREATE DATABASE ${name} failed: ${created.stderr}`);
    },
  };
}

/** Stop is a fast shutdown (SIGINT: sessions are ended, committed data is kept), then SIGKILL after `graceMs`. */
function fastShutdown(server: LocalServer): LocalServer {
  const child = server.child!;
  return {
    ...server,
    async stop(graceMs = 30_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await server.exited;
      clearTimeout(timer);
    },
  };
}
