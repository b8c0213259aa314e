/**
 * The agent face, `/mcp?agent=<agent name>`: one agent of the key's tenant as an MCP server of its own. Its
 * capabilities are its tools under their own names (no `<agent>__` prefix, and none of the reach_* tools), except
 * those it tags as its prompts (`mcp:prompt`) or its resources (`mcp:resource=<URI or URI template>`). Calling any of
 * them sends a message to the capability, durably, as a capability tool does; what the agent answers is passed on
 * as the MCP result when it has that result's shape (mcp-results.ts). Only the capabilities the key may reach are
 * shown; an agent that does not exist has nothing to show.
 */
import type { AgentWithInstances } from '../../catalogue/agent-queries';
import type { CapabilityDoc } from '../../store/agents';
import { canReach } from '../../rules/acl';
import type { Caller } from '../../rules/api-key';
import { capabilityTools, type CapabilityTool } from './capability-tools';
import type { McpDeps } from './context';

export const PROMPT_TAG = 'mcp:prompt';
export const RESOURCE_TAG_PREFIX = 'mcp:resource=';

/** A capability of the agent, with what it takes to send it a message. */
export interface FaceCapability {
  agent_id: string;
  capability: CapabilityDoc;
}

export interface FaceResource extends FaceCapability {
  /** The URI, or a URI template (RFC 6570 level 1: `{name}`). */
  uri: string;
  isTemplate: boolean;
}

export interface AgentFace {
  tools: CapabilityTool[];
  prompts: FaceCapability[];
  resources: FaceResource[];
}

const EMPTY: AgentFace = { tools: [], prompts: [], resources: [] };

function resourceUriOf(capability: CapabilityDoc): string | undefined {
  return (
    capability.tags.find((tag) => tag.startsWith(RESOURCE_TAG_PREFIX))?.slice(RESOURCE_TAG_PREFIX.length) || undefined
  );
}

function isPrompt(capability: CapabilityDoc): boolean {
  return capability.tags.includes(PROMPT_TAG);
}

/** The face of the agent named `name` for `caller`: what its key may reach, as tools, prompts and resources. */
export function agentFaceOf(agents: readonly AgentWithInstances[], caller: Caller, name: string): AgentFace {
  const found = agents.find(({ agent }) => agent.name === name);
  if (!found) return EMPTY;
  const { agent } = found;
  const reachable = agent.capabilities.filter(
    (capability) => canReach(caller, { tenant: agent.tenant, acl: capability.acl }).allowed,
  );
  const prompts: FaceCapability[] = [];
  const resources: FaceResource[] = [];
  const toolNames = new Set<string>();
  for (const capability of reachable) {
    const uri = resourceUriOf(capability);
    if (uri) resources.push({ agent_id: agent._id, capability, uri, isTemplate: /\{[^}]+\}/.test(uri) });
    else if (isPrompt(capability)) prompts.push({ agent_id: agent._id, capability });
    else toolNames.add(capability.name);
  }
  const tools = capabilityTools([found], caller, { bare: true }).filter(
    (tool) => tool.reachable && toolNames.has(tool.capability),
  );
  return { tools, prompts, resources };
}

/** The agent face as the catalogue is now. */
export async function currentAgentFace(deps: McpDeps, caller: Caller, name: string): Promise<AgentFace> {
  await deps.catalogue.index.ensureCurrent(deps.logger);
  return agentFaceOf(deps.catalogue.index.agents(caller.tenant), caller, name);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The values of a URI template's variables in `uri`, or undefined when it does not match. */
export function matchUriTemplate(template: string, uri: string): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const variable = /^\{([^}]+)\}$/.exec(part);
      if (!variable) return escapeRegExp(part);
      names.push(variable[1]!);
      return '([^/?#]+)';
    })
    .join('');
  const match = new RegExp(`^${pattern}$`).exec(uri);
  if (!match) return undefined;
  return Object.fromEntries(names.map((variable, i) => [variable, decodeURIComponent(match[i + 1]!)]));
}

/** The resource of the face that `uri` names, with the template's variables, or undefined. */
export function resourceFor(
  face: AgentFace,
  uri: string,
): { resource: FaceResource; variables: Record<string, string> } | undefined {
  const exact = face.resources.find((resource) => !resource.isTemplate && resource.uri === uri);
  if (exact) return { resource: exact, variables: {} };
  for (const resource of face.resources.filter((r) => r.isTemplate)) {
    const variables = matchUriTemplate(resource.uri, uri);
    if (variables) return { resource, variables };
  }
  return undefined;
}
