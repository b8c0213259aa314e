/** What the API shows of agents and their instances: never a secret or its hash. */
import type { AgentWithInstances } from './agent-queries';
import { isOnline, type HeartbeatPolicy } from '../rules/liveness';
import type { AgentEventDoc } from '../store/agent-events';
import type { AgentDoc, CapabilityDoc } from '../store/agents';
import type { InstanceDoc } from '../store/agent-instances';

export interface CapabilityView extends Omit<CapabilityDoc, 'parameters_json' | 'returns_json'> {
  parameters?: unknown;
  returns?: unknown;
}

export function capabilityView({ parameters_json, returns_json, ...rest }: CapabilityDoc): CapabilityView {
  return {
    ...rest,
    ...(parameters_json ? { parameters: JSON.parse(parameters_json) as unknown } : {}),
    ...(returns_json ? { returns: JSON.parse(returns_json) as unknown } : {}),
  };
}

export function instanceView(instance: InstanceDoc, now: Date, policy: HeartbeatPolicy) {
  return {
    instance_id: instance.instance_id,
    transport: instance.transport,
    ...(instance.endpoint ? { endpoint: instance.endpoint } : {}),
    state: instance.state,
    load: { in_flight: instance.load?.in_flight ?? 0, qps: instance.load?.qps ?? 0 },
    /** Derived from the heartbeat age at read time, so it is never stale. */
    online: isOnline(instance.last_heartbeat_at, now, policy),
    last_heartbeat_at: instance.last_heartbeat_at,
    liveness_changed_at: instance.liveness_changed_at,
  };
}

/** Where an imported agent came from, with the card it was imported from (kept as JSON text) as JSON. */
function sourceView({ card_json, ...rest }: NonNullable<AgentDoc['source']>) {
  return { ...rest, ...(card_json ? { card: JSON.parse(card_json) as unknown } : {}) };
}

export function agentView({ agent, instances }: AgentWithInstances, now: Date, policy: HeartbeatPolicy) {
  const instanceViews = instances.map((i) => instanceView(i, now, policy));
  return {
    agent_id: agent._id,
    tenant: agent.tenant,
    name: agent.name,
    version: agent.version,
    revision: agent.revision,
    description: agent.description,
    tags: agent.tags,
    capabilities: agent.capabilities.map(capabilityView),
    instances: instanceViews,
    online: instanceViews.some((i) => i.online),
    ...(agent.source ? { source: sourceView(agent.source) } : {}),
    created_at: agent.created_at,
    updated_at: agent.updated_at,
  };
}

export function eventView(event: AgentEventDoc) {
  return {
    type: event.type,
    at: event.at,
    ...(event.instance_id ? { instance_id: event.instance_id } : {}),
    ...(event.details ? { details: event.details } : {}),
  };
}
