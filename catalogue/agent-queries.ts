/** Reads of the catalogue: one agent, search, events, and where a delivery goes now. */
import { canReach } from '../rules/acl';
import type { CircuitStore } from '../store/circuits';
import type { Caller } from '../rules/api-key';
import { ineligibility, pickInstance, type HeartbeatPolicy } from '../rules/liveness';
import type { AgentDoc } from '../store/agents';
import type { AgentEventDoc } from '../store/agent-events';
import type { CatalogueModels } from '../store/models';
import type { InstanceDoc } from '../store/agent-instances';
import type { Transport } from '../rules/transport';

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

/** Where one delivery goes: an HTTP endpoint, an A2A interface, or the api replica holding the instance's WebSocket. */
export interface DeliveryTarget {
  agent_id: string;
  capability: string;
  instance_id: string;
  transport: Transport;
  endpoint: string;
  ws_task_queue?: string;
  ack_timeout_ms?: number;
  max_attempts?: number;
  max_delivery_ms?: number;
}

export type TargetLookup =
  | { kind: 'found'; target: DeliveryTarget }
  | { kind: 'unknown_agent' }
  | { kind: 'unknown_capability' }
  /** The caller may not reach this capability (its ACL); `reason` is for admins only. */
  | { kind: 'forbidden'; reason: string }
  | { kind: 'no_available_instance'; instances: { instance_id: string; reason: string }[] };

/** What a caller may send to: the capability exists and its ACL admits the caller. */
export type ReachCheck = { kind: 'ok' } | Exclude<TargetLookup, { kind: 'found' | 'no_available_instance' }>;

/** A process's in-memory copy of the catalogue (catalogue-index.ts), read first on the per-message path. */
export interface CatalogueCopy {
  agent(agentId: string, tenant?: string): AgentWithInstances | undefined;
}

export class AgentQueries {
  private readonly now: () => Date;

  constructor(
    private readonly models: CatalogueModels,
    private readonly heartbeat: HeartbeatPolicy,
    now?: () => Date,
    /** Instances with an open circuit are not chosen. */
    private readonly circuits?: Pick<CircuitStore, 'openInstances'>,
    /**
     * Read before the database by `checkReach`, `findTarget` and `signingSecrets`: a change reaches them within the
     * copy's refresh interval. What the copy lacks (an agent registered since, no available instance) is read from
     * the database.
     */
    private readonly copy?: CatalogueCopy,
  ) {
    this.now = now ?? (() => new Date());
  }

  async get(tenant: string, agentId: string): Promise<AgentWithInstances | undefined> {
    const agent = await this.models.agents.findOne({ _id: agentId, tenant }).lean<AgentDoc>();
    if (!agent) return undefined;
    const instances = await this.models.instances.find({ agent_id: agentId }).sort({ _id: 1 }).lean<InstanceDoc[]>();
    return { agent, instances };
  }

  async events(tenant: string, agentId: string, limit: number): Promise<AgentEventDoc[]> {
    return this.models.events
      .find({ tenant, agent_id: agentId })
      .sort({ at: -1, _id: -1 })
      .limit(limit)
      .lean<AgentEventDoc[]>();
  }

  /** The agent's record, from the copy when it has it (an A2A delivery reads the kept card from it). */
  async agentRecord(agentId: string): Promise<AgentDoc | undefined> {
    return (
      this.copy?.agent(agentId)?.agent ?? (await this.models.agents.findById(agentId).lean<AgentDoc>()) ?? undefined
    );
  }

  /** The secrets to sign deliveries to `agentId` with: the current one, and the previous one during its overlap. */
  async signingSecrets(agentId: string): Promise<string[]> {
    const agent =
      this.copy?.agent(agentId)?.agent ??
      (await this.models.agents
        .findById(agentId, { signing_secret: 1, previous_signing_secret: 1, previous_secret_expires_at: 1 })
        .lean<Pick<AgentDoc, 'signing_secret' | 'previous_signing_secret' | 'previous_secret_expires_at'>>());
    if (!agent?.signing_secret) return [];
    const previousValid =
      agent.previous_signing_secret &&
      agent.previous_secret_expires_at &&
      agent.previous_secret_expires_at > this.now();
    return previousValid ? [agent.signing_secret, agent.previous_signing_secret!] : [agent.signing_secret];
  }

  /**
   * The instance that takes a delivery of `capability` now: online (by heartbeat age), not draining, least loaded.
   * Instances in `avoid` (they already failed this message) are taken only when no other instance is eligible:
   * failing over needs somewhere else to go, and a lone instance is retried rather than abandoned.
   * With `caller`, a capability whose ACL does not admit the caller is `forbidden`.
   */
  async findTarget(
    tenant: string,
    agentId: string,
    capability: string,
    avoid: readonly string[] = [],
    caller?: Caller,
  ): Promise<TargetLookup> {
    const copied = this.copy?.agent(agentId, tenant);
    if (copied) {
      const lookup = await this.targetIn(copied, capability, avoid, caller);
      // Whatever the copy cannot offer is asked of the database (an instance may have come back since).
      if (lookup.kind !== 'no_available_instance' && lookup.kind !== 'unknown_capability') return lookup;
    }
    const found = await this.get(tenant, agentId);
    if (!found) return { kind: 'unknown_agent' };
    return this.targetIn(found, capability, avoid, caller);
  }

  /** Whether `caller` may send to the capability: it exists and its ACL admits the caller. No instance is chosen. */
  async checkReach(tenant: string, agentId: string, capability: string, caller: Caller): Promise<ReachCheck> {
    const copied = this.copy?.agent(agentId, tenant);
    const check = copied ? reachOf(copied, capability, caller) : undefined;
    if (check && check.kind !== 'unknown_capability') return check;
    const found = await this.get(tenant, agentId);
    return found ? reachOf(found, capability, caller) : { kind: 'unknown_agent' };
  }

  private async targetIn(
    found: AgentWithInstances,
    capability: string,
    avoid: readonly string[],
    caller?: Caller,
  ): Promise<TargetLookup> {
    const agentId = found.agent._id;
    const cap = found.agent.capabilities.find((c) => c.name === capability);
    if (!cap) return { kind: 'unknown_capability' };
    if (caller) {
      const verdict = reachOf(found, capability, caller);
      if (verdict.kind !== 'ok') return verdict;
    }
    const now = this.now();
    const open = (await this.circuits?.openInstances(agentId)) ?? new Set<string>();
    const closed = found.instances.filter((i) => !open.has(i.instance_id));
    const others = closed.filter((i) => !avoid.includes(i.instance_id));
    const instance = pickInstance(others, now, this.heartbeat) ?? pickInstance(closed, now, this.heartbeat);
    if (!instance) {
      return {
        kind: 'no_available_instance',
        instances: found.instances.map((i) => ({
          instance_id: i.instance_id,
          reason: open.has(i.instance_id) ? 'circuit_open' : (ineligibility(i, now, this.heartbeat) ?? 'unavailable'),
        })),
      };
    }
    return {
      kind: 'found',
      target: {
        agent_id: agentId,
        capability: cap.name,
        instance_id: instance.instance_id,
        transport: instance.transport,
        endpoint: instance.endpoint ?? `websocket:${instance.instance_id}`,
        ...(instance.ws_task_queue ? { ws_task_queue: instance.ws_task_queue } : {}),
        ...(cap.ack_timeout_ms ? { ack_timeout_ms: cap.ack_timeout_ms } : {}),
        ...(cap.max_attempts ? { max_attempts: cap.max_attempts } : {}),
        ...(cap.max_delivery_ms ? { max_delivery_ms: cap.max_delivery_ms } : {}),
      },
    };
  }
}

function reachOf(found: AgentWithInstances, capability: string, caller: Caller): ReachCheck {
  const cap = found.agent.capabilities.find((c) => c.name === capability);
  if (!cap) return { kind: 'unknown_capability' };
  const verdict = canReach(caller, { tenant: found.agent.tenant, ...(cap.acl ? { acl: cap.acl } : {}) });
  return verdict.allowed ? { kind: 'ok' } : { kind: 'forbidden', reason: verdict.reason ?? 'not allowed' };
}
