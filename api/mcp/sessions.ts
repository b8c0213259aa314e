/**
 * The MCP face's Streamable HTTP endpoint, `/mcp` (POST, GET, DELETE), and the sessions it holds. A request of
 * revision 2026-07-28 (no session; modern.ts) is answered on its own; the others are 2025-11-25 sessions.
 *
 * Every request is authenticated as on `/v1/messages` (`identifyCaller`: the API key, its tenant's rate limit); a
 * session belongs to the key that opened it, and a request naming another key's session is answered as if the
 * session did not exist (404, after which a client starts a new one). Sessions live in this replica's memory: with
 * several api replicas, route `/mcp` by the `Mcp-Session-Id` header (docs/mcp.md).
 *
 * Bounds: a key holds at most MCP_MAX_SESSIONS_PER_KEY sessions (opening one more closes its least recently used);
 * a tenant at most MCP_MAX_SESSIONS_PER_TENANT and the replica at most MCP_MAX_SESSIONS (past either, `initialize`
 * is refused with 429, so one tenant cannot close another's sessions). A session that makes no request for
 * MCP_SESSION_IDLE_MS is closed, its notification stream (GET) with it. Requests whose Host (or Origin) is not the
 * gateway's are refused before anything else (DNS rebinding; mcp-origin.ts).
 *
 * Sessions are told when one of their lists changed with the catalogue
 * (`notifications/{tools,prompts,resources}/list_changed` on their GET stream; list-watch.ts), as are 2026-07-28
 * `subscriptions/listen` streams (modern.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { Router, type Response } from 'express';
import { callerIdOf, type Caller } from '../../rules/api-key';
import { callerOf } from '../caller-auth';
import { ApiError } from '../errors';
import { mcpQuery } from '../schemas';
import { parseInput } from '../validate';
import type { McpDeps } from './context';
import { originGuard } from './mcp-origin';
import { listFingerprints, ListWatch, type ListKind } from './list-watch';
import { isModernRequest, ModernMcp, webRequest } from './modern';
import { createSessionServer, type SessionOptions } from './server';

interface Session {
  id?: string;
  options: SessionOptions;
  server: Server;
  transport: StreamableHTTPServerTransport;
  /** When it last made a request (holding its GET stream open is not one). */
  lastSeen: number;
  /** Stops following the catalogue (sessions whose lists follow it). */
  unfollow?: () => void;
}

/** Tells a session's client that one of its lists changed. */
function sendListChanged(server: Server, kind: ListKind): Promise<void> {
  if (kind === 'prompts') return server.sendPromptListChanged();
  if (kind === 'resources') return server.sendResourceListChanged();
  return server.sendToolListChanged();
}

/** A JSON-RPC error answer outside any session (the transport answers those inside one). */
function rpcError(res: Response, status: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

export class McpFace {
  private readonly sessions = new Map<string, Session>();
  private timer?: NodeJS.Timeout;
  private readonly watch: ListWatch;
  private readonly modern: ModernMcp;

  constructor(
    private readonly deps: McpDeps,
    private readonly now: () => number = Date.now,
  ) {
    this.watch = new ListWatch(deps);
    this.modern = new ModernMcp(deps, this.watch);
  }

  /** The `/mcp` routes, to mount after `identifyCaller` and the JSON body parser. */
  routes(): Router {
    const router = Router();
    router.all('/mcp', originGuard(this.deps.config), async (req, res) => {
      const caller = callerOf(res);
      if (!caller) throw new ApiError(401, 'unauthenticated', 'Send an API key as "Authorization: Bearer rk_…"');
      const sessionId = req.get('mcp-session-id');
      if (!sessionId) {
        const request = webRequest(req);
        if (await isModernRequest(request, req.body))
          return this.modern.serve(request, req.body, this.optionsOf(caller, req.query), res);
      }
      if (sessionId) {
        const session = this.sessions.get(sessionId);
        if (!session || callerIdOf(session.options.caller) !== callerIdOf(caller))
          return rpcError(res, 404, 'Session not found: start a new one with initialize');
        session.lastSeen = this.now();
        return session.transport.handleRequest(req, res, req.body);
      }
      if (req.method !== 'POST' || !isInitializeRequest(req.body))
        return rpcError(res, 400, 'No session: send initialize first (without Mcp-Session-Id)');
      const options = this.optionsOf(caller, req.query);
      const full = this.fullFor(caller);
      if (full) {
        res.set('retry-after', String(Math.ceil(this.sweepMs() / 1000)));
        return rpcError(res, 429, `${full}: close a session (DELETE /mcp) or wait for idle ones to close`);
      }
      const session = await this.open(options);
      await session.transport.handleRequest(req, res, req.body);
    });
    return router;
  }

  /** What the query asks of the session (or of one 2026-07-28 request). */
  private optionsOf(caller: Caller, query: unknown): SessionOptions {
    const { capability_tools, agent } = parseInput(mcpQuery, query, 'query');
    return {
      caller,
      capabilityTools: capability_tools ?? this.deps.config.MCP_CAPABILITY_TOOLS,
      ...(agent === undefined ? {} : { agent }),
    };
  }

  private async open(options: SessionOptions): Promise<Session> {
    this.startSweep();
    const server = createSessionServer(this.deps, options);
    const session: Session = {
      options,
      server,
      lastSeen: this.now(),
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          session.id = id;
          this.sessions.set(id, session);
          this.limitSessionsOf(callerIdOf(options.caller));
        },
      }),
    };
    server.onclose = () => {
      if (session.id) this.sessions.delete(session.id);
      session.unfollow?.();
    };
    const fingerprints = await listFingerprints(this.deps, options);
    session.unfollow = this.watch.follow({ options, fingerprints, changed: (kind) => sendListChanged(server, kind) });
    await server.connect(session.transport);
    return session;
  }

  /**
   * Why `caller` may not open one more session here, or undefined. A key at its own cap may (its least recently used
   * session makes room); otherwise its tenant and the replica must be under theirs.
   */
  private fullFor(caller: Caller): string | undefined {
    const { MCP_MAX_SESSIONS, MCP_MAX_SESSIONS_PER_TENANT, MCP_MAX_SESSIONS_PER_KEY } = this.deps.config;
    let ofKey = 0;
    let ofTenant = 0;
    for (const { options } of this.sessions.values()) {
      if (callerIdOf(options.caller) === callerIdOf(caller)) ofKey += 1;
      if (options.caller.tenant === caller.tenant) ofTenant += 1;
    }
    if (ofKey >= MCP_MAX_SESSIONS_PER_KEY) return undefined;
    if (ofTenant >= MCP_MAX_SESSIONS_PER_TENANT)
      return `This tenant holds ${ofTenant} MCP sessions on this replica, its most (MCP_MAX_SESSIONS_PER_TENANT)`;
    if (this.sessions.size >= MCP_MAX_SESSIONS)
      return `This replica holds ${this.sessions.size} MCP sessions, its most (MCP_MAX_SESSIONS)`;
    return undefined;
  }

  private limitSessionsOf(callerId: string): void {
    const own = [...this.sessions.values()].filter((s) => callerIdOf(s.options.caller) === callerId);
    own.sort((a, b) => a.lastSeen - b.lastSeen);
    for (const session of own.slice(0, Math.max(0, own.length - this.deps.config.MCP_MAX_SESSIONS_PER_KEY)))
      void this.closeSession(session);
  }

  /** Sessions held now. */
  get size(): number {
    return this.sessions.size;
  }

  private async closeSession(session: Session): Promise<void> {
    if (session.id) this.sessions.delete(session.id);
    session.unfollow?.();
    await session.server
      .close()
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'MCP session close failed'));
  }

  private startSweep(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.closeIdle(), this.sweepMs());
    this.timer.unref();
  }

  /** How often idle sessions are looked for (also how long a refused `initialize` is asked to wait). */
  private sweepMs(): number {
    return Math.min(60_000, Math.max(1_000, this.deps.config.MCP_SESSION_IDLE_MS / 4));
  }

  private closeIdle(): void {
    const before = this.now() - this.deps.config.MCP_SESSION_IDLE_MS;
    for (const session of this.sessions.values()) if (session.lastSeen < before) void this.closeSession(session);
  }

  /** Closes every session and stops the timers (the replica is stopping). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await Promise.all([...this.sessions.values()].map((s) => this.closeSession(s)));
    await this.modern.close();
    this.watch.close();
  }
}
