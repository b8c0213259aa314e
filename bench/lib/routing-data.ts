/**
 * Labelled routing data as catalogues the router can read: CLINC150 (10 domain agents, 150 intent capabilities,
 * ≤ 10 train examples each) and our zh/en set (its catalog.json as agents would register it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentWithInstances } from '../../catalogue/agent-queries';
import type { AgentDoc, CapabilityDoc } from '../../store/agents';
import type { InstanceDoc } from '../../store/agent-instances';

export const DATA_DIR = process.env.ROUTING_DATA_DIR ?? join(__dirname, '..', 'data');

export interface LabelledRequest {
  text: string;
  /** `agent_id/capability`, or null when no capability should take it. */
  expected: string | null;
  acceptable?: string[];
  params?: Record<string, unknown>;
  kind: string;
}

export interface RoutingDataset {
  name: string;
  agents: AgentWithInstances[];
  /** Fitting split (train/val/dev). */
  fit: LabelledRequest[];
  /** Held-out split, when the data set has one. */
  test?: LabelledRequest[];
}

interface CardInput {
  agent_id: string;
  name: string;
  description: string;
  tags: string[];
  capabilities: {
    name: string;
    description: string;
    tags?: string[];
    examples?: string[];
    parameters?: unknown;
    returns?: unknown;
  }[];
}

/** A healthy instance that beat just now, so eligibility never hides what the benchmark measures. */
export function liveInstance(agentId: string, tenant: string, now: Date, instanceId = 'i1'): InstanceDoc {
  return {
    _id: `${agentId}/${instanceId}`,
    agent_id: agentId,
    tenant,
    instance_id: instanceId,
    transport: 'http',
    endpoint: `http://127.0.0.1:9/${agentId}/${instanceId}`,
    state: 'healthy',
    load: { in_flight: 0, qps: 0 },
    last_heartbeat_at: now,
    liveness: 'online',
    liveness_changed_at: now,
    created_at: now,
  };
}

export function agentFromCard(card: CardInput, tenant: string, now = new Date()): AgentWithInstances {
  const capabilities: CapabilityDoc[] = card.capabilities.map((c) => ({
    name: c.name,
    description: c.description,
    tags: c.tags ?? [],
    examples: c.examples ?? [],
    ...(c.parameters ? { parameters_json: JSON.stringify(c.parameters) } : {}),
    ...(c.returns ? { returns_json: JSON.stringify(c.returns) } : {}),
  }));
  const agent = {
    _id: card.agent_id,
    tenant,
    name: card.name,
    version: '1',
    revision: 1,
    description: card.description,
    tags: card.tags,
    capabilities,
    search_text: '',
    capability_names: capabilities.map((c) => c.name),
    all_tags: card.tags,
    secret_hash: '',
    created_at: now,
    updated_at: now,
  } satisfies AgentDoc;
  return { agent, instances: [liveInstance(card.agent_id, tenant, now)] };
}

export function loadZhRouting(tenant = 'bench'): RoutingDataset {
  const dir = join(DATA_DIR, 'zh-routing');
  const catalog = JSON.parse(readFileSync(join(dir, 'catalog.json'), 'utf8')) as { agents: CardInput[] };
  const dev = readFileSync(join(dir, 'dev.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as LabelledRequest);
  return { name: 'zh-routing', agents: catalog.agents.map((a) => agentFromCard(a, tenant)), fit: dev };
}

/** "what_is_your_name" → "What is your name": CLINC150 gives intent names only; this is the description. */
function describeIntent(intent: string, domain: string): string {
  const words = intent.replace(/_/g, ' ');
  return `${words.charAt(0).toUpperCase()}${words.slice(1)} (${domain.replace(/_/g, ' ')})`;
}

export function loadClinc150(examplesPerIntent = 10, tenant = 'bench'): RoutingDataset {
  const dir = join(DATA_DIR, 'clinc150');
  const data = JSON.parse(readFileSync(join(dir, 'data_full.json'), 'utf8')) as Record<string, [string, string][]>;
  const domains = JSON.parse(readFileSync(join(dir, 'domains.json'), 'utf8')) as Record<string, string[]>;
  const examples = new Map<string, string[]>();
  for (const [text, intent] of data.train!) {
    const list = examples.get(intent) ?? [];
    if (list.length < examplesPerIntent) list.push(text);
    examples.set(intent, list);
  }
  const domainOf = new Map<string, string>();
  const agents = Object.entries(domains).map(([domain, intents]) => {
    for (const intent of intents) domainOf.set(intent, domain);
    return agentFromCard(
      {
        agent_id: domain.replace(/_/g, '-'),
        name: domain,
        description: `Handles ${domain.replace(/_/g, ' ')} requests`,
        tags: [],
        capabilities: intents.map((intent) => ({
          name: intent,
          description: describeIntent(intent, domain),
          examples: examples.get(intent) ?? [],
        })),
      },
      tenant,
    );
  });
  const label = (intent: string) => `${domainOf.get(intent)!.replace(/_/g, '-')}/${intent}`;
  const rows = (split: string, inScope: boolean): LabelledRequest[] =>
    data[split]!.map(([text, intent]) => ({
      text,
      expected: inScope ? label(intent) : null,
      kind: inScope ? 'in_scope' : 'out_of_scope',
    }));
  return {
    name: 'clinc150',
    agents,
    fit: [...rows('val', true), ...rows('oos_val', false)],
    test: [...rows('test', true), ...rows('oos_test', false)],
  };
}
