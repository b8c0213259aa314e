/**
 * A2A Agent Cards (`/.well-known/agent-card.json`) in and out of our catalogue. Both spec generations are read:
 * v1.0 (`supportedInterfaces[{url, protocolBinding, protocolVersion}]`) and v0.3 (`url`, `preferredTransport`,
 * `additionalInterfaces[{url, transport}]`); skills become capabilities, and the card itself is kept on the agent
 * (`source.card_json`) so that exporting it loses nothing. An exported card is the agent as reached through the
 * gateway's A2A face (docs/a2a.md): its interface is the face, its security scheme our API keys. Pure functions.
 */
import { z } from 'zod';
import { discoveryUrl } from '../identity/discovery-url';
import type { AgentDoc, CapabilityDoc } from '../store/agents';
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
  additionalInterfaces: z
    .array(z.looseObject({ url: z.string(), transport: z.string() }))
    .max(20)
    .optional(),
  skills: z.array(skillSchema).min(1).max(100),
});
export type A2aCard = z.infer<typeof a2aCardSchema>;

export type A2aImport =
  /** `cardJson`: the card as received, to keep on the agent (absent when larger than MAX_KEPT_CARD_CHARS). */
  | { kind: 'ok'; specVersion: '1.0' | '0.3'; input: AgentCardInput; cardJson?: string }
  | { kind: 'invalid'; problems: { location: string; message: string }[] };

/** Capability names allow letters, digits and `_.-`; skill ids may hold anything. */
export function capabilityNameOf(skillId: string): string {
  const cleaned = skillId.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return (cleaned || 'skill').slice(0, 64);
}

/** The capability name of each skill, in order: cleaned ids, made distinct with `-2`, `-3`, … */
export function capabilityNamesOf(skills: readonly { id: string }[]): string[] {
  const names = new Set<string>();
  return skills.map((skill) => {
    let name = capabilityNameOf(skill.id);
    for (let n = 2; names.has(name); n++) name = `${capabilityNameOf(skill.id).slice(0, 60)}-${n}`;
    names.add(name);
    return name;
  });
}

/** One interface of a card: where, in which binding (upper case), and the protocol version it speaks. */
export interface CardInterface {
  url: string;
  binding: string;
  version: string;
}

/** What interfacesOf reads of a card: its interfaces in either spec version's fields. */
type CardAccess = Pick<
  A2aCard,
  'supportedInterfaces' | 'url' | 'preferredTransport' | 'additionalInterfaces' | 'protocolVersion'
>;

/** Interfaces in order of preference (v1.0 fields first, else v0.3's, whose version is the card's). */
function interfacesOf(card: CardAccess): { specVersion: '1.0' | '0.3'; interfaces: CardInterface[] } | undefined {
  if (card.supportedInterfaces?.length) {
    return {
      specVersion: '1.0',
      interfaces: card.supportedInterfaces.map((i) => ({
        url: i.url,
        binding: i.protocolBinding.toUpperCase(),
        version: i.protocolVersion ?? '1.0',
      })),
    };
  }
  if (card.url) {
    const version = card.protocolVersion ?? '0.3.0';
    const preferred = { url: card.url, binding: (card.preferredTransport ?? 'JSONRPC').toUpperCase(), version };
    const others = (card.additionalInterfaces ?? []).map((i) => ({
      url: i.url,
      binding: i.transport.toUpperCase(),
      version,
    }));
    return {
      specVersion: '0.3',
      interfaces: [preferred, ...others.filter((i) => i.url !== preferred.url || i.binding !== preferred.binding)],
    };
  }
  return undefined;
}

export function importA2aCard(raw: unknown): A2aImport {
  const parsed = a2aCardSchema.safeParse(raw);
  if (!parsed.success) {
    return {
      kind: 'invalid',
      problems: parsed.error.issues.map((i) => ({
        location: ['card', ...i.path.map(String)].join('.'),
        message: i.message,
      })),
    };
  }
  const card = parsed.data;
  const found = interfacesOf(card);
  if (!found) {
    return {
      kind: 'invalid',
      problems: [{ location: 'card', message: 'neither supportedInterfaces (v1.0) nor url (v0.3) is present' }],
    };
  }
  const endpoint = found.interfaces.find((i) => HTTP_BINDINGS.has(i.binding) && httpUrl.safeParse(i.url).success)?.url;
  if (!endpoint) {
    return {
      kind: 'invalid',
      problems: [{ location: 'card', message: 'no interface with an http(s) URL and a JSONRPC or HTTP+JSON binding' }],
    };
  }
  const names = capabilityNamesOf(card.skills);
  const capabilities: CapabilityInput[] = card.skills.map((skill, i) => ({
    name: names[i]!,
    description: skill.description ?? skill.name,
    ...(skill.tags ? { tags: skill.tags } : {}),
    ...(skill.examples ? { examples: skill.examples } : {}),
  }));
  const cardJson = JSON.stringify(raw);
  return {
    kind: 'ok',
    specVersion: found.specVersion,
    ...(cardJson.length <= MAX_KEPT_CARD_CHARS ? { cardJson } : {}),
    input: {
      name: card.name,
      ...(card.version ? { version: card.version } : {}),
      ...(card.description ? { description: card.description } : {}),
      // Delivered in A2A (activities/deliver-a2a.ts); alive while its card answers (catalogue/a2a-probe.ts).
      instances: [{ instance_id: A2A_INSTANCE_ID, transport: 'a2a', endpoint }],
      capabilities,
    },
  };
}

/** The one instance of an imported agent: its A2A interface. */
export const A2A_INSTANCE_ID = 'a2a';

/** Where to fetch a card given a base URL or the card's own URL. */
export function agentCardUrl(url: string): string {
  if (url.endsWith('.json')) return url;
  return `${url.replace(/\/+$/, '')}/.well-known/agent-card.json`;
}

/** A card larger than this (JSON characters) is not kept on the agent: its export is built from its capabilities. */
export const MAX_KEPT_CARD_CHARS = 64 * 1024;

export type A2aSpecVersion = '1.0' | '0.3';

/** The gateway's A2A face, where every card we serve says to go (docs/a2a.md). */
export const A2A_FACE_PATH = '/a2a';

/** Where a face's HTTP+JSON (REST) binding is, under the face's JSON-RPC URL. */
export const REST_PATH = '/rest';

/** One agent's own A2A face: its skills by their own ids, its intents routed among its capabilities only. */
export function agentFacePath(agentId: string): string {
  return `${A2A_FACE_PATH}/agents/${agentId}`;
}

/** The name of the one security scheme of our cards: an Agent-Reach API key as a bearer token (api/caller-auth.ts). */
export const BEARER_SCHEME = 'reach_api_key';
const BEARER_DESCRIPTION = 'An Agent-Reach API key, sent as "Authorization: Bearer rk_…"';

/** The name of an issuer's scheme in our cards: `reach_oidc`, or `reach_oidc_<n>` (from 1) with several issuers. */
function oidcSchemeName(index: number, count: number): string {
  return count === 1 ? 'reach_oidc' : `reach_oidc_${index + 1}`;
}

/** What a token caller needs: the scopes the face checks (`read` for reading, `send` for sending). */
const TOKEN_SCOPES = ['read', 'send'];

/**
 * `card` (one we serve: the gateway's or an agent's through it) declaring, beside the API key, an OpenID Connect
 * scheme per configured issuer (AUTH_OIDC_ISSUER), each one enough on its own. Either spec version, by its shape.
 */
export function withTokenSchemes<T extends Record<string, unknown>>(
  card: T,
  issuers: readonly string[] | undefined,
  endpoints: readonly (IssuerEndpoints | undefined)[] = [],
): T {
  if (!issuers?.length) return card;
  const description = 'An access token of the identity provider, sent as "Authorization: Bearer …" (docs/security.md)';
  const v1 = 'supportedInterfaces' in card;
  const schemes: [string, object][] = [];
  issuers.forEach((issuer, i) => {
    const url = discoveryUrl(issuer);
    schemes.push([
      oidcSchemeName(i, issuers.length),
      v1
        ? { openIdConnectSecurityScheme: { openIdConnectUrl: url, description } }
        : { type: 'openIdConnect', openIdConnectUrl: url, description },
    ]);
    for (const [flow, value] of oauthFlows(endpoints[i])) {
      const name = `reach_oauth2_${flow === 'authorizationCode' ? 'code' : 'client'}${issuers.length === 1 ? '' : `_${i + 1}`}`;
      schemes.push([
        name,
        v1
          ? { oauth2SecurityScheme: { description, oauth2MetadataUrl: url, flows: { [flow]: value } } }
          : { type: 'oauth2', description, oauth2MetadataUrl: url, flows: { [flow]: value } },
      ]);
    }
  });
  const securitySchemes = { ...(card.securitySchemes as object), ...Object.fromEntries(schemes) };
  if (v1)
    return {
      ...card,
      securitySchemes,
      securityRequirements: [
        ...((card.securityRequirements as object[]) ?? []),
        ...schemes.map(([name]) => ({ schemes: { [name]: { list: TOKEN_SCOPES } } })),
      ],
    };
  return {
    ...card,
    securitySchemes,
    security: [...((card.security as object[]) ?? []), ...schemes.map(([name]) => ({ [name]: TOKEN_SCOPES }))],
  };
}

/** What an issuer's metadata says of its endpoints, for OAuth2 flows in cards. */
export interface IssuerEndpoints {
  authorization_endpoint?: string;
  token_endpoint?: string;
}

const FLOW_SCOPES = { read: 'read agents, messages and tasks', send: 'send and cancel messages' };

/** An OAuth2 scheme's flows (one each: A2A v1.0's flows are one of): a user's (code + PKCE) and a service's. */
function oauthFlows(endpoints: IssuerEndpoints | undefined): [string, object][] {
  const tokenUrl = endpoints?.token_endpoint;
  if (!tokenUrl) return [];
  const flows: [string, object][] = [];
  if (endpoints.authorization_endpoint)
    flows.push([
      'authorizationCode',
      { authorizationUrl: endpoints.authorization_endpoint, tokenUrl, scopes: FLOW_SCOPES, pkceRequired: true },
    ]);
  flows.push(['clientCredentials', { tokenUrl, scopes: FLOW_SCOPES }]);
  return flows;
}

export const DEFAULT_INPUT_MODES = ['text/plain', 'application/json'];
export const DEFAULT_OUTPUT_MODES = ['application/json', 'text/plain'];

/**
 * Where and how to reach an agent through the face at `url`: JSON-RPC there and HTTP+JSON under `<url>/rest`, each in
 * v1.0 and v0.3, with a bearer key.
 */
export function gatewayAccess(url: string, specVersion: A2aSpecVersion): Record<string, unknown> {
  if (specVersion === '0.3') {
    return {
      protocolVersion: '0.3.0',
      url,
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [
        { url, transport: 'JSONRPC' },
        { url: `${url}${REST_PATH}`, transport: 'HTTP+JSON' },
      ],
      securitySchemes: { [BEARER_SCHEME]: { type: 'http', scheme: 'bearer', description: BEARER_DESCRIPTION } },
      security: [{ [BEARER_SCHEME]: [] }],
    };
  }
  return {
    supportedInterfaces: [
      { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: `${url}${REST_PATH}`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: `${url}${REST_PATH}`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ],
    securitySchemes: {
      [BEARER_SCHEME]: { httpAuthSecurityScheme: { scheme: 'Bearer', description: BEARER_DESCRIPTION } },
    },
    securityRequirements: [{ schemes: { [BEARER_SCHEME]: { list: [] } } }],
  };
}

/**
 * Fields of a kept card that say where and how to reach the agent itself (both spec versions): an exported card
 * replaces them with the gateway's, since callers reach the agent through the gateway. Signatures covered the
 * original document, so they go too.
 */
const ACCESS_FIELDS = [
  'supportedInterfaces',
  'url',
  'preferredTransport',
  'additionalInterfaces',
  'protocolVersion',
  'securitySchemes',
  'securityRequirements',
  'security',
  'signatures',
  'supportsAuthenticatedExtendedCard',
];
const SKILL_ACCESS_FIELDS = ['securityRequirements', 'security'];

type JsonObject = Record<string, unknown>;

function without(object: JsonObject, keys: readonly string[]): JsonObject {
  return Object.fromEntries(Object.entries(object).filter(([key]) => !keys.includes(key)));
}

/** The card kept when the agent was imported, if any. */
export function keptCard(agent: Pick<AgentDoc, 'source'>): A2aCard | undefined {
  if (!agent.source?.card_json) return undefined;
  const parsed = a2aCardSchema.safeParse(JSON.parse(agent.source.card_json));
  return parsed.success ? parsed.data : undefined;
}

export interface AgentSkill {
  capability: CapabilityDoc;
  /** The A2A skill: the imported one (its id, name, modes and every other field) or one built from the capability. */
  skill: JsonObject;
}

/**
 * A skill's tags, which the A2A spec requires and protobuf-based SDKs drop when empty: the capability's own, else
 * the agent's, else the capability's name.
 */
export function skillTags(agent: Pick<AgentDoc, 'tags'>, capability: Pick<CapabilityDoc, 'name' | 'tags'>): string[] {
  if (capability.tags?.length) return capability.tags;
  if (agent.tags?.length) return agent.tags;
  return [capability.name];
}

/**
 * The agent's capabilities (those `reachable` admits) as A2A skills. An imported skill keeps its own fields; its
 * description, tags and examples are the capability's (imported from it, changed only by an update of the agent).
 */
export function agentSkills(
  agent: AgentDoc,
  reachable: (capability: CapabilityDoc) => boolean = () => true,
): AgentSkill[] {
  const card = keptCard(agent);
  const imported = new Map<string, JsonObject>();
  if (card) capabilityNamesOf(card.skills).forEach((name, i) => imported.set(name, card.skills[i]!));
  return agent.capabilities.filter(reachable).map((capability) => {
    const original = imported.get(capability.name);
    const skill: JsonObject = {
      ...(original ? without(original, SKILL_ACCESS_FIELDS) : { id: capability.name, name: capability.name }),
      description: capability.description || (original?.name as string | undefined) || capability.name,
      tags: skillTags(agent, capability),
    };
    if (capability.examples.length > 0) skill.examples = capability.examples;
    else delete skill.examples;
    return { capability, skill };
  });
}

/**
 * What the A2A client of an agent is built from and sends: the card kept at import (absent for an agent registered
 * with an a2a instance), parsed once, and the agent's own skill id of each capability.
 */
export interface AgentProfile {
  agent_id: string;
  revision: number;
  name: string;
  card?: A2aCard;
  /** Capability name → the imported skill's id; a capability not in it is asked by its own name. */
  skillIds: Map<string, string>;
}

export function a2aProfileOf(agent: AgentDoc): AgentProfile {
  const card = keptCard(agent);
  const skillIds = new Map(card ? capabilityNamesOf(card.skills).map((name, i) => [name, card.skills[i]!.id]) : []);
  return { agent_id: agent._id, revision: agent.revision, name: agent.name, ...(card ? { card } : {}), skillIds };
}

/** The agent's own id of the skill a capability came from (an imported skill's id), else the capability's name. */
export function skillIdOf(profile: Pick<AgentProfile, 'skillIds'>, capability: string): string {
  return profile.skillIds.get(capability) ?? capability;
}

/** Whether the agent's card offers push notifications. */
export function offersPush(card: A2aCard | undefined): boolean {
  const capabilities = card?.capabilities;
  return (
    typeof capabilities === 'object' && capabilities !== null && (capabilities as JsonObject).pushNotifications === true
  );
}

/** The binding and protocol version to speak at `endpoint`, from the card's interfaces (JSON-RPC, v1.0 when it lists none there). */
export function interfaceAt(
  card: CardAccess | undefined,
  endpoint: string,
): { protocolBinding: string; protocolVersion: string } {
  const found = card && interfacesOf(card);
  const atEndpoint = found?.interfaces.filter((i) => i.url === endpoint) ?? [];
  const chosen = atEndpoint.find((i) => i.version === '1.0') ?? atEndpoint[0];
  if (chosen) return { protocolBinding: chosen.binding, protocolVersion: chosen.version };
  return {
    protocolBinding: 'JSONRPC',
    protocolVersion: found?.specVersion === '0.3' ? found.interfaces[0]!.version : '1.0',
  };
}

/** The card the A2A client is built from: the agent's kept card narrowed to the one interface at `endpoint`. */
export function clientCardOf(
  card: (CardAccess & Partial<A2aCard>) | undefined,
  endpoint: string,
  name: string,
): JsonObject {
  const { protocolBinding, protocolVersion } = interfaceAt(card, endpoint);
  return {
    name: card?.name ?? name,
    description: card?.description ?? name,
    version: card?.version ?? '1',
    supportedInterfaces: [
      { url: endpoint, protocolBinding, protocolVersion: protocolVersion.startsWith('0.3') ? '0.3' : protocolVersion },
    ],
    capabilities: typeof card?.capabilities === 'object' && card.capabilities !== null ? card.capabilities : {},
    defaultInputModes: Array.isArray(card?.defaultInputModes) ? card.defaultInputModes : DEFAULT_INPUT_MODES,
    defaultOutputModes: Array.isArray(card?.defaultOutputModes) ? card.defaultOutputModes : DEFAULT_OUTPUT_MODES,
    skills: [],
  };
}

/** The capability a skill id names on the agent's own face: an imported skill's id, or a capability's name. */
export function capabilityOfSkill(agent: AgentDoc, skillId: string): string | undefined {
  return agentSkills(agent).find(({ skill }) => skill.id === skillId)?.capability.name;
}

/**
 * The agent's card as a caller reaches it through the gateway: everything the imported card said (name, modes,
 * provider, extensions, skills with their ids, names and modes, …) except where and how to reach it, which is the
 * agent's face at `faceUrl` with an API key. A native agent's card is built from its catalogue entry.
 */
export function exportA2aCard(
  agent: AgentDoc,
  faceUrl: string,
  specVersion: A2aSpecVersion,
  reachable?: (capability: CapabilityDoc) => boolean,
): JsonObject {
  const card = keptCard(agent);
  const base = card ? without(card, ACCESS_FIELDS) : {};
  const { extendedAgentCard: _, ...capabilities } = (base.capabilities ?? {}) as JsonObject;
  return {
    ...base,
    name: agent.name,
    description: agent.description || agent.name,
    version: agent.version,
    ...gatewayAccess(faceUrl, specVersion),
    capabilities: { ...capabilities, streaming: true, pushNotifications: false, extendedAgentCard: true },
    defaultInputModes: base.defaultInputModes ?? DEFAULT_INPUT_MODES,
    defaultOutputModes: base.defaultOutputModes ?? DEFAULT_OUTPUT_MODES,
    skills: agentSkills(agent, reachable).map((s) => s.skill),
  };
}
