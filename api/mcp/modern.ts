/**
 * Revision 2026-07-28 of MCP on `/mcp`, beside the 2025-11-25 sessions (sessions.ts): requests without a session,
 * each carrying its protocol version and client information in `_meta` (stateless), `server/discover`, the
 * `Mcp-Method`/`Mcp-Name` headers checked against the body, caching hints on the list results. Served by the
 * official v2 SDK (`@modelcontextprotocol/server`, `createMcpHandler` in its strict modern mode): one server per
 * request, built for the request's key from the same tools and resources as a session's. Which revision a request
 * speaks is the SDK's own classification (`isLegacyRequest`): requests without the 2026-07-28 envelope go on to the
 * sessions, as before.
 */
import { Readable } from 'node:stream';
import type { z } from 'zod';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import {
  createMcpHandler,
  isLegacyRequest,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type GetPromptResult,
  type ReadResourceResult,
  type CallToolResult,
  type ServerCapabilities,
  type ListToolsResult,
  type McpHttpHandler,
  type ProgressToken,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import { version } from '../../package.json';
import type { McpDeps, ToolCall } from './context';
import { listResources, readResource, RESOURCE_TEMPLATES } from './resources';
import {
  complete,
  getPrompt,
  listFaceResources,
  listFaceTemplates,
  listPrompts,
  readFaceResource,
} from './agent-face-requests';
import { startCapabilityMessage } from './capability-tools';
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
import { roundOf, sealedAnswer, stateCodec, type StateCodec } from './input-rounds';
import { isInputRequired, type AgentInputRequired } from './mcp-results';
import type { ToolAnswer } from './send-and-wait';
import { toolErrorOf } from './tool-result';

/** The request as the v2 SDK takes it (a web `Request`), from express's, whose JSON body is parsed already. */
export function webRequest(req: ExpressRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const one of value) headers.append(name, one);
    else if (value !== undefined) headers.set(name, value);
  }
  headers.delete('content-length'); // the body below is written anew
  const hasBody = req.method === 'POST' && req.body !== undefined;
  return new Request(`http://${req.get('host') ?? 'localhost'}${req.originalUrl}`, {
    method: req.method,
    headers,
    ...(hasBody ? { body: JSON.stringify(req.body) } : {}),
  });
}

/** Whether the request speaks 2026-07-28 (the SDK's classification: its `_meta` envelope or the revision's header). */
export async function isModernRequest(request: Request, parsedBody: unknown): Promise<boolean> {
  return !(await isLegacyRequest(request, parsedBody));
}

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

function createModernServer(deps: McpDeps, session: SessionOptions, codec: StateCodec): Server {
  // Lists are per key and follow the catalogue: a client may keep them as long as the catalogue is re-read.
  const hint = { ttlMs: deps.config.CATALOGUE_REFRESH_MS, cacheScope: 'private' as const };
  const server = new Server(
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
  const { caller } = session;
  const callOf = (ctx: ServerContext, progressToken: ProgressToken | undefined, name: string): ToolCall => ({
    caller,
    signal: ctx.mcpReq.signal,
    round: roundOf(ctx, name),
    ...(progressToken === undefined
      ? {}
      : {
          progress: (progress: number, message: string) =>
            ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, message } }),
        }),
  });
  // The same JSON as a session's list; v1's and v2's types say JSON Schema each their own way.
  server.setRequestHandler('tools/list', async () => ({
    tools: (await listedTools(deps, session)) as ListToolsResult['tools'],
  }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: args } = request.params;
    const call = callOf(ctx, request.params._meta?.progressToken, name);
    const task = await capabilityToolFor(deps, session, name);
    if (task && task.taskSupport !== 'forbidden') {
      const declared = tasksDeclared(ctx);
      if (task.taskSupport === 'required' && !declared) throw missingTasksCapability(`${name} runs as a task only`);
      if (declared) {
        try {
          return createTaskResult(
            deps,
            await startCapabilityMessage(deps, call, task, args),
          ) as unknown as CallToolResult;
        } catch (error) {
          return toolErrorOf(error, deps.logger, name);
        }
      }
    }
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
  // Tasks are messages; only a client that declared the extension may use them (SEP-2575: -32021 otherwise).
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
  /** An agent face's answer, its input_required state sealed for `name`. */
  const answered = async <T>(
    ctx: ServerContext,
    name: string,
    answer: () => Promise<T | AgentInputRequired>,
  ): Promise<T | AgentInputRequired> => {
    const result = await asProtocolErrors(answer);
    return isInputRequired(result) ? sealedAnswer(codec, ctx, name, result) : result;
  };
  if (session.agent !== undefined) {
    const agent = session.agent;
    server.setRequestHandler('resources/list', () => listFaceResources(deps, { caller }, agent));
    server.setRequestHandler('resources/templates/list', () => listFaceTemplates(deps, { caller }, agent));
    server.setRequestHandler('resources/read', (request, ctx) => {
      const { uri } = request.params;
      return answered(ctx, uri, () =>
        readFaceResource(deps, callOf(ctx, request.params._meta?.progressToken, uri), agent, uri),
      ) as Promise<ReadResourceResult>;
    });
    server.setRequestHandler('prompts/list', () => listPrompts(deps, { caller }, agent));
    server.setRequestHandler('prompts/get', (request, ctx) => {
      const { name } = request.params;
      return answered(ctx, name, () =>
        getPrompt(deps, callOf(ctx, request.params._meta?.progressToken, name), agent, name, request.params.arguments),
      ) as Promise<GetPromptResult>;
    });
    server.setRequestHandler('completion/complete', (request) =>
      complete(deps, { caller }, agent, request.params.ref, request.params.argument),
    );
    return server;
  }
  server.setRequestHandler('resources/list', () => listResources(deps, caller));
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler('resources/read', (request) =>
    asProtocolErrors(() => readResource(deps, caller, request.params.uri)),
  );
  return server;
}

/** The 2026-07-28 leg of `/mcp`: the caller's session options ride on the request's auth info. */
export class ModernMcp {
  private readonly handler: McpHttpHandler;
  private codec?: StateCodec;

  constructor(deps: McpDeps) {
    this.handler = createMcpHandler(
      (ctx) =>
        createModernServer(
          deps,
          ctx.authInfo?.extra?.session as SessionOptions,
          (this.codec ??= stateCodec(deps.sealKeys)),
        ),
      { legacy: 'reject', onerror: (error) => deps.logger.debug({ err: error }, 'MCP 2026-07-28 request refused') },
    );
  }

  async serve(request: Request, parsedBody: unknown, session: SessionOptions, res: ExpressResponse): Promise<void> {
    const answer = await this.handler.fetch(request, {
      parsedBody,
      authInfo: {
        token: '',
        clientId: session.caller.key_id ?? session.caller.tenant,
        scopes: [...(session.caller.scopes ?? [])],
        extra: { session },
      },
    });
    res.status(answer.status);
    answer.headers.forEach((value, name) => res.setHeader(name, value));
    if (!answer.body) {
      res.end();
      return;
    }
    const body = Readable.fromWeb(answer.body as WebReadableStream);
    res.on('close', () => body.destroy());
    body.pipe(res);
  }

  close(): Promise<void> {
    return this.handler.close();
  }
}
