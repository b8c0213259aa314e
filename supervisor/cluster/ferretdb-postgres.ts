/** Cluster mode's FerretDB: the MongoDB wire protocol on PostgreSQL (`--handler=postgresql`) instead of SQLite. */
import { runFerretDb, type LocalServer } from '../dev-servers';

export interface FerretDbOnPostgresOptions {
  binary: string;
  port: number;
  /** `postgres://user:password@host:port/database`; the database must exist. */
  postgresqlUrl: string;
  /** FerretDB's own small state (its instance id). */
  stateDir: string;
  logFile: string;
}

export async function startFerretDbOnPostgres(
  options: FerretDbOnPostgresOptions,
): Promise<LocalServer & { uri: string }> {
  return runFerretDb({
    ...options,
    storage: ['--handler=postgresql'],
    // The URL holds PostgreSQL's password: through the environment, not the command line (which `ps` shows).
    env: { ...process.env, FERRETDB_POSTGRESQL_URL: options.postgresqlUrl },
  });
}
