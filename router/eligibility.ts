/**
 * The eligibility stage: whether a capability can take a message now, and from which instance. Pure: the caller
 * passes the clock, the heartbeat policy, the open circuits and the ACL hook.
 */
import type { PartialCaller } from '../rules/api-key';
import { instanceKey } from '../rules/ids';
import { ineligibility, pickInstance, type HeartbeatPolicy } from '../rules/liveness';
import type { InstanceDoc } from '../store/agent-instances';
import type { CapabilityCandidate } from './candidates';

/** Whether `caller` may reach the capability; `reason` is for admins' eyes. */
export type AclCheck = (caller: PartialCaller, candidate: CapabilityCandidate) => { allowed: boolean; reason?: string };

export const allowAll: AclCheck = () => ({ allowed: true });

export interface EligibilityContext {
  now: Date;
  heartbeat: HeartbeatPolicy;
  /** `agent_id/instance_id` of instances whose circuit is open. */
  openCircuits: ReadonlySet<string>;
  caller: PartialCaller;
  acl: AclCheck;
}

export type Eligibility =
  | { eligible: true; instance: InstanceDoc; busy: boolean; in_flight: number; capacity?: number }
  | { eligible: false; reason: string; detail?: string };

export function eligibility(candidate: CapabilityCandidate, context: EligibilityContext): Eligibility {
  const access = context.acl(context.caller, candidate);
  if (!access.allowed)
    return { eligible: false, reason: 'not_permitted', ...(access.reason ? { detail: access.reason } : {}) };
  if (candidate.instances.length === 0) return { eligible: false, reason: 'no_instance' };
  const closed = candidate.instances.filter(
    (i) => !context.openCircuits.has(instanceKey(candidate.agent_id, i.instance_id)),
  );
  if (closed.length === 0) return { eligible: false, reason: 'circuit_open' };
  const instance = pickInstance(closed, context.now, context.heartbeat);
  if (!instance) {
    const reasons = new Set(closed.map((i) => ineligibility(i, context.now, context.heartbeat) ?? 'unavailable'));
    return { eligible: false, reason: reasons.has('draining') && !reasons.has('offline') ? 'draining' : 'offline' };
  }
  const online = closed.filter((i) => ineligibility(i, context.now, context.heartbeat) === undefined);
  const inFlight = online.reduce((sum, i) => sum + (i.load?.in_flight ?? 0), 0);
  const capacity = candidate.capability.max_concurrency;
  if (capacity !== undefined && inFlight >= capacity)
    return { eligible: false, reason: 'at_capacity', detail: `${inFlight} in flight of ${capacity}` };
  return {
    eligible: true,
    instance,
    busy: instance.state === 'busy',
    in_flight: inFlight,
    ...(capacity === undefined ? {} : { capacity }),
  };
}
