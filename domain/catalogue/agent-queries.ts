/** Reads of the catalogue: one agent, search, events, and where a delivery goes now. */
import type { FilterQuery } from 'mongoose';
import { groupBy } from '../group-by';
import { ineligibility, offlineAfterMs, pickInstance, type HeartbeatPolicy } from './liveness';
import type { AgentDoc, AgentEventDoc, CatalogueModels, InstanceDoc, InstanceState } from './models';

export interface AgentWithInstances {
  agent: AgentDoc;
  instances: InstanceDoc[];
}

export const SEARCH_STATES = ['online', 'offline', 'healthy', 'busy', 'draining'] as const;
export type SearchState = (typeof SEARCH_STATES)[number];

export interface AgentSearch {
  tag?: string;
  capability?: string;
  state?: SearchState;
  /** Free text, matched case-insensitively against name, description, tags, capabilities and examples. */
  q?: string;
  limit: number;
  /** The last agent_id of the previous page. */
  cursor?: string;
}

/** Where one delivery goes. */
export interface DeliveryTarget {
  agent_id: string;
  capability: string;
  instance_id: string;
  endpoint: string;
  ack_timeout_ms?: number;
}

export type TargetLookup =
  | { kind: 'found'; target: DeliveryTarget }
  | { kind: 'unknown_agent' }
  | { kind: 'unknown_capability' }
  | { kind: 'no_available_instance'; instances: { instance_id: string; reason: string }[] };

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export class AgentQueries {
  private readonly now: () => Date;

  constructor(
    private readonly models: CatalogueModels,
    private readonly heartbeat: HeartbeatPolicy,
    now?: () => Date,
  ) {
    this.now = now ?? (() => new Date());
  }

  async get(tenant: string, agentId: string): Promise<AgentWithInstances | undefined> {
    const agent = await this.models.agents.findOne({ _id: agentId, tenant }).lean<AgentDoc>();
    if (!agent) return undefined;
    const instances = await this.models.instances.find({ agent_id: agentId }).sort({ _id: 1 }).lean<InstanceDoc[]>();
    return { agent, instances };
  }

  async search(tenant: string, search: AgentSearch): Promise<{ items: AgentWithInstances[]; next_cursor?: string }> {
    const filter: FilterQuery<AgentDoc> = { tenant };
    if (search.tag) filter.all_tags = search.tag;
    if (search.capability) filter.capability_names = search.capability;
    if (search.q) filter.search_text = { $regex: escapeRegex(search.q.toLowerCase()) };
    if (search.state) {
      const ids = await this.agentIdsWithInstances(tenant, search.state === 'offline' ? 'online' : search.state);
      filter._id = search.state === 'offline' ? { $nin: ids } : { $in: ids };
    }
    if (search.cursor) filter._id = { ...(filter._id as object | undefined), $gt: search.cursor };
    const agents = await this.models.agents.find(filter).sort({ _id: 1 }).limit(search.limit + 1).lean<AgentDoc[]>();
    const page = agents.slice(0, search.limit);
    const instances = await this.models.instances
      .find({ agent_id: { $in: page.map((a) => a._id) } })
      .sort({ _id: 1 })
      .lean<InstanceDoc[]>();
    const byAgent = groupBy(instances, (i) => i.agent_id);
    return {
      items: page.map((agent) => ({ agent, instances: byAgent.get(agent._id) ?? [] })),
      ...(agents.length > search.limit ? { next_cursor: page.at(-1)!._id } : {}),
    };
  }

  /** Ids of the tenant's agents with at least one instance online (derived from heartbeat age) in `state`. */
  private async agentIdsWithInstances(tenant: string, state: 'online' | InstanceState): Promise<string[]> {
    const cutoff = new Date(this.now().getTime() - offlineAfterMs(this.heartbeat));
    const filter: FilterQuery<InstanceDoc> = { tenant, last_heartbeat_at: { $gte: cutoff } };
    if (state !== 'online') filter.state = state;
    const rows = await this.models.instances.find(filter, { agent_id: 1 }).lean<Pick<InstanceDoc, 'agent_id'>[]>();
    return [...new Set(rows.map((r) => r.agent_id))];
  }

  async events(tenant: string, agentId: string, limit: number): Promise<AgentEventDoc[]> {
    return this.models.events.find({ tenant, agent_id: agentId }).sort({ at: -1, _id: -1 }).limit(limit).lean<AgentEventDoc[]>();
  }

  /** The instance that takes a delivery of `capability` now: online (by heartbeat age), not draining, least loaded. */
  async findTarget(tenant: string, agentId: string, capability: string): Promise<TargetLookup> {
    const found = await this.get(tenant, agentId);
    if (!found) return { kind: 'unknown_agent' };
    const cap = found.agent.capabilities.find((c) => c.name === capability);
    if (!cap) return { kind: 'unknown_capability' };
    const now = this.now();
    const instance = pickInstance(found.instances, now, this.heartbeat);
    if (!instance?.endpoint) {
      return {
        kind: 'no_available_instance',
        instances: found.instances.map((i) => ({
          instance_id: i.instance_id,
          reason: ineligibility(i, now, this.heartbeat) ?? 'unavailable',
        })),
      };
    }
    return {
      kind: 'found',
      target: {
        agent_id: agentId,
        capability: cap.name,
        instance_id: instance.instance_id,
        endpoint: instance.endpoint,
        ...(cap.ack_timeout_ms ? { ack_timeout_ms: cap.ack_timeout_ms } : {}),
      },
    };
  }
}
