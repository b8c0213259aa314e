/**
 * The MCP face's Streamable HTTP endpoint, `/mcp` (POST, GET, DELETE), and the sessions it holds.
 *
 * Every request is authenticated as on `/v1/messages` (`identifyCaller`: the API key, its tenant's rate limit); a
 * session belongs to the key that opened it, and a request naming another key's session is answered as if the
 * session did not exist (404, after which a client starts a new one). Sessions live in this replica's memory: with
 * several api replicas, route `/mcp` by the `Mcp-Session-Id` header (docs/mcp.md). A session that neither makes a
 * request nor holds its notification stream for MCP_SESSION_IDLE_MS is closed.
 *
 * Sessions listing capability tools are told when their list changed (`notifications/tools/list_changed`): every
 * CATALOGUE_REFRESH_MS the catalogue's change counter is read, and when it moved, each such session's list is
 * rebuilt and compared with the one it had.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { Router, type Response } from 'express';
import { sha256Hex } from '../../rules/ids';
import { callerOf } from '../caller-auth';
import { ApiError } from '../errors';
import { mcpQuery } from '../schemas';
import { parseInput } from '../validate';
import type { McpDeps } from './context';
import { createSessionServer, listedTools, type SessionOptions } from './server';

/** Sessions one key may hold on one replica; opening one more closes its least recently used. */
const MAX_SESSIONS_PER_KEY = 100;

interface Session {
  id?: string;
  options: SessionOptions;
  server: Server;
  transport: StreamableHTTPServerTransport;
  lastSeen: number;
  /** Open GET streams (server-to-client notifications): a session holding one is not idle. */
  openStreams: number;
  /** Of the tool list last shown or checked (capability-tool sessions). */
  toolsFingerprint?: string;
}

function fingerprint(tools: Tool[]): string {
  return sha256Hex(JSON.stringify(tools));
}

/** A JSON-RPC error answer outside any session (the transport answers those inside one). */
function rpcError(res: Response, status: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

export class McpFace {
  private readonly sessions = new Map<string, Session>();
  private timers: NodeJS.Timeout[] = [];
  private seenVersion = -1;
  private watching = false;

  constructor(private readonly deps: McpDeps, private readonly now: () => number = Date.now) {}

  /** The `/mcp` routes, to mount after `identifyCaller` and the JSON body parser. */
  routes(): Router {
    const router = Router();
    router.all('/mcp', async (req, res) => {
      const caller = callerOf(res);
      if (!caller) throw new ApiError(401, 'unauthenticated', 'Send an API key as "Authorization: Bearer rk_…"');
      const sessionId = req.get('mcp-session-id');
      if (sessionId) {
        const session = this.sessions.get(sessionId);
        if (!session || session.options.caller.key_id !== caller.key_id) return rpcError(res, 404, 'Session not found: start a new one with initialize');
        session.lastSeen = this.now();
        if (req.method === 'GET') {
          session.openStreams += 1;
          res.once('close', () => {
            session.openStreams -= 1;
            session.lastSeen = this.now();
          });
        }
        return session.transport.handleRequest(req, res, req.body);
      }
      if (req.method !== 'POST' || !isInitializeRequest(req.body)) return rpcError(res, 400, 'No session: send initialize first (without Mcp-Session-Id)');
      const { capability_tools } = parseInput(mcpQuery, req.query, 'query');
      const session = await this.open({ caller, capabilityTools: capability_tools ?? this.deps.config.MCP_CAPABILITY_TOOLS });
      await session.transport.handleRequest(req, res, req.body);
    });
    return router;
  }

  private async open(options: SessionOptions): Promise<Session> {
    this.startTimers();
    const server = createSessionServer(this.deps, options);
    const session: Session = {
      options,
      server,
      lastSeen: this.now(),
      openStreams: 0,
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          session.id = id;
          this.sessions.set(id, session);
          this.limitSessionsOf(options.caller.key_id);
        },
      }),
    };
    server.onclose = () => {
      if (session.id) this.sessions.delete(session.id);
    };
    if (options.capabilityTools) session.toolsFingerprint = fingerprint(await listedTools(this.deps, options));
    await server.connect(session.transport);
    return session;
  }

  private limitSessionsOf(keyId: string): void {
    const own = [...this.sessions.values()].filter((s) => s.options.caller.key_id === keyId);
    own.sort((a, b) => a.lastSeen - b.lastSeen);
    for (const session of own.slice(0, Math.max(0, own.length - MAX_SESSIONS_PER_KEY))) void this.closeSession(session);
  }

  private async closeSession(session: Session): Promise<void> {
    if (session.id) this.sessions.delete(session.id);
    await session.server.close().catch((error: unknown) => this.deps.logger.warn({ err: error }, 'MCP session close failed'));
  }

  private startTimers(): void {
    if (this.timers.length > 0) return;
    const { MCP_SESSION_IDLE_MS, CATALOGUE_REFRESH_MS } = this.deps.config;
    const sweep = setInterval(() => this.closeIdle(), Math.min(60_000, Math.max(1_000, MCP_SESSION_IDLE_MS / 4)));
    const watch = setInterval(() => void this.watchCatalogue(), CATALOGUE_REFRESH_MS);
    for (const timer of [sweep, watch]) timer.unref();
    this.timers = [sweep, watch];
  }

  private closeIdle(): void {
    const before = this.now() - this.deps.config.MCP_SESSION_IDLE_MS;
    for (const session of this.sessions.values()) if (session.openStreams === 0 && session.lastSeen < before) void this.closeSession(session);
  }

  /** Tells each capability-tool session whose tool list the last catalogue change altered. */
  private async watchCatalogue(): Promise<void> {
    const watched = [...this.sessions.values()].filter((s) => s.options.capabilityTools);
    if (watched.length === 0 || this.watching) return;
    this.watching = true;
    try {
      const { index } = this.deps.catalogue;
      await index.ensureCurrent(this.deps.logger);
      if (index.version === this.seenVersion) return;
      this.seenVersion = index.version;
      for (const session of watched) {
        const now = fingerprint(await listedTools(this.deps, session.options));
        if (now === session.toolsFingerprint) continue;
        session.toolsFingerprint = now;
        await session.server.sendToolListChanged().catch((error: unknown) => this.deps.logger.debug({ err: error }, 'MCP tools/list_changed not sent'));
      }
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'MCP catalogue watch failed');
    } finally {
      this.watching = false;
    }
  }

  /** Closes every session and stops the timers (the replica is stopping). */
  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await Promise.all([...this.sessions.values()].map((s) => this.closeSession(s)));
  }
}
