import { z } from 'zod';
import { DEFAULT_TASK_QUEUE } from '../temporal-names';

/**
 * Temporal and MongoDB: the servers that keep the gateway's state — where they are, the Temporal namespace and task
 * queue, and the token the gateway presents to Temporal.
 */
export const storageShape = {
  /** Temporal frontend, host:port; when set, `npm start` starts no Temporal. @default localhost:7233 */
  TEMPORAL_ADDRESS: z.string().min(1).default('localhost:7233'),
  /**
   * A token the api and worker present to Temporal (the SDK's `apiKey`: `Authorization: Bearer …`), for a server that
   * authorizes calls: a JWT granting the gateway's namespace (cluster mode mints one per process, docs/cluster.md;
   * elsewhere from your IdP). A secret. Optional (embedded mode's dev server checks none).
   */
  TEMPORAL_API_KEY: z
    .string()
    .regex(/^[A-Za-z0-9._~+/=-]{16,8192}$/, 'a bearer token: 16–8192 URL-safe or base64 characters, no spaces')
    .optional(),
  /** Temporal namespace. @default default */
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  /** Task queue served by the worker. @default agent-reach */
  TEMPORAL_TASK_QUEUE: z.string().min(1).default(DEFAULT_TASK_QUEUE),
  /** Temporal UI base URL, used only to build links for operators (`links.temporal_ui`; embedded mode: the local UI). Optional. */
  TEMPORAL_UI_URL: z.url().optional(),
  /** MongoDB (or FerretDB) connection string, database included; when set, `npm start` starts no FerretDB. @default mongodb://127.0.0.1:27017/agent-reach */
  MONGODB_URI: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'must start with mongodb:// or mongodb+srv://')
    .default('mongodb://127.0.0.1:27017/agent-reach'),
};
