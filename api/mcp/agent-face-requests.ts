/**
 * The agent face's prompts, resources and completions (agent-face.ts): `prompts/get` and `resources/read` send a
 * message to the capability (its arguments, or the URI and the template's variables, as `params`) and wait for it
 * like a tool call; the agent's result is the answer when it has the answer's shape (mcp-results.ts), else it is
 * shown as JSON. A message that fails, or does not end within MCP_SEND_WAIT_MS, is the protocol's error (prompts and
 * resources have no error result), with our error body as its data.
 */
import {
  ErrorCode,
  McpError,
  type CompleteResult,
  type GetPromptResult,
  type ListPromptsResult,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { MessageStatus } from '../../messages/message';
import { errorBody } from '../errors';
import { currentAgentFace, resourceFor, type FaceCapability } from './agent-face';
import type { McpDeps, ToolCall } from './context';
import { roundPayload } from './input-rounds';
import { asInputRequired, asPromptResult, asResourceResult, type AgentInputRequired } from './mcp-results';
import { sendAndAwait } from './send-and-wait';

/** Completion values given at most (the specification's limit). */
const MAX_COMPLETIONS = 100;

interface ParameterSchema {
  properties?: Record<string, { description?: string; enum?: unknown[]; examples?: unknown[] }>;
  required?: string[];
}

function parametersOf(capability: FaceCapability['capability']): ParameterSchema {
  return capability.parameters_json ? (JSON.parse(capability.parameters_json) as ParameterSchema) : {};
}

export async function listPrompts(
  deps: McpDeps,
  call: Pick<ToolCall, 'caller'>,
  agent: string,
): Promise<ListPromptsResult> {
  const { prompts } = await currentAgentFace(deps, call.caller, agent);
  return {
    prompts: prompts.map(({ capability }) => {
      const { properties = {}, required = [] } = parametersOf(capability);
      const args = Object.entries(properties).map(([name, schema]) => ({
        name,
        ...(schema.description ? { description: schema.description } : {}),
        required: required.includes(name),
      }));
      return {
        name: capability.name,
        ...(capability.description ? { description: capability.description } : {}),
        ...(args.length > 0 ? { arguments: args } : {}),
      };
    }),
  };
}

export async function listFaceResources(
  deps: McpDeps,
  call: Pick<ToolCall, 'caller'>,
  agent: string,
): Promise<ListResourcesResult> {
  const { resources } = await currentAgentFace(deps, call.caller, agent);
  return {
    resources: resources
      .filter((r) => !r.isTemplate)
      .map(({ uri, capability }) => ({
        uri,
        name: capability.name,
        ...(capability.description ? { description: capability.description } : {}),
      })),
  };
}

export async function listFaceTemplates(
  deps: McpDeps,
  call: Pick<ToolCall, 'caller'>,
  agent: string,
): Promise<ListResourceTemplatesResult> {
  const { resources } = await currentAgentFace(deps, call.caller, agent);
  return {
    resourceTemplates: resources
      .filter((r) => r.isTemplate)
      .map(({ uri, capability }) => ({
        uriTemplate: uri,
        name: capability.name,
        ...(capability.description ? { description: capability.description } : {}),
      })),
  };
}

/** Sends `params` to the capability and waits: the processed message, or the protocol error saying why not. */
async function processed(
  deps: McpDeps,
  call: ToolCall,
  target: FaceCapability,
  params: Record<string, unknown>,
): Promise<MessageStatus> {
  const body = {
    target: { agent_id: target.agent_id, capability: target.capability.name },
    params,
    ...roundPayload(call.round),
  };
  const { status, ended } = await sendAndAwait(deps, call, body, deps.config.MCP_SEND_WAIT_MS);
  if (!ended) {
    const message = `Message ${status.message_id} did not end within ${deps.config.MCP_SEND_WAIT_MS} ms; read it as reach://messages/${status.message_id} on /mcp`;
    throw new McpError(
      ErrorCode.InternalError,
      message,
      errorBody('still_in_flight', message, { message_id: status.message_id, state: status.state }),
    );
  }
  if (status.state !== 'processed') {
    const reason = status.reason ?? { code: 'failed' as const, message: `The message ended ${status.state}` };
    throw new McpError(
      ErrorCode.InternalError,
      `Message ${status.message_id} ended ${status.state}: ${reason.message}`,
      errorBody(reason.code, reason.message, { message_id: status.message_id, state: status.state }),
    );
  }
  return status;
}

/** The agent's input_required result, on a 2026-07-28 request (input-rounds.ts). */
function askingOf(call: ToolCall, status: MessageStatus): AgentInputRequired | undefined {
  return call.round ? asInputRequired(status.result) : undefined;
}

export async function getPrompt(
  deps: McpDeps,
  call: ToolCall,
  agent: string,
  name: string,
  args: Record<string, string> = {},
): Promise<GetPromptResult | AgentInputRequired> {
  const prompt = (await currentAgentFace(deps, call.caller, agent)).prompts.find((p) => p.capability.name === name);
  if (!prompt)
    throw new McpError(
      ErrorCode.InvalidParams,
      `Unknown prompt: ${name}`,
      errorBody('unknown_prompt', `No prompt ${name}; prompts/list shows the prompts of this key`),
    );
  const missing = (parametersOf(prompt.capability).required ?? []).filter((key) => !(key in args));
  if (missing.length > 0) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Missing arguments of ${name}: ${missing.join(', ')}`,
      errorBody(
        'invalid_request',
        `Missing arguments of ${name}`,
        missing.map((key) => ({ location: `arguments.${key}`, message: 'required' })),
      ),
    );
  }
  const status = await processed(deps, call, prompt, args);
  return (
    askingOf(call, status) ??
    asPromptResult(status.result, status.message_id) ?? {
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: typeof status.result === 'string' ? status.result : JSON.stringify(status.result ?? null, null, 2),
          },
        },
      ],
    }
  );
}

/** Reads one of the agent face's resources. */
export async function readFaceResource(
  deps: McpDeps,
  call: ToolCall,
  agent: string,
  uri: string,
): Promise<ReadResourceResult | AgentInputRequired> {
  const found = resourceFor(await currentAgentFace(deps, call.caller, agent), uri);
  if (!found)
    throw new McpError(-32002, `Resource not found: ${uri}`, {
      ...errorBody(
        'resource_not_found',
        `No resource ${uri}; resources/list and resources/templates/list show this key's`,
      ),
      uri,
    });
  const status = await processed(deps, call, found.resource, { uri, ...found.variables });
  return (
    askingOf(call, status) ??
    asResourceResult(status.result, status.message_id) ?? {
      contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(status.result ?? null, null, 2) }],
    }
  );
}

/** Values for a prompt's argument or a template's variable: the parameter's `enum` and `examples` that start with what was typed. */
export async function complete(
  deps: McpDeps,
  call: Pick<ToolCall, 'caller'>,
  agent: string,
  ref: { type: string; name?: string; uri?: string },
  argument: { name: string; value: string },
): Promise<CompleteResult> {
  const face = await currentAgentFace(deps, call.caller, agent);
  const capability =
    ref.type === 'ref/prompt'
      ? face.prompts.find((p) => p.capability.name === ref.name)?.capability
      : face.resources.find((r) => r.isTemplate && r.uri === ref.uri)?.capability;
  const schema = capability ? parametersOf(capability).properties?.[argument.name] : undefined;
  const known = [...(schema?.enum ?? []), ...(schema?.examples ?? [])].filter(
    (v): v is string => typeof v === 'string',
  );
  const values = [...new Set(known)].filter((v) => v.toLowerCase().startsWith(argument.value.toLowerCase()));
  return {
    completion: {
      values: values.slice(0, MAX_COMPLETIONS),
      total: values.length,
      hasMore: values.length > MAX_COMPLETIONS,
    },
  };
}
