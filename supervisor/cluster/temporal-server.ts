/**
 * Cluster mode's Temporal server: schemas set up by Temporal's own `temporal-sql-tool`, then `temporal-server start`
 * with deploy/temporal/cluster.yaml (PostgreSQL persistence, SQL visibility, several history shards, authorization
 * with the cluster's tokens), then the namespace and our search attributes registered. Every call here carries a
 * token (`apiKey`): the server refuses calls without one.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { ensureSearchAttributes } from '../../messages/search-attributes';
import { SEARCH_ATTRIBUTES } from '../../messages/temporal';
import { readyOrStopped, spawnServer, waitUntil, type LocalServer } from '../dev-servers';

const DEPLOY = resolve(__dirname, '../../deploy');

export interface PostgresEndpoint {
  host: string;
  port: number;
  user: string;
  password: string;
}

/** Temporal's two databases and the embedded schema each is brought to. */
const DATABASES = [
  { name: 'temporal', schema: 'postgresql/v12/temporal' },
  { name: 'temporal_visibility', schema: 'postgresql/v12/visibility' },
];

/**
 * Creates both databases and their schema version tables on the first run (remembered by `markerFile`), and on every
 * run brings them to the schema this server version embeds (`update-schema` does nothing when they are current).
 */
export function setupTemporalSchema(
  sqlTool: string,
  pg: PostgresEndpoint,
  markerFile: string,
  log: (line: string) => void,
): void {
  const run = (database: string, args: string[]) => {
    const result = spawnSync(
      sqlTool,
      ['--ep', pg.host, '-p', String(pg.port), '-u', pg.user, '--pl', 'postgres12', '--db', database, ...args],
      // The password through the environment, not the command line (which `ps` shows).
      { encoding: 'utf8', env: { ...process.env, SQL_PASSWORD: pg.password } },
    );
    if (result.status !== 0)
      throw new Error(`temporal-sql-tool ${args[0]} on ${database} failed: ${result.stderr || result.stdout}`);
  };
  const fresh = !existsSync(markerFile);
  for (const { name, schema } of DATABASES) {
    if (fresh) {
      log(`Temporal schema: creating ${name}`);
      run(name, ['create']);
      run(name, ['setup-schema', '-v', '0.0']);
    }
    run(name, ['update-schema', '--schema-name', schema]);
  }
  if (fresh) writeFileSync(markerFile, `${new Date().toISOString()}\n`);
}

/**
 * The ports the server binds, from the frontend's: history +1, matching +2, worker +3, HTTP +4, internal frontend +5
 * (HTTP +6), membership +10…+14. The supervisor's JWKS takes +7 (start-cluster.ts).
 */
export function temporalPorts(frontend: number) {
  return {
    TEMPORAL_FRONTEND_PORT: frontend,
    TEMPORAL_HISTORY_PORT: frontend + 1,
    TEMPORAL_MATCHING_PORT: frontend + 2,
    TEMPORAL_WORKER_PORT: frontend + 3,
    TEMPORAL_FRONTEND_HTTP_PORT: frontend + 4,
    TEMPORAL_INTERNAL_FRONTEND_PORT: frontend + 5,
    TEMPORAL_INTERNAL_FRONTEND_HTTP_PORT: frontend + 6,
    TEMPORAL_FRONTEND_MEMBERSHIP_PORT: frontend + 10,
    TEMPORAL_HISTORY_MEMBERSHIP_PORT: frontend + 11,
    TEMPORAL_MATCHING_MEMBERSHIP_PORT: frontend + 12,
    TEMPORAL_WORKER_MEMBERSHIP_PORT: frontend + 13,
    TEMPORAL_INTERNAL_FRONTEND_MEMBERSHIP_PORT: frontend + 14,
  };
}

/** The services started: the default four and the internal frontend (cluster.yaml) that Temporal's own callers use. */
const SERVICES = ['frontend', 'internal-frontend', 'history', 'matching', 'worker'];

export interface TemporalServerOptions {
  binary: string;
  port: number;
  pg: PostgresEndpoint;
  historyShards: number;
  logFile: string;
  /** Where the server fetches the keys that sign tokens (jwks-server.ts). */
  jwksUrl: string;
  /** Mints a `temporal-system:admin` token, for the readiness check. */
  adminToken: () => Promise<string>;
}

/** The internal frontend's HTTP address in deploy/temporal/dynamicconfig.yaml (Nexus callbacks), as compose has it. */
const COMPOSE_HTTP_ADDRESS = '127.0.0.1:7246';

/** deploy/temporal/dynamicconfig.yaml with this server's internal HTTP address for Nexus callbacks, written beside its log. */
function dynamicConfigFile(httpPort: number, logFile: string): string {
  const file = join(dirname(logFile), 'temporal-dynamicconfig.yaml');
  const text = readFileSync(join(DEPLOY, 'temporal/dynamicconfig.yaml'), 'utf8');
  writeFileSync(file, text.replaceAll(COMPOSE_HTTP_ADDRESS, `127.0.0.1:${httpPort}`));
  return file;
}

/** Starts the server (all four services in one process) and waits until its frontend answers. */
export async function startTemporalServer(options: TemporalServerOptions): Promise<LocalServer & { address: string }> {
  const ports = temporalPorts(options.port);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
    TEMPORAL_BIND_ON_IP: '127.0.0.1',
    TEMPORAL_BROADCAST_ADDRESS: '127.0.0.1',
    TEMPORAL_HISTORY_SHARDS: String(options.historyShards),
    TEMPORAL_DYNAMIC_CONFIG: dynamicConfigFile(ports.TEMPORAL_INTERNAL_FRONTEND_HTTP_PORT, options.logFile),
    TEMPORAL_JWKS_URL: options.jwksUrl,
    POSTGRES_HOST: options.pg.host,
    POSTGRES_PORT: String(options.pg.port),
    POSTGRES_USER: options.pg.user,
    POSTGRES_PASSWORD: options.pg.password,
  };
  const args = [
    '--root',
    DEPLOY,
    '--config',
    'temporal',
    '--env',
    'cluster',
    'start',
    ...SERVICES.flatMap((s) => ['--service', s]),
  ];
  const server = spawnServer('temporal', options.binary, args, options.logFile, env);
  const address = `127.0.0.1:${options.port}`;
  // Ready when it answers an authorized call: the keys are loaded, not only the port open.
  const ready = async () =>
    withTemporal(
      address,
      await options.adminToken(),
      async (c) => (await c.workflowService.describeNamespace({ namespace: 'temporal-system' }), true),
    );
  await readyOrStopped('Temporal server', server, ready, 120_000);
  return { ...server, address };
}

/** Runs `use` on a connection to `address` that carries `token`, then closes it. */
export async function withTemporal<T>(
  address: string,
  token: string,
  use: (connection: Connection) => Promise<T>,
): Promise<T> {
  const connection = await Connection.connect({ address, apiKey: token, connectTimeout: 2_000 });
  try {
    return await use(connection);
  } finally {
    await connection.close();
  }
}

/**
 * Registers the namespace (unless it exists) and our search attributes, then waits until a workflow start that carries
 * them is accepted: the server's namespace cache picks new attributes up a few seconds after they are added.
 * `adminToken`: a `temporal-system:admin` token.
 */
export async function prepareNamespace(
  address: string,
  adminToken: string,
  namespace: string,
  retentionDays = 3,
): Promise<void> {
  const connection = await Connection.connect({ address, apiKey: adminToken });
  try {
    try {
      await connection.workflowService.registerNamespace({
        namespace,
        workflowExecutionRetentionPeriod: msToTs(retentionDays * 86_400_000),
      });
    } catch (error) {
      if (!/already exists/i.test((error as Error).message)) throw error;
    }
    await waitUntil(
      'namespace',
      async () => (await connection.workflowService.describeNamespace({ namespace }), true),
      60_000,
    );
    await ensureSearchAttributes(connection, namespace);
    const client = new Client({ connection, namespace });
    await waitUntil(
      'search attributes',
      async () => {
        const handle = await client.workflow.start('cluster-probe', {
          taskQueue: 'cluster-probe',
          workflowId: `cluster-probe-${process.pid}-${Date.now()}`,
          typedSearchAttributes: SEARCH_ATTRIBUTES.map((key) => ({ key, value: 'probe' })),
        });
        await handle.terminate('cluster mode start-up probe');
        return true;
      },
      60_000,
    );
  } finally {
    await connection.close();
  }
}
