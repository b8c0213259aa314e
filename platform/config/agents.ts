import { z } from 'zod';
import { DEFAULT_MAX_INSTANCES_PER_AGENT } from '../../rules/liveness';
import { positiveMs } from './fields';

/**
 * Agents and the catalogue: what one agent may declare, heartbeats and when an instance is offline, agent events,
 * and how fresh each process keeps its copy of the catalogue.
 */
export const agentsShape = {
  /** Capabilities one agent may declare (at most 1000). @default 100 */
  MAX_CAPABILITIES_PER_AGENT: z.coerce.number().int().min(1).max(1000).default(100),
  /**
   * Instances one agent may have (at least 50, the most a registration lists; at most 10000). A heartbeat that would
   * add one more pushes out the agent's longest-silent offline instance, or is refused 422 `too_many_instances` when
   * every one is online. @default 64
   */
  MAX_INSTANCES_PER_AGENT: z.coerce.number().int().min(50).max(10_000).default(DEFAULT_MAX_INSTANCES_PER_AGENT),
  /** Heartbeat period asked of agents, in ms (returned at registration and on each heartbeat). @default 10000 */
  HEARTBEAT_INTERVAL_MS: positiveMs.default(10_000),
  /** Age of the last heartbeat after which one window counts as missed, in ms. @default 60000 */
  HEARTBEAT_TTL_MS: positiveMs.default(60_000),
  /**
   * TTL windows without any heartbeat before an instance is offline: 1 → offline after 60 s;
   * the seeds' tolerance ("any beat within the last 3 windows") is 3. @default 1
   */
  HEARTBEAT_GRACE_WINDOWS: z.coerce.number().int().min(1).max(10).default(1),
  /**
   * Longest time an api replica goes without writing an instance's heartbeat to the database, in ms; beats in
   * between are answered from memory unless state or endpoint change. At most half the TTL. @default 15000
   */
  HEARTBEAT_WRITE_EVERY_MS: positiveMs.default(15_000),
  /** How often each api replica looks for silent instances to mark offline, in ms. @default 5000 */
  SWEEP_INTERVAL_MS: positiveMs.default(5_000),
  /** How long agent events (registered, online, offline, …) are kept; the sweeper deletes older ones, in ms. @default 604800000 (7 days) */
  AGENT_EVENT_RETENTION_MS: positiveMs.default(604_800_000),
  /** How often each process checks the catalogue's change counter to refresh its in-memory copy, in ms. @default 1000 */
  CATALOGUE_REFRESH_MS: positiveMs.default(1_000),
  /** Oldest the in-memory catalogue may get (load and heartbeat figures change without a counter bump), in ms. @default 10000 */
  CATALOGUE_MAX_STALENESS_MS: positiveMs.default(10_000),
};

type AgentsEnv = z.infer<z.ZodObject<typeof agentsShape>>;

/** The heartbeat knobs as the catalogue uses them. */
export function heartbeatPolicy(config: AgentsEnv) {
  return {
    intervalMs: config.HEARTBEAT_INTERVAL_MS,
    ttlMs: config.HEARTBEAT_TTL_MS,
    graceWindows: config.HEARTBEAT_GRACE_WINDOWS,
  };
}

/** HEARTBEAT_WRITE_EVERY_MS is at most half of HEARTBEAT_TTL_MS. */
export function checkHeartbeatWrites(env: AgentsEnv, ctx: z.RefinementCtx): void {
  if (env.HEARTBEAT_WRITE_EVERY_MS > env.HEARTBEAT_TTL_MS / 2) {
    ctx.addIssue({
      code: 'custom',
      path: ['HEARTBEAT_WRITE_EVERY_MS'],
      message: 'must be at most half of HEARTBEAT_TTL_MS',
    });
  }
}
