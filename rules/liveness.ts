/** Whether an instance is alive, and which instance takes a delivery. Pure functions. */
import type { Transport } from './transport';

export interface HeartbeatPolicy {
  /** How often agents are asked to beat, in ms (advertised to them). */
  intervalMs: number;
  /** Age of the last heartbeat after which one window is missed, in ms. */
  ttlMs: number;
  /**
   * TTL windows without any heartbeat before an instance counts as offline. 1 = offline after one TTL;
   * the seeds' "any beat within the last 3 windows" tolerance is 3.
   */
  graceWindows: number;
}

export function offlineAfterMs(policy: HeartbeatPolicy): number {
  return policy.ttlMs * policy.graceWindows;
}

export function isOnline(lastHeartbeatAt: Date, now: Date, policy: HeartbeatPolicy): boolean {
  return now.getTime() - lastHeartbeatAt.getTime() <= offlineAfterMs(policy);
}

/** Instances whose last heartbeat is before this are offline. */
export function offlineCutoff(now: Date, policy: HeartbeatPolicy): Date {
  return new Date(now.getTime() - offlineAfterMs(policy));
}

/** The default of MAX_INSTANCES_PER_AGENT: above the 50 instances a registration may list. */
export const DEFAULT_MAX_INSTANCES_PER_AGENT = 64;

/**
 * Which of an agent's instances a new one pushes out so the agent stays within `limit` instances: offline ones
 * only, the longest silent first, as few as will do. Undefined when too few are offline: the new one is refused.
 * So a fleet restarted under new instance ids takes the old ids' places once they are offline, and no more.
 */
export function instancesToPrune<T extends { _id: string; last_heartbeat_at: Date }>(
  instances: readonly T[],
  now: Date,
  policy: HeartbeatPolicy,
  limit: number,
): string[] | undefined {
  const excess = instances.length + 1 - limit;
  if (excess <= 0) return [];
  const offline = instances.filter((i) => !isOnline(i.last_heartbeat_at, now, policy));
  if (offline.length < excess) return undefined;
  offline.sort((a, b) => a.last_heartbeat_at.getTime() - b.last_heartbeat_at.getTime());
  return offline.slice(0, excess).map((i) => i._id);
}

/** What these rules read of an instance (a stored instance, store/agent-instances.ts, is one). */
export interface Candidate {
  instance_id: string;
  transport: Transport;
  endpoint?: string;
  ws_task_queue?: string;
  state: 'healthy' | 'busy' | 'draining';
  load: { in_flight: number };
  last_heartbeat_at: Date;
}

/** Why an instance cannot take a delivery now, or undefined when it can. */
export function ineligibility(instance: Candidate, now: Date, policy: HeartbeatPolicy): string | undefined {
  if (!isOnline(instance.last_heartbeat_at, now, policy)) return 'offline';
  if (instance.state === 'draining') return 'draining';
  if (instance.transport !== 'websocket' && !instance.endpoint) return 'no_http_endpoint';
  if (instance.transport === 'websocket' && !instance.ws_task_queue) return 'no_socket';
  return undefined;
}

/**
 * The instance that takes the next delivery: online and not draining; healthy before busy; then the lightest
 * load; then the instance id, so the choice is stable.
 */
export function pickInstance<T extends Candidate>(instances: T[], now: Date, policy: HeartbeatPolicy): T | undefined {
  const eligible = instances.filter((i) => ineligibility(i, now, policy) === undefined);
  eligible.sort(
    (a, b) =>
      Number(a.state === 'busy') - Number(b.state === 'busy') ||
      a.load.in_flight - b.load.in_flight ||
      (a.instance_id < b.instance_id ? -1 : a.instance_id > b.instance_id ? 1 : 0),
  );
  return eligible[0];
}
