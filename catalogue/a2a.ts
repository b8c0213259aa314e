/**
 * A2A Agent Cards (`/.well-known/agent-card.json`) in and out of our catalogue. Both spec generations are read:
 * v1.0 (`supportedInterfaces[{url, protocolBinding, protocolVersion}]`) and v0.3 (`url`, `preferredTransport`,
 * `additionalInterfaces[{url, transport}]`); skills become capabilities. Pure functions.
 */
import { z } from 'zod';
import type { AgentWithInstances } from './agent-queries';
import type { AgentCardInput, CapabilityInput } from './card';

/** Bindings we can post JSON to over HTTP; gRPC interfaces are skipped. */
const HTTP_BINDINGS = new Set(['JSONRPC', 'HTTP+JSON']);
const httpUrl = z.url({ protocol: /^https?$/ });

const skillSchema = z.looseObject({
  id: z.string().min(1).max(256),
  name: z.string().min(1).max(256),
  description: z.string().max(4000).optional(),
  tags: z.array(z.string().min(1).max(64)).max(50).optional(),
  examples: z.array(z.string().min(1).max(1000)).max(50).optional(),
});

export const a2aCardSchema = z.looseObject({
  name: z.string().min(1).max(128),
  description: z.string().max(4000).optional(),
  version: z.string().min(1).max(64).optional(),
  // v1.0
  supportedInterfaces: z
    .array(z.looseObject({ url: z.string(), protocolBinding: z.string(), protocolVersion: z.string().optional() }))
    .max(20)
    .optional(),
  // v0.3
  protocolVersion: z.string().optional(),
  url: z.string().optional(),
  preferredTransport: z.string().optional(),
  additionalInterfaces: z.array(z.looseObject({ url: z.string(), transport: z.string() })).max(20).optional(),
  skills: z.array(skillSchema).min(1).max(100),
});
export type A2aCard = z.infer<typeof a2aCardSchema>;

export type A2aImport =
  | { kind: 'ok'; specVersion: '1.0' | '0.3'; input: AgentCardInput }
  | { kind: 'invalid'; problems: { location: string; message: string }[] };

/** Capability names allow letters, digits and `_.-`; skill ids may hold anything. */
export function capabilityNameOf(skillId: string): string {
  const cleaned = skillId.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return (cleaned || 'skill').slice(0, 64);
}

/** Interfaces in order of preference, as [url, binding]. */
function interfacesOf(card: A2aCard): { specVersion: '1.0' | '0.3'; interfaces: [string, string][] } | undefined {
  if (card.supportedInterfaces?.length) {
    return { specVersion: '1.0', interfaces: card.supportedInterfaces.map((i) => [i.url, i.protocolBinding.toUpperCase()]) };
  }
  if (card.url) {
    const preferred: [string, string] = [card.url, (card.preferredTransport ?? 'JSONRPC').toUpperCase()];
    const others = (card.additionalInterfaces ?? []).map((i): [string, string] => [i.url, i.transport.toUpperCase()]);
    return { specVersion: '0.3', interfaces: [preferred, ...others.filter(([url, t]) => url !== preferred[0] || t !== preferred[1])] };
  }
  return undefined;
}

export function importA2aCard(raw: unknown): A2aImport {
  const parsed = a2aCardSchema.safeParse(raw);
  if (!parsed.success) {
    return {
      kind: 'invalid',
      problems: parsed.error.issues.map((i) => ({ location: ['card', ...i.path.map(String)].join('.'), message: i.message })),
    };
  }
  const card = parsed.data;
  const found = interfacesOf(card);
  if (!found) {
    return { kind: 'invalid', problems: [{ location: 'card', message: 'neither supportedInterfaces (v1.0) nor url (v0.3) is present' }] };
  }
  const endpoint = found.interfaces.find(([url, binding]) => HTTP_BINDINGS.has(binding) && httpUrl.safeParse(url).success)?.[0];
  if (!endpoint) {
    return { kind: 'invalid', problems: [{ location: 'card', message: 'no interface with an http(s) URL and a JSONRPC or HTTP+JSON binding' }] };
  }
  const names = new Set<string>();
  const capabilities: CapabilityInput[] = [];
  for (const skill of card.skills) {
    let name = capabilityNameOf(skill.id);
    for (let n = 2; names.has(name); n++) name = `${capabilityNameOf(skill.id).slice(0, 60)}-${n}`;
    names.add(name);
    capabilities.push({
      name,
      description: skill.description ?? skill.name,
      ...(skill.tags ? { tags: skill.tags } : {}),
      ...(skill.examples ? { examples: skill.examples } : {}),
    });
  }
  return {
    kind: 'ok',
    specVersion: found.specVersion,
    input: {
      name: card.name,
      ...(card.version ? { version: card.version } : {}),
      ...(card.description ? { description: card.description } : {}),
      endpoint,
      capabilities,
    },
  };
}

/** Where to fetch a card given a base URL or the card's own URL. */
export function agentCardUrl(url: string): string {
  if (url.endsWith('.json')) return url;
  return `${url.replace(/\/+$/, '')}/.well-known/agent-card.json`;
}

/**
 * Our catalogue entry in A2A form. The interface advertised is the gateway: callers reach the agent through
 * `POST /v1/messages` with `target.agent_id`, so the binding is named `AGENT-REACH+JSON` rather than an A2A one.
 */
export function exportA2aCard({ agent }: AgentWithInstances, publicUrl: string, specVersion: '1.0' | '0.3') {
  const gateway = `${publicUrl}/v1/messages`;
  const common = {
    name: agent.name,
    description: agent.description || agent.name,
    version: agent.version,
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ['application/json', 'text/plain'],
    defaultOutputModes: ['application/json'],
    skills: agent.capabilities.map((c) => ({
      id: c.name,
      name: c.name,
      description: c.description || c.name,
      tags: c.tags,
      ...(c.examples.length ? { examples: c.examples } : {}),
    })),
  };
  if (specVersion === '0.3') {
    return { protocolVersion: '0.3.0', url: gateway, preferredTransport: 'AGENT-REACH+JSON', ...common };
  }
  return { supportedInterfaces: [{ url: gateway, protocolBinding: 'AGENT-REACH+JSON', protocolVersion: '1.0' }], ...common };
}
