/**
 * Capability tools (MCP_CAPABILITY_TOOLS, or `/mcp?capability_tools=true`): every capability of the tenant that the
 * key may reach (its ACL, rules/acl.ts) as a tool of its own, `<agent name>__<capability>`, whose input schema is
 * the capability's `parameters` and whose arguments are sent as the message's `params`. Names are given over all of
 * the tenant's capabilities (so a name means the same capability for every key) and then filtered by the ACL; calling
 * a capability the key may not reach is refused by intake, as on `POST /v1/messages` (`capability_forbidden`).
 * Every capability tool also takes an optional `message_id` (MESSAGE_ID_ARGUMENT), idempotent as on the api.
 */
import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AgentWithInstances } from '../../catalogue/agent-queries';
import { invalidProperties } from '../../router/parameter-check';
import { canReach } from '../../rules/acl';
import type { Caller } from '../../rules/api-key';
import { z } from 'zod';
import { MESSAGE_ID_PATTERN } from '../../rules/ids';
import { messageId } from '../../messages/message-schema';
import { ApiError } from '../errors';
import { paramsSchema } from '../schemas';
import { parseInput } from '../validate';
import type { McpDeps, ToolCall } from './context';
import { roundPayload } from './input-rounds';
import { sendAndAwait, sendAndWait, type ToolAnswer } from './send-and-wait';
import { taskSupportOf, type TaskSupport } from './tasks';
import type { MessageStatus } from '../../messages/message';
import type { SendRequest } from '../../messages/intake';

/** Between the agent's name and the capability's in a tool name. */
export const TOOL_NAME_SEPARATOR = '__';
/** MCP tool names: 1–128 of A–Z a–z 0–9 _ - . */
const MAX_NAME = 128;

export interface CapabilityTool {
  definition: Tool;
  agent_id: string;
  capability: string;
  parametersJson?: string;
  /** Whether the key may reach it; only these are listed. */
  reachable: boolean;
  /** Whether a call may be a task of the Tasks extension (tasks.ts; tag `mcp:task=…`). */
  taskSupport: TaskSupport;
}

function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9_.-]/g, '_');
}

/**
 * The argument that names the message, as `message_id` on POST /v1/messages: a client that calls again with the same
 * id after losing the answer gets the same message, not a second one. Taken out of the arguments before they are
 * sent as `params`, unless the capability has a parameter of that name (then it is the parameter's).
 */
export const MESSAGE_ID_ARGUMENT = 'message_id';

const MESSAGE_ID_PROPERTY = {
  type: 'string',
  pattern: MESSAGE_ID_PATTERN.source,
  description:
    'Optional id of this message (1–128 letters, digits and ._:-). Calling again with the same id and arguments returns the same message ' +
    'instead of doing the work twice (retry with it after a lost answer); the same id with other arguments is refused.',
};

/** Whether the capability's own parameters have a `message_id` (then the argument is not the message's id). */
function declaresMessageId(schema: Record<string, unknown> | undefined): boolean {
  const properties = schema?.properties;
  return typeof properties === 'object' && properties !== null && MESSAGE_ID_ARGUMENT in properties;
}

function inputSchemaOf(parametersJson: string | undefined): Tool['inputSchema'] {
  const schema = parametersJson ? (JSON.parse(parametersJson) as Record<string, unknown>) : undefined;
  // A tool's input is an object; a capability whose parameters are something else takes any object.
  if (schema?.type !== 'object')
    return { type: 'object', properties: { [MESSAGE_ID_ARGUMENT]: MESSAGE_ID_PROPERTY }, additionalProperties: true };
  if (declaresMessageId(schema)) return schema as Tool['inputSchema'];
  const properties = {
    ...(schema.properties as Record<string, unknown> | undefined),
    [MESSAGE_ID_ARGUMENT]: MESSAGE_ID_PROPERTY,
  };
  return { ...schema, type: 'object', properties };
}

/** The message id (when given) and the params, from a capability tool's arguments. */
export function splitArguments(
  tool: Pick<CapabilityTool, 'parametersJson'>,
  args: unknown,
): { message_id?: string; params: Record<string, unknown> } {
  const all = parseInput(paramsSchema, args ?? {}, 'arguments');
  const schema = tool.parametersJson ? (JSON.parse(tool.parametersJson) as Record<string, unknown>) : undefined;
  if (declaresMessageId(schema) || !(MESSAGE_ID_ARGUMENT in all)) return { params: all };
  const { [MESSAGE_ID_ARGUMENT]: given, ...params } = all;
  const { message_id } = parseInput(z.strictObject({ message_id: messageId }), { message_id: given }, 'arguments');
  return { message_id, params };
}

/**
 * Every capability of the tenant's agents as a tool, marked reachable or not for `caller`. `bare`: named by the
 * capability alone (the agent face, agent-face.ts, which shows one agent: capability names are unique in it and
 * already MCP-safe).
 */
export function capabilityTools(
  agents: readonly AgentWithInstances[],
  caller: Caller,
  { bare = false } = {},
): CapabilityTool[] {
  const taken = new Set<string>();
  const tools: CapabilityTool[] = [];
  for (const { agent } of agents) {
    for (const capability of agent.capabilities) {
      let name = bare ? capability.name : safeName(`${agent.name}${TOOL_NAME_SEPARATOR}${capability.name}`);
      if (!bare && (name.length > MAX_NAME || taken.has(name))) {
        // Too long, or another agent's name reads the same once made safe: a short hash of the ids tells them apart.
        const suffix = `_${createHash('sha256').update(`${agent._id}/${capability.name}`).digest('hex').slice(0, 8)}`;
        name = `${name.slice(0, MAX_NAME - suffix.length)}${suffix}`;
      }
      taken.add(name);
      const taskSupport = taskSupportOf(capability.tags);
      const about =
        `${capability.description || capability.name} — capability "${capability.name}" of agent "${agent.name}"` +
        (agent.description ? ` (${agent.description})` : '');
      tools.push({
        definition: {
          name,
          title: `${agent.name}: ${capability.name}`,
          description: `${about}. Sent through Agent-Reach, durably; returns the agent's result when it finishes in time, else the message id to read with reach_status.`,
          inputSchema: inputSchemaOf(capability.parameters_json),
          annotations: { readOnlyHint: false, openWorldHint: true },
          execution: { taskSupport },
        },
        agent_id: agent._id,
        capability: capability.name,
        ...(capability.parameters_json ? { parametersJson: capability.parameters_json } : {}),
        reachable: canReach(caller, { tenant: agent.tenant, acl: capability.acl }).allowed,
        taskSupport,
      });
    }
  }
  return tools;
}

/** The message a call of the tool sends: its arguments as `params`, checked against the capability's schema first. */
function capabilityMessage(call: ToolCall, tool: CapabilityTool, args: unknown): SendRequest {
  const { message_id, params } = splitArguments(tool, args);
  // A capability the key may not reach is refused by intake, before anything about its parameters is said.
  if (tool.reachable && tool.parametersJson) {
    const required = (JSON.parse(tool.parametersJson) as { required?: unknown }).required;
    const missing = Array.isArray(required)
      ? required.filter((key): key is string => typeof key === 'string' && !(key in params))
      : [];
    const invalid = invalidProperties(tool.parametersJson, params);
    if (missing.length > 0 || invalid.length > 0) {
      throw new ApiError(400, 'invalid_request', `Arguments do not match the parameters of ${tool.capability}`, [
        ...missing.map((key) => ({ location: `arguments.${key}`, message: 'required' })),
        ...invalid.map((key) => ({ location: `arguments.${key}`, message: 'does not match the parameter schema' })),
      ]);
    }
  }
  return {
    ...(message_id ? { message_id } : {}),
    target: { agent_id: tool.agent_id, capability: tool.capability },
    params,
    ...roundPayload(call.round),
  };
}

/** Sends the arguments to the tool's capability and waits for the outcome. */
export function callCapabilityTool(
  deps: McpDeps,
  call: ToolCall,
  tool: CapabilityTool,
  args: unknown,
): Promise<ToolAnswer> {
  return sendAndWait(deps, call, capabilityMessage(call, tool, args), deps.config.MCP_SEND_WAIT_MS, {
    passthrough: true,
  });
}

/** Sends the arguments to the tool's capability without waiting (a task, tasks.ts): the message as accepted. */
export async function startCapabilityMessage(
  deps: McpDeps,
  call: ToolCall,
  tool: CapabilityTool,
  args: unknown,
): Promise<MessageStatus> {
  return (await sendAndAwait(deps, call, capabilityMessage(call, tool, args), 0)).status;
}
