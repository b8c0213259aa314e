/** Cluster mode's FerretDB: the MongoDB wire protocol on PostgreSQL (`--handler=postgresql`) instead of SQLite. */
import { mkdirSync } from 'node:fs';
import { portAcceptsConnections, spawnServer, waitUntil, type LocalServer } from '../dev-servers';

export interface FerretDbOnPostgresOptions {
  binary: string;
  port: number;
  /** `postgres://user:password@host:port/database`; the database must exist. */
  postgresqlUrl: string;
  /** FerretDB's own small state (its instance id). */
  stateDir: string;
  logFile: string;
}

export async function startFerretDbOnPostgres(options: FerretDbOnPostgresOptions): Promise<LocalServer & { uri: string }> {
  mkdirSync(options.stateDir, { recursive: true });
  const server = spawnServer(
    'ferretdb',
    options.binary,
    [
      '--handler=postgresql',
      `--listen-addr=127.0.0.1:${options.port}`,
      `--state-dir=${options.stateDir}`,
      '--debug-addr=-',
      '--telemetry=disable',
      '--log-level=WARN',
    ],
    options.logFile,
    // The URL holds PostgreSQL's password: through the environment, not the command line (which `ps` shows).
    { ...process.env, FERRETDB_POSTGRESQL_URL: options.postgresqlUrl },
  );
  try {
    await waitUntil('FerretDB', () => portAcceptsConnections(options.port), 30_000, server);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { ...server, uri: `mongodb://127.0.0.1:${options.port}` };
}
