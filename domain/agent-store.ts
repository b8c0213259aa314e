/** Catalogue operations over the agent model; returns tagged results, never HTTP concepts. */
import { hashSecret, newAgentId, newAgentSecret } from './ids';
import type { AgentDoc, AgentModel, CapabilityDoc, InstanceDoc } from './agent-model';

export interface CapabilityInput {
  name: string;
  description?: string;
  tags?: string[];
  parameters?: Record<string, unknown>;
  returns?: Record<string, unknown>;
  examples?: string[];
  ack_timeout_ms?: number;
}

export interface InstanceInput {
  instance_id?: string;
  endpoint: string;
}

export interface RegisterAgentInput {
  name: string;
  version?: string;
  description?: string;
  tags?: string[];
  /** Shorthand for one instance at this endpoint. */
  endpoint?: string;
  instances?: InstanceInput[];
  capabilities: CapabilityInput[];
}

export type RegisterResult = { kind: 'registered'; agent: AgentDoc; secret: string } | { kind: 'name_taken' };

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
  | { kind: 'no_endpoint' };

function isDuplicateKey(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}

function toCapabilityDoc(input: CapabilityInput): CapabilityDoc {
  return {
    name: input.name,
    description: input.description ?? '',
    tags: input.tags ?? [],
    examples: input.examples ?? [],
    ...(input.parameters ? { parameters_json: JSON.stringify(input.parameters) } : {}),
    ...(input.returns ? { returns_json: JSON.stringify(input.returns) } : {}),
    ...(input.ack_timeout_ms ? { ack_timeout_ms: input.ack_timeout_ms } : {}),
  };
}

function toInstanceDocs(input: RegisterAgentInput, now: Date): InstanceDoc[] {
  const instances = input.instances ?? (input.endpoint ? [{ endpoint: input.endpoint }] : []);
  return instances.map((instance, index) => ({
    instance_id: instance.instance_id ?? `i${index + 1}`,
    transport: 'http',
    endpoint: instance.endpoint,
    state: 'healthy',
    last_heartbeat_at: now,
  }));
}

export class AgentStore {
  constructor(
    private readonly model: AgentModel,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async register(tenant: string, input: RegisterAgentInput): Promise<RegisterResult> {
    const now = this.now();
    const secret = newAgentSecret();
    const doc: AgentDoc = {
      _id: newAgentId(),
      tenant,
      name: input.name,
      version: input.version ?? '1',
      description: input.description ?? '',
      tags: input.tags ?? [],
      capabilities: input.capabilities.map(toCapabilityDoc),
      instances: toInstanceDocs(input, now),
      secret_hash: hashSecret(secret),
      created_at: now,
      updated_at: now,
    };
    try {
      await this.model.create(doc);
    } catch (error) {
      if (isDuplicateKey(error)) return { kind: 'name_taken' };
      throw error;
    }
    return { kind: 'registered', agent: doc, secret };
  }

  async get(tenant: string, agentId: string): Promise<AgentDoc | null> {
    return this.model.findOne({ _id: agentId, tenant }).lean<AgentDoc>().exec();
  }

  /** The agent owning this secret, in any tenant (the secret is the agent's identity). */
  async findBySecret(secret: string): Promise<AgentDoc | null> {
    return this.model.findOne({ secret_hash: hashSecret(secret) }).lean<AgentDoc>().exec();
  }

  async findTarget(tenant: string, agentId: string, capability: string): Promise<TargetLookup> {
    const agent = await this.get(tenant, agentId);
    return targetOf(agent, capability);
  }
}

/** The first instance of `agent` able to take `capability` over HTTP (routing across instances comes later). */
export function targetOf(agent: AgentDoc | null, capability: string): TargetLookup {
  if (!agent) return { kind: 'unknown_agent' };
  const found = agent.capabilities.find((c) => c.name === capability);
  if (!found) return { kind: 'unknown_capability' };
  const instance = agent.instances.find((i) => i.transport === 'http' && i.endpoint && i.state !== 'draining');
  if (!instance?.endpoint) return { kind: 'no_endpoint' };
  return {
    kind: 'found',
    target: {
      agent_id: agent._id,
      capability: found.name,
      instance_id: instance.instance_id,
      endpoint: instance.endpoint,
      ...(found.ack_timeout_ms ? { ack_timeout_ms: found.ack_timeout_ms } : {}),
    },
  };
}

export interface AgentView {
  agent_id: string;
  tenant: string;
  name: string;
  version: string;
  description: string;
  tags: string[];
  capabilities: (Omit<CapabilityDoc, 'parameters_json' | 'returns_json'> & { parameters?: unknown; returns?: unknown })[];
  instances: InstanceDoc[];
  created_at: Date;
  updated_at: Date;
}

/** What the API shows of an agent: never the secret's hash. */
export function agentView(agent: AgentDoc): AgentView {
  return {
    agent_id: agent._id,
    tenant: agent.tenant,
    name: agent.name,
    version: agent.version,
    description: agent.description,
    tags: agent.tags,
    capabilities: agent.capabilities.map(({ parameters_json, returns_json, ...rest }) => ({
      ...rest,
      ...(parameters_json ? { parameters: JSON.parse(parameters_json) as unknown } : {}),
      ...(returns_json ? { returns: JSON.parse(returns_json) as unknown } : {}),
    })),
    instances: agent.instances,
    created_at: agent.created_at,
    updated_at: agent.updated_at,
  };
}
