/**
 * One MCP server per session, speaking for the key that opened it: the reach tools its scopes allow, the capability
 * tools its ACLs allow (when the session asked for them), and the resources. Built on the SDK's low-level `Server`
 * because the tool list is the catalogue's, per key, and changes while the session lives.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  LoggingLevelSchema,
  SetLevelRequestSchema,
  type LoggingLevel,
  type ProgressToken,
  type ElicitRequestFormParams,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
  ResultSchema,
  type RequestId,
  type ServerNotification,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ErrorCode,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type GetPromptResult,
  type ReadResourceResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { version } from '../../package.json';
import { hasScope, type Caller } from '../../rules/api-key';
import { currentAgentFace } from './agent-face';
import {
  complete,
  getPrompt,
  listFaceResources,
  listFaceTemplates,
  listPrompts,
  readFaceResource,
} from './agent-face-requests';
import { callCapabilityTool, capabilityTools, type CapabilityTool } from './capability-tools';
import type { McpDeps, ToolCall } from './context';
import { reachTools, visibleReachTools } from './reach-tools';
import { listResources, readResource, RESOURCE_TEMPLATES } from './resources';
import { errorBody } from '../errors';
import type { ToolAnswer } from './send-and-wait';
import { toolErrorOf } from './tool-result';

export const INSTRUCTIONS =
  'Agent-Reach delivers messages to AI agents durably. Find agents with reach_search_agents, see where an intent would ' +
  'go with reach_route, send with reach_send (by intent or to a named agent capability) and read a message with ' +
  'reach_status. Agent cards and message statuses are also resources: reach://agents/{agent_id}, reach://messages/{message_id}.';

/** The levels of MCP log lines, least severe first. */
const LOG_LEVELS: readonly LoggingLevel[] = LoggingLevelSchema.options;

export interface SessionOptions {
  caller: Caller;
  /** Whether each reachable capability is listed as a tool of its own. */
  capabilityTools: boolean;
  /** The agent face (`?agent=`, agent-face.ts): this agent's capabilities under their own names, and nothing else. */
  agent?: string;
}

/** The tools a session lists: the reach tools, then the capability tools, as the catalogue is now (or the agent face's). */
export async function listedTools(deps: McpDeps, session: SessionOptions): Promise<Tool[]> {
  if (session.agent !== undefined) {
    if (!hasScope(session.caller, 'send')) return [];
    return (await currentAgentFace(deps, session.caller, session.agent)).tools.map((t) => t.definition);
  }
  const reach = visibleReachTools(reachTools(deps.config.MCP_SEND_WAIT_MS), session.caller).map((t) => t.definition);
  // Capability tools send messages: a key without the send scope has none.
  if (!session.capabilityTools || !hasScope(session.caller, 'send')) return reach;
  return [
    ...reach,
    ...(await sessionCapabilityTools(deps, session)).filter((t) => t.reachable).map((t) => t.definition),
  ];
}

async function sessionCapabilityTools(deps: McpDeps, session: SessionOptions): Promise<CapabilityTool[]> {
  await deps.catalogue.index.ensureCurrent(deps.logger);
  return capabilityTools(deps.catalogue.index.agents(session.caller.tenant), session.caller);
}

/** Runs one tool for a caller. */
export type ToolRun = (call: ToolCall, args: unknown) => Promise<ToolAnswer>;

/** The capability tool called `name` for `session` (the agent face's, or a capability tool), if it is one. */
export async function capabilityToolFor(
  deps: McpDeps,
  session: SessionOptions,
  name: string,
): Promise<CapabilityTool | undefined> {
  if (session.agent !== undefined)
    return (await currentAgentFace(deps, session.caller, session.agent)).tools.find((t) => t.definition.name === name);
  if (!session.capabilityTools || reachTools(deps.config.MCP_SEND_WAIT_MS).some((t) => t.definition.name === name))
    return undefined;
  return (await sessionCapabilityTools(deps, session)).find((t) => t.definition.name === name && t.reachable);
}

/** How to run the tool called `name` for `session`, or undefined when it has none of that name. */
export async function toolRunner(deps: McpDeps, session: SessionOptions, name: string): Promise<ToolRun | undefined> {
  if (session.agent === undefined) {
    const reach = reachTools(deps.config.MCP_SEND_WAIT_MS).find((t) => t.definition.name === name);
    if (reach) return (call, args) => reach.run(deps, call, args);
    if (!session.capabilityTools) return undefined;
    const tool = (await sessionCapabilityTools(deps, session)).find((t) => t.definition.name === name);
    return tool && ((call, args) => callCapabilityTool(deps, call, tool, args));
  }
  const tool = await capabilityToolFor(deps, session, name);
  return tool && ((call, args) => callCapabilityTool(deps, call, tool, args));
}

/** What the unknown-tool error says, in either SDK's error class. */
export function unknownTool(name: string): { message: string; data: object } {
  return {
    message: `Unknown tool: ${name}`,
    data: errorBody('unknown_tool', `No tool ${name}; tools/list shows the tools of this key`),
  };
}

/** What a session's server offers: the agent face adds prompts and completions. Every list follows the catalogue (list-watch.ts). */
export function capabilitiesOf(session: SessionOptions) {
  const face = session.agent !== undefined;
  return {
    tools: { listChanged: true },
    resources: { listChanged: true },
    ...(face ? { prompts: { listChanged: true }, completions: {} } : {}),
  };
}

/** What a session's server tells the client about itself. */
export function instructionsOf(session: SessionOptions): string {
  if (session.agent === undefined) return INSTRUCTIONS;
  return `The agent "${session.agent}" through Agent-Reach: its capabilities are the tools, prompts and resources here; every call is a message delivered to it durably.`;
}

/** How a 2025-11-25 client's answer to each request of session-rounds.ts is read. */
const RESULT_SCHEMAS: Record<string, typeof ResultSchema> = {
  'elicitation/create': ElicitResultSchema as unknown as typeof ResultSchema,
  'sampling/createMessage': CreateMessageResultSchema as unknown as typeof ResultSchema,
  'roots/list': ListRootsResultSchema as unknown as typeof ResultSchema,
};

/** How long a 2025-11-25 call waits for its user's answer to an elicitation (asking.ts) or another request to its client. */
const ELICITATION_TIMEOUT_MS = 600_000;

/** Logger name of the log lines a tool call sends (its message's life: accepted, its states, its end). */
const LOGGER = 'agent-reach';

type SessionExtra = {
  signal: AbortSignal;
  requestId: RequestId;
  sendNotification: (n: ServerNotification) => Promise<void>;
};

/** What one request of a session does for the agent: its caller, the session's client, its progress and log lines. */
function sessionCall(
  server: Server,
  session: SessionOptions,
  extra: SessionExtra,
  progressToken: ProgressToken | undefined,
  logLevel: LoggingLevel | undefined,
): ToolCall {
  return {
    caller: session.caller,
    signal: extra.signal,
    session: {
      capabilities: (server.getClientCapabilities() ?? {}) as Record<string, unknown>,
      request: (method: string, params: Record<string, unknown>) =>
        server.request({ method, params } as never, RESULT_SCHEMAS[method] ?? ResultSchema, {
          relatedRequestId: extra.requestId,
          signal: extra.signal,
          timeout: ELICITATION_TIMEOUT_MS,
        }),
    },
    // A question for the caller goes on the call's own stream, and waits for its user as long as a sealed state lives.
    ...(server.getClientCapabilities()?.elicitation
      ? {
          elicit: (params: { message: string; requestedSchema: Record<string, unknown> }) =>
            server.elicitInput(params as ElicitRequestFormParams, {
              relatedRequestId: extra.requestId,
              signal: extra.signal,
              timeout: ELICITATION_TIMEOUT_MS,
            }),
        }
      : {}),
    ...(progressToken === undefined
      ? {}
      : {
          progress: (progress: number, message: string) =>
            extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, message } }),
        }),
    // Sent only once the client chose a level (logging/setLevel), and only lines at or above it.
    ...(logLevel === undefined
      ? {}
      : {
          log: async (level: 'info' | 'debug', data: string) => {
            if (LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(logLevel))
              await extra.sendNotification({
                method: 'notifications/message',
                params: { level, logger: LOGGER, data },
              });
          },
        }),
  };
}

type CallOf = (extra: SessionExtra, progressToken: ProgressToken | undefined) => ToolCall;

/** The agent face's resources, prompts and completions (agent-face-requests.ts). */
function handleFaceRequests(server: Server, deps: McpDeps, caller: Caller, agent: string, callOf: CallOf): void {
  server.setRequestHandler(ListResourcesRequestSchema, () => listFaceResources(deps, { caller }, agent));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => listFaceTemplates(deps, { caller }, agent));
  // A session's requests have no round (McpRound): an agent's input_required result is never passed on here.
  server.setRequestHandler(
    ReadResourceRequestSchema,
    async (request, extra) =>
      (await readFaceResource(
        deps,
        callOf(extra, request.params._meta?.progressToken),
        agent,
        request.params.uri,
      )) as ReadResourceResult,
  );
  server.setRequestHandler(ListPromptsRequestSchema, () => listPrompts(deps, { caller }, agent));
  server.setRequestHandler(
    GetPromptRequestSchema,
    async (request, extra) =>
      (await getPrompt(
        deps,
        callOf(extra, request.params._meta?.progressToken),
        agent,
        request.params.name,
        request.params.arguments,
      )) as GetPromptResult,
  );
  server.setRequestHandler(CompleteRequestSchema, (request) =>
    complete(deps, { caller }, agent, request.params.ref, request.params.argument),
  );
}

export function createSessionServer(deps: McpDeps, session: SessionOptions): Server {
  const server = new Server(
    { name: 'agent-reach', title: 'Agent-Reach', version },
    { capabilities: { ...capabilitiesOf(session), logging: {} }, instructions: instructionsOf(session) },
  );
  const { caller } = session;
  let logLevel: LoggingLevel | undefined;
  // Answered here rather than by the SDK's own handler, so that a tool call knows the session's level.
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    logLevel = request.params.level;
    return {};
  });
  const callOf: CallOf = (extra, progressToken) => sessionCall(server, session, extra, progressToken, logLevel);

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await listedTools(deps, session) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    const call = callOf(extra, request.params._meta?.progressToken);
    const run = await toolRunner(deps, session, name);
    // A tool that does not exist is the protocol's error (the specification's "Unknown tool": -32602), not a tool result.
    if (!run) throw new McpError(ErrorCode.InvalidParams, unknownTool(name).message, unknownTool(name).data);
    try {
      // A session's call has no round (McpRound): an agent's input_required result is never passed on here.
      return (await run(call, args)) as CallToolResult;
    } catch (error) {
      return toolErrorOf(error, deps.logger, name);
    }
  });

  if (session.agent !== undefined) {
    handleFaceRequests(server, deps, caller, session.agent, callOf);
    return server;
  }
  server.setRequestHandler(ListResourcesRequestSchema, () => listResources(deps, caller));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => readResource(deps, caller, request.params.uri));
  return server;
}
