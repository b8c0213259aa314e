/** The unit the router chooses among: one capability of one agent, with what is known of its instances. */
import { createHash } from 'node:crypto';
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
  /** Requests its agents reported misrouted to it, applied as lessons (store/misroutes.ts): evidence against it. */
  misroutes?: readonly string[];
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
 * What the matchers were built from: the text of every card, as they read it (agent name and description, each
 * capability's name, description, tags, examples and counter-examples), hashed. Heartbeats, load and liveness
 * change the catalogue (and its change counter) all the time without touching a capability, and an agent may
 * register the same card again (a new revision, the same text): none of these changes the fingerprint, so none
 * retrains a head. Only a card whose text changed, a new agent or a removed one does.
 */
const fingerprints = new WeakMap<readonly AgentWithInstances[], string>();
const agentHashes = new WeakMap<AgentWithInstances['agent'], string>();

function agentHash(agent: AgentWithInstances['agent']): string {
  let hash = agentHashes.get(agent);
  if (hash === undefined) {
    const text = [
      agent._id,
      agent.name,
      agent.description,
      agent.capabilities.map((c) => [c.name, c.description, c.tags, c.examples, c.counter_examples ?? []]),
    ];
    hash = createHash('sha1').update(JSON.stringify(text)).digest('base64');
    agentHashes.set(agent, hash);
  }
  return hash;
}

export function cardsFingerprint(agents: readonly AgentWithInstances[]): string {
  let fingerprint = fingerprints.get(agents);
  if (fingerprint === undefined) {
    const hash = createHash('sha1');
    for (const { agent } of agents) hash.update(agentHash(agent)).update('\n');
    fingerprint = hash.digest('hex').slice(0, 16);
    fingerprints.set(agents, fingerprint);
  }
  return fingerprint;
}

/** "query_order_status" → "query order status": names carry meaning for the matchers too. */
export function humanName(name: string): string {
  return name
    .replace(/[_\-.]+/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
}

/** The capability's own description, as the matchers read it. */
export function describe(candidate: CapabilityCandidate): string {
  return `${humanName(candidate.capability.name)}: ${candidate.capability.description}`;
}
