/** Turning a registration (or update) input into the stored card fields. */
import type { CapabilityAcl } from '../rules/acl';
import type { AgentDoc, CapabilityDoc } from '../store/agents';
import type { InstanceState, Transport } from '../store/agent-instances';

/** The stored capability's JSON Schemas, which it keeps as text (store/agents.ts). */
type SchemaText = 'parameters_json' | 'returns_json';
/** Stored fields with a default: a registration may leave them out. */
type Defaulted = 'description' | 'tags' | 'examples';

/** A capability as registered: the stored one (`CapabilityDoc`) with its JSON Schemas as objects, its defaults optional. */
export type CapabilityInput = Omit<CapabilityDoc, SchemaText | Defaulted> &
  Partial<Pick<CapabilityDoc, Defaulted>> & {
    parameters?: Record<string, unknown>;
    returns?: Record<string, unknown>;
  };

export interface InstanceInput {
  instance_id?: string;
  transport?: Transport;
  endpoint?: string;
  state?: InstanceState;
  ws_task_queue?: string;
  /** Not seen alive yet: starts offline (an A2A agent imported from an inline card, until its card answers). */
  unconfirmed?: boolean;
}

export interface AgentCardInput {
  name: string;
  version?: string;
  description?: string;
  tags?: string[];
  /** Shorthand for one HTTP instance at this endpoint. */
  endpoint?: string;
  instances?: InstanceInput[];
  capabilities: CapabilityInput[];
}

export type CardFields = Pick<
  AgentDoc,
  'name' | 'version' | 'description' | 'tags' | 'capabilities' | 'search_text' | 'capability_names' | 'all_tags'
>;

function toCapabilityDoc(input: CapabilityInput): CapabilityDoc {
  return {
    name: input.name,
    description: input.description ?? '',
    tags: input.tags ?? [],
    examples: input.examples ?? [],
    ...(input.counter_examples?.length ? { counter_examples: input.counter_examples } : {}),
    ...(input.parameters ? { parameters_json: JSON.stringify(input.parameters) } : {}),
    ...(input.returns ? { returns_json: JSON.stringify(input.returns) } : {}),
    ...(input.ack_timeout_ms ? { ack_timeout_ms: input.ack_timeout_ms } : {}),
    ...(input.max_attempts ? { max_attempts: input.max_attempts } : {}),
    ...(input.max_delivery_ms ? { max_delivery_ms: input.max_delivery_ms } : {}),
    ...(input.max_concurrency ? { max_concurrency: input.max_concurrency } : {}),
    ...(input.acl ? { acl: aclOf(input.acl) } : {}),
    ...(input.private ? { private: true } : {}),
  };
}

/** The ACL as stored: only the lists that were given. */
function aclOf(acl: CapabilityAcl): CapabilityAcl {
  const { scopes, key_ids, subjects, groups } = acl;
  return {
    ...(scopes ? { scopes } : {}),
    ...(key_ids ? { key_ids } : {}),
    ...(subjects ? { subjects } : {}),
    ...(groups ? { groups } : {}),
  };
}

export function cardFields(input: AgentCardInput): CardFields {
  const capabilities = input.capabilities.map(toCapabilityDoc);
  const tags = input.tags ?? [];
  const allTags = [...new Set([...tags, ...capabilities.flatMap((c) => c.tags)])];
  const searchText = [
    input.name,
    input.description ?? '',
    ...allTags,
    ...capabilities.flatMap((c) => [c.name, c.description, ...c.examples]),
  ]
    .join('\n')
    .toLowerCase();
  return {
    name: input.name,
    version: input.version ?? '1',
    description: input.description ?? '',
    tags,
    capabilities,
    search_text: searchText,
    capability_names: capabilities.map((c) => c.name),
    all_tags: allTags,
  };
}

/** The instances named by the input, with ids filled in (`i1`, `i2`, … when absent). */
export type ResolvedInstanceInput = InstanceInput & { instance_id: string; transport: Transport };

export function instanceInputs(input: Pick<AgentCardInput, 'endpoint' | 'instances'>): ResolvedInstanceInput[] {
  const instances = input.instances ?? (input.endpoint ? [{ endpoint: input.endpoint }] : []);
  return instances.map((instance, index) => ({
    ...instance,
    instance_id: instance.instance_id ?? `i${index + 1}`,
    transport: instance.transport ?? 'http',
  }));
}
