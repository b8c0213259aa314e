/** The unit the router chooses among: one capability of one agent, with what is known of its instances. */
import type { AgentWithInstances } from '../catalogue/agent-queries';
import type { CapabilityDoc } from '../store/agents';

export interface CapabilityCandidate {
  /** `agent_id/capability` */
  key: string;
  agent_id: string;
  agent_name: string;
  agent_description: string;
  agent_tags: string[];
  capability: CapabilityDoc;
  instances: AgentWithInstances['instances'];
}

export function candidateKey(agentId: string, capability: string): string {
  return `${agentId}/${capability}`;
}

/** The catalogue copy hands out the same array until it reloads: its candidates are built once per copy. */
const built = new WeakMap<readonly AgentWithInstances[], CapabilityCandidate[]>();

export function candidatesOf(agents: readonly AgentWithInstances[]): CapabilityCandidate[] {
  let candidates = built.get(agents);
  if (!candidates) {
    candidates = buildCandidates(agents);
    built.set(agents, candidates);
  }
  return candidates;
}

function buildCandidates(agents: readonly AgentWithInstances[]): CapabilityCandidate[] {
  return agents.flatMap(({ agent, instances }) =>
    agent.capabilities.map((capability) => ({
      key: candidateKey(agent._id, capability.name),
      agent_id: agent._id,
      agent_name: agent.name,
      agent_description: agent.description,
      agent_tags: agent.tags,
      capability,
      instances,
    })),
  );
}

/**
 * What the matchers were built from: each agent and the revision of its card. Heartbeats, load and liveness change
 * the catalogue (and its change counter) all the time without touching a capability; only a new revision, a new
 * agent or a removed one changes this, and only then is a matcher rebuilt.
 */
const fingerprints = new WeakMap<readonly AgentWithInstances[], string>();

export function cardsFingerprint(agents: readonly AgentWithInstances[]): string {
  let fingerprint = fingerprints.get(agents);
  if (fingerprint === undefined) {
    fingerprint = agents.map(({ agent }) => `${agent._id}@${agent.revision}`).join(',');
    fingerprints.set(agents, fingerprint);
  }
  return fingerprint;
}

/** "query_order_status" → "query order status": names carry meaning for the matchers too. */
export function humanName(name: string): string {
  return name.replace(/[_\-.]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/** The capability's own description, as the matchers read it. */
export function describe(candidate: CapabilityCandidate): string {
  return `${humanName(candidate.capability.name)}: ${candidate.capability.description}`;
}
