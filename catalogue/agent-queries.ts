/** Reads of the catalogue: one agent, search, events, and where a delivery goes now. */
import { canReach } from '../rules/acl';
import type { CircuitStore } from '../store/circuits';
import type { Caller } from '../rules/api-key';
import { ineligibility, pickInstance, type HeartbeatPolicy } from '../rules/liveness';
import type { AgentDoc } from '../store/agents';
import type { AgentEventDoc } from '../store/agent-events';
import type { CatalogueModels } from '../store/models';
import type { InstanceDoc } from '../store/agent-instances';

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

/** Where one delivery goes: an HTTP endpoint, or the api replica holding the instance's WebSocket. */
export interface DeliveryTarget {
  agent_id: string;
  capability: string;
  instance_id: string;
  transport: 'http' | 'websocket';
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

export class AgentQueries {
  private readonly now: () => Date;

  constructor(
    private readonly models: CatalogueModels,
    private readonly heartbeat: HeartbeatPolicy,
    now?: () => Date,
    /** Instances with an open circuit are not chosen. */
    private readonly circuits?: Pick<CircuitStore, 'openInstances'>,
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
    return this.models.events.find({ tenant, agent_id: agentId }).sort({ at: -1, _id: -1 }).limit(limit).lean<AgentEventDoc[]>();
  }

  /** The secrets to sign deliveries to `agentId` with: the current one, and the previous one during its overlap. */
  async signingSecrets(agentId: string): Promise<string[]> {
    const agent = await this.models.agents
      .findById(agentId, { signing_secret: 1, previous_signing_secret: 1, previous_secret_expires_at: 1 })
      .lean<Pick<AgentDoc, 'signing_secret' | 'previous_signing_secret' | 'previous_secret_expires_at'>>();
    if (!agent?.signing_secret) return [];
    const previousValid = agent.previous_signing_secret && agent.previous_secret_expires_at && agent.previous_secret_expires_at > this.now();
    return previousValid ? [agent.signing_secret, agent.previous_signing_secret!] : [agent.signing_secret];
  }

  /**
   * The instance that takes a delivery of `capability` now: online (by heartbeat age), not draining, least loaded.
   * Instances in `avoid` (they already failed this message) are taken only when no other instance is eligible:
   * failing over needs somewhere else to go, and a lone instance is retried rather than abandoned.
   * With `caller`, a capability whose ACL does not admit the caller is `forbidden`.
   */
  async findTarget(tenant: string, agentId: string, capability: string, avoid: readonly string[] = [], caller?: Caller): Promise<TargetLookup> {
    const found = await this.get(tenant, agentId);
    if (!found) return { kind: 'unknown_agent' };
    const cap = found.agent.capabilities.find((c) => c.name === capability);
    if (!cap) return { kind: 'unknown_capability' };
    if (caller) {
      const verdict = canReach(caller, { tenant: found.agent.tenant, ...(cap.acl ? { acl: cap.acl } : {}) });
      if (!verdict.allowed) return { kind: 'forbidden', reason: verdict.reason ?? 'not allowed' };
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
