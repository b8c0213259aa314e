/**
 * Resources: an agent's card `reach://agents/{agent_id}` (as `GET /v1/agents/:id` shows it) and a message's status
 * `reach://messages/{message_id}` (as `GET /v1/messages/:id`), both needing the `read` scope, in the key's tenant.
 * The tenant's agents are listed; messages are read by id only. A resource that does not exist is the protocol's
 * "resource not found" error (-32002), with our error body and the `uri` as its data.
 */
import {
  McpError,
  ErrorCode,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import { hasScope, type Caller } from '../../rules/api-key';
import { ApiError, errorBody } from '../errors';
import type { ErrorCode as ReachErrorCode } from '../../rules/error-codes';
import { agentCard } from '../routes/agents';
import { agentIdParams, messageIdParams } from '../schemas';
import { parseInput } from '../validate';
import type { McpDeps } from './context';
import { withLinks } from './send-and-wait';

/** JSON-RPC code of a resource that does not exist (MCP specification, "Resources: error handling"). */
const RESOURCE_NOT_FOUND = -32002;
/** Agents listed by `resources/list` (the rest are reachable by id or through `reach_search_agents`). */
const LISTED_AGENTS = 200;
const JSON_TYPE = 'application/json';

export const RESOURCE_TEMPLATES: ListResourceTemplatesResult['resourceTemplates'] = [
  {
    uriTemplate: 'reach://agents/{agent_id}',
    name: 'agent',
    title: 'Agent card',
    description: 'An agent of the catalogue: capabilities with their parameter schemas, instances, liveness',
    mimeType: JSON_TYPE,
  },
  {
    uriTemplate: 'reach://messages/{message_id}',
    name: 'message',
    title: 'Message status',
    description: "A message's state, result or reason, and attempts",
    mimeType: JSON_TYPE,
  },
];

export async function listResources(deps: McpDeps, caller: Caller): Promise<ListResourcesResult> {
  if (!hasScope(caller, 'read')) return { resources: [] };
  await deps.catalogue.index.ensureCurrent(deps.logger);
  const agents = deps.catalogue.index.agents(caller.tenant).slice(0, LISTED_AGENTS);
  return {
    resources: agents.map(({ agent }) => ({
      uri: `reach://agents/${agent._id}`,
      name: agent.name,
      title: `Agent ${agent.name}`,
      ...(agent.description ? { description: agent.description } : {}),
      mimeType: JSON_TYPE,
    })),
  };
}

/** The "resource not found" error: our error body, and the URI asked for (as the specification's `data.uri`). */
function notFound(uri: string, code: ReachErrorCode, message: string, details?: unknown): McpError {
  return new McpError(RESOURCE_NOT_FOUND, message, { ...errorBody(code, message, details), uri });
}

function asJson(uri: string, value: object): ReadResourceResult {
  return { contents: [{ uri, mimeType: JSON_TYPE, text: JSON.stringify(value, null, 2) }] };
}

export async function readResource(deps: McpDeps, caller: Caller, uri: string): Promise<ReadResourceResult> {
  if (!hasScope(caller, 'read'))
    throw new McpError(
      ErrorCode.InvalidRequest,
      'This API key lacks the "read" scope',
      errorBody('insufficient_scope', 'This API key lacks the "read" scope', { required_scope: 'read' }),
    );
  const match = /^reach:\/\/(agents|messages)\/([^/?#]+)$/.exec(uri);
  if (!match)
    throw notFound(
      uri,
      'resource_not_found',
      `No resource ${uri}: use reach://agents/{agent_id} or reach://messages/{message_id}`,
    );
  const [, kind, id] = match as unknown as [string, 'agents' | 'messages', string];
  try {
    if (kind === 'agents') {
      const { agent_id } = parseInput(agentIdParams, { agent_id: decodeURIComponent(id) }, 'params');
      const card = await agentCard(deps.catalogue, caller.tenant, agent_id);
      if (!card) throw notFound(uri, 'agent_not_found', `No agent ${agent_id}`);
      return asJson(uri, card);
    }
    const { message_id } = parseInput(messageIdParams, { message_id: decodeURIComponent(id) }, 'params');
    const status = await deps.messages.get(caller.tenant, message_id);
    if (!status) throw notFound(uri, 'message_not_found', `No message ${message_id}`);
    return asJson(uri, withLinks(deps, status));
  } catch (error) {
    // An id that cannot exist is not found either; the error body says why.
    if (error instanceof ApiError) throw notFound(uri, error.code, error.message, error.details);
    throw error;
  }
}
