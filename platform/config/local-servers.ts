import { z } from 'zod';
import { port } from './fields';

/**
 * Embedded and cluster mode: the local servers `npm start` and `npm run cluster` run, their ports and folders
 * (docs/cluster.md).
 */
export const localServersShape = {
  /** Folder of embedded mode's local servers (Temporal's SQLite file, FerretDB's data, logs). @default .agent-reach-data */
  DATA_DIR: z.string().min(1).default('.agent-reach-data'),
  /** Embedded Temporal dev server gRPC port. @default 7233 */
  EMBEDDED_TEMPORAL_PORT: port.default(7233),
  /** Embedded Temporal UI port. @default 8233 */
  EMBEDDED_TEMPORAL_UI_PORT: port.default(8233),
  /**
   * Embedded mode: SQLite pragmas of the Temporal dev server's history file, comma-separated `name=value`
   * (e.g. `journal_mode=wal,synchronous=normal`: many times the message throughput on a small machine; a power loss,
   * not a process crash, may then lose the last transactions; see docs/benchmarks.md). @default none (Temporal's own)
   */
  EMBEDDED_TEMPORAL_SQLITE_PRAGMAS: z
    .string()
    .regex(/^[a-z_]+=[A-Za-z0-9_]+(,[a-z_]+=[A-Za-z0-9_]+)*$/, 'comma-separated name=value pairs')
    .optional(),
  /** Embedded FerretDB port. @default 27027 */
  EMBEDDED_MONGODB_PORT: port.default(27027),
  /** Cluster mode (`npm run cluster`, docs/cluster.md): folder of PostgreSQL's data, the logs and the keys. @default .agent-reach-cluster */
  CLUSTER_DATA_DIR: z.string().min(1).default('.agent-reach-cluster'),
  /** Cluster mode: the balancer's port (the api as callers and agents reach it); the two api replicas take the next two. @default 3300 */
  CLUSTER_PORT: port.max(65533).default(3300),
  /**
   * Cluster mode: the Temporal frontend's gRPC port; history, matching, worker, the internal frontend, the token keys'
   * JWKS and membership take the next 14 (below 32768: Temporal stores membership ports as a smallint). @default 7300
   */
  CLUSTER_TEMPORAL_PORT: port.max(32753).default(7300),
  /** Cluster mode: PostgreSQL's port. @default 5433 */
  CLUSTER_POSTGRES_PORT: port.default(5433),
  /** Cluster mode: FerretDB's port (MongoDB wire protocol, on PostgreSQL). @default 27030 */
  CLUSTER_MONGODB_PORT: port.default(27030),
  /** Cluster mode: worker processes. @default 2 */
  CLUSTER_WORKERS: z.coerce.number().int().min(1).max(16).default(2),
  /** Cluster mode: Temporal history shards, fixed when its database is first set up. @default 4 */
  CLUSTER_HISTORY_SHARDS: z.coerce.number().int().min(1).max(1024).default(4),
};

type LocalServersEnv = z.infer<z.ZodObject<typeof localServersShape>>;

/** Embedded mode's SQLite pragmas for Temporal's history file, as a list. */
export function temporalSqlitePragmas(config: LocalServersEnv): string[] {
  return config.EMBEDDED_TEMPORAL_SQLITE_PRAGMAS?.split(',') ?? [];
}
