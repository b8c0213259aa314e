/**
 * The v2 `Server` that answers one 2026-07-28 request (modern.ts) for the request's key: the same tools, resources
 * and (on an agent face) prompts and completions as a 2025-11-25 session's (server.ts), caching hints on the lists,
 * the Tasks extension (tasks.ts) and input_required rounds (input-rounds.ts).
 */
import type { z } from 'zod';
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type GetPromptResult,
  type ListToolsResult,
  type ProgressToken,
  type ReadResourceResult,
  type ServerCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { version } from '../../package.json';
import {
  complete,
  getPrompt,
  listFaceResources,
  listFaceTemplates,
  listPrompts,
  readFaceResource,
} from './agent-face-requests';
import { startCapabilityMessage } from './capability-tools';
import type { McpDeps, ToolCall } from './context';
import { roundOf, sealedAnswer, type StateCodec } from './input-rounds';
import { isInputRequired, type AgentInputRequired } from './mcp-results';
import { listResources, readResource, RESOURCE_TEMPLATES } from './resources';
import type { ToolAnswer } from './send-and-wait';
import {
  capabilitiesOf,
  capabilityToolFor,
  instructionsOf,
  listedTools,
  toolRunner,
  unknownTool,
  type SessionOptions,
} from './server';
import {
  cancelTask,
  createTaskResult,
  getTask,
  missingTasksCapability,
  taskParams,
  TASKS_EXTENSION,
  tasksDeclared,
  updateTask,
} from './tasks';
import { answeredArguments, parametersQuestion } from './task-parameters';
import { toolErrorOf } from './tool-result';

/** A v1 `McpError` (resources.ts) as the v2 SDK's protocol error, so that it is answered with its code and data. */
function asProtocolError(error: unknown): unknown {
  if (error instanceof Error && typeof (error as { code?: unknown }).code === 'number') {
    const { code, data } = error as Error & { code: number; data?: unknown };
    return new ProtocolError(code, error.message.replace(/^MCP error -?\d+: /, ''), data);
  }
  return error;
}

async function asProtocolErrors<T>(answer: () => Promise<T>): Promise<T> {
  try {
    return await answer();
  } catch (error) {
    throw asProtocolError(error);
  }
}

/** What one request for `name` does for the agent: its caller, its round, its progress. */
function callOf(
  session: SessionOptions,
  ctx: ServerContext,
  progressToken: ProgressToken | undefined,
  name: string,
): ToolCall {
  return {
    caller: session.caller,
    signal: ctx.mcpReq.signal,
    round: roundOf(ctx, name),
    ...(progressToken === undefined
      ? {}
      : {
          progress: (progress: number, message: string) =>
            ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, message } }),
        }),
  };
}

function newServer(deps: McpDeps, session: SessionOptions, codec: StateCodec): Server {
  // Lists are per key and follow the catalogue: a client may keep them as long as the catalogue is re-read.
  const hint = { ttlMs: deps.config.CATALOGUE_REFRESH_MS, cacheScope: 'private' as const };
  return new Server(
    { name: 'agent-reach', title: 'Agent-Reach', version },
    {
      // The Tasks extension (tasks.ts): a capability tool's call may be a task, its message.
      capabilities: { ...capabilitiesOf(session), extensions: { [TASKS_EXTENSION]: {} } } as ServerCapabilities,
      instructions: instructionsOf(session),
      cacheHints: {
        'tools/list': hint,
        'resources/list': hint,
        'resources/templates/list': hint,
        'prompts/list': hint,
        'server/discover': hint,
      },
      requestState: { verify: (state, ctx) => codec.verify(state, ctx) },
    },
  );
}

/**
 * A capability tool's call as a task (tasks.ts), when the tool may be one and the client declared the extension; the
 * client is asked first for required parameters the arguments lack (task-parameters.ts).
 */
async function taskAnswer(
  deps: McpDeps,
  session: SessionOptions,
  ctx: ServerContext,
  call: ToolCall,
  { name, arguments: args }: { name: string; arguments?: Record<string, unknown> },
): Promise<CallToolResult | AgentInputRequired | undefined> {
  const task = await capabilityToolFor(deps, session, name);
  if (!task || task.taskSupport === 'forbidden') return undefined;
  const declared = tasksDeclared(ctx);
  if (task.taskSupport === 'required' && !declared) throw missingTasksCapability(`${name} runs as a task only`);
  if (!declared) return undefined;
  const given = answeredArguments(call, args);
  const question = parametersQuestion(call, task, given);
  if (question) return question;
  try {
    return createTaskResult(deps, await startCapabilityMessage(deps, call, task, given)) as unknown as CallToolResult;
  } catch (error) {
    return toolErrorOf(error, deps.logger, name);
  }
}

function handleTools(server: Server, deps: McpDeps, session: SessionOptions, codec: StateCodec): void {
  // The same JSON as a session's list; v1's and v2's types say JSON Schema each their own way.
  server.setRequestHandler('tools/list', async () => ({
    tools: (await listedTools(deps, session)) as ListToolsResult['tools'],
  }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: args } = request.params;
    const call = callOf(session, ctx, request.params._meta?.progressToken, name);
    const task = await taskAnswer(deps, session, ctx, call, request.params);
    if (task) return isInputRequired(task) ? sealedAnswer(codec, ctx, name, task) : task;
    const run = await toolRunner(deps, session, name);
    if (!run)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, unknownTool(name).message, unknownTool(name).data);
    let answer: ToolAnswer;
    try {
      answer = await run(call, args);
    } catch (error) {
      return toolErrorOf(error, deps.logger, name);
    }
    return isInputRequired(answer) ? sealedAnswer(codec, ctx, name, answer) : answer;
  });
}

/** Tasks are messages; only a client that declared the extension may use them (SEP-2575: -32021 otherwise). */
function handleTasks(server: Server, deps: McpDeps, { caller }: SessionOptions): void {
  const taskMethod = <T>(
    method: string,
    handle: (params: z.output<typeof taskParams>, ctx: ServerContext) => Promise<T>,
  ) =>
    server.setRequestHandler(method, { params: taskParams }, (params, ctx) => {
      if (!tasksDeclared(ctx)) throw missingTasksCapability(`${method} is part of the Tasks extension`);
      return handle(params, ctx) as Promise<never>;
    });
  taskMethod('tasks/get', ({ taskId }) => getTask(deps, { caller }, taskId));
  taskMethod('tasks/cancel', ({ taskId }) => cancelTask(deps, { caller }, taskId));
  // The SDK lifts inputResponses out of the params it hands over (ctx.mcpReq.inputResponses).
  taskMethod('tasks/update', ({ taskId, inputResponses }, ctx) =>
    updateTask(deps, { caller }, taskId, ctx.mcpReq.inputResponses ?? inputResponses),
  );
}

/** The agent face's resources, prompts and completions (agent-face-requests.ts). */
function handleFace(server: Server, deps: McpDeps, session: SessionOptions & { agent: string }, codec: StateCodec) {
  const { caller, agent } = session;
  /** An agent face's answer, its input_required state sealed for `name`. */
  const answered = async <T>(
    ctx: ServerContext,
    name: string,
    answer: () => Promise<T | AgentInputRequired>,
  ): Promise<T | AgentInputRequired> => {
    const result = await asProtocolErrors(answer);
    return isInputRequired(result) ? sealedAnswer(codec, ctx, name, result) : result;
  };
  server.setRequestHandler('resources/list', () => listFaceResources(deps, { caller }, agent));
  server.setRequestHandler('resources/templates/list', () => listFaceTemplates(deps, { caller }, agent));
  server.setRequestHandler('resources/read', (request, ctx) => {
    const { uri } = request.params;
    const call = callOf(session, ctx, request.params._meta?.progressToken, uri);
    return answered(ctx, uri, () => readFaceResource(deps, call, agent, uri)) as Promise<ReadResourceResult>;
  });
  server.setRequestHandler('prompts/list', () => listPrompts(deps, { caller }, agent));
  server.setRequestHandler('prompts/get', (request, ctx) => {
    const { name, arguments: args } = request.params;
    const call = callOf(session, ctx, request.params._meta?.progressToken, name);
    return answered(ctx, name, () => getPrompt(deps, call, agent, name, args)) as Promise<GetPromptResult>;
  });
  server.setRequestHandler('completion/complete', (request) =>
    complete(deps, { caller }, agent, request.params.ref, request.params.argument),
  );
}

/** The reach resources: agent cards and message statuses (resources.ts). */
function handleReachResources(server: Server, deps: McpDeps, { caller }: SessionOptions): void {
  server.setRequestHandler('resources/list', () => listResources(deps, caller));
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler('resources/read', (request) =>
    asProtocolErrors(() => readResource(deps, caller, request.params.uri)),
  );
}

export function createModernServer(deps: McpDeps, session: SessionOptions, codec: StateCodec): Server {
  const server = newServer(deps, session, codec);
  handleTools(server, deps, session, codec);
  handleTasks(server, deps, session);
  const { agent } = session;
  if (agent !== undefined) handleFace(server, deps, { ...session, agent }, codec);
  else handleReachResources(server, deps, session);
  return server;
}
