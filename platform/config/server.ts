import { z } from 'zod';
import { flag, port } from './fields';

/**
 * Server: where the api listens and how agents reach it, the largest request it reads, and where the message worker
 * runs and how much it runs at once.
 */
export const serverShape = {
  /** Port the api listens on. @default 3000 */
  API_PORT: port.default(3000),
  /** Interface the api binds to. @default 127.0.0.1 (use 0.0.0.0 in containers) */
  API_HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * Base URL under which agents reach the api (callback URL in deliveries, links in responses).
   * @default http://{API_HOST or 127.0.0.1}:{API_PORT}
   */
  PUBLIC_URL: z.url().optional(),
  /** Largest accepted request body, in bytes. @default 1048576 (1 MiB) */
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  /**
   * The api process also runs the message worker, and starts message runs eagerly: the first workflow task comes
   * back in the start's answer and runs here, with no task round trip through the server. For one-process setups:
   * embedded mode (`npm start`) sets it unless it is set to false; production runs `npm run worker` separately and
   * leaves this off. @default false
   */
  API_RUNS_WORKER: flag.default(false),
  /** Worker tuning: activities run at once by one worker (Temporal's maxConcurrentActivityTaskExecutions). @default the SDK's (100) */
  WORKER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().min(1).optional(),
  /**
   * Worker tuning: workflow tasks run at once (maxConcurrentWorkflowTaskExecutions); lower it when workflow tasks
   * time out on a starved CPU. At least 2. @default the SDK's (40)
   */
  WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().min(2).optional(),
  /** Worker tuning: workflows kept in the worker's cache (maxCachedWorkflows). @default the SDK's (from the heap size) */
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).optional(),
};

type ServerEnv = z.infer<z.ZodObject<typeof serverShape>>;

/** The worker's tuning knobs that are set (Temporal's defaults apply to the others). */
export function workerTuning(config: ServerEnv) {
  return {
    ...(config.WORKER_MAX_CONCURRENT_ACTIVITIES
      ? { maxConcurrentActivityTaskExecutions: config.WORKER_MAX_CONCURRENT_ACTIVITIES }
      : {}),
    ...(config.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS
      ? { maxConcurrentWorkflowTaskExecutions: config.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS }
      : {}),
    ...(config.WORKER_MAX_CACHED_WORKFLOWS !== undefined
      ? { maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS }
      : {}),
  };
}
