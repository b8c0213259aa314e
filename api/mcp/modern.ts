/**
 * Revision 2026-07-28 of MCP on `/mcp`, beside the 2025-11-25 sessions (sessions.ts): requests without a session,
 * each carrying its protocol version and client information in `_meta` (stateless), `server/discover`, the
 * `Mcp-Method`/`Mcp-Name` headers checked against the body, caching hints on the list results. Served by the
 * official v2 SDK (`@modelcontextprotocol/server`, `createMcpHandler` in its strict modern mode): one server per
 * request, built for the request's key from the same tools and resources as a session's (modern-server.ts). Which
 * revision a request speaks is the SDK's own classification (`isLegacyRequest`): requests without the 2026-07-28
 * envelope go on to the sessions, as before.
 *
 * `subscriptions/listen` streams are the SDK's too, told of changes to their own key's lists (listen-bus.ts). Bounds:
 * a key holds at most MCP_MAX_LISTENS_PER_KEY streams on a replica, the replica MCP_MAX_LISTENS; one more is refused
 * in-band, as the SDK refuses past its own limit (-32603, before the acknowledgement).
 */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createMcpHandler, isLegacyRequest, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import { callerIdOf } from '../../rules/api-key';
import { errorBody } from '../errors';
import type { McpDeps } from './context';
import { stateCodec, type StateCodec } from './input-rounds';
import { ListenBus } from './listen-bus';
import { listFingerprints, type ListWatch } from './list-watch';
import { createModernServer } from './modern-server';
import type { SessionOptions } from './server';

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

/** The id of a `subscriptions/listen` request, or undefined for any other body. */
function listenRequestId(body: unknown): string | number | undefined {
  const { method, id } = (body ?? {}) as { method?: unknown; id?: unknown };
  if (method !== 'subscriptions/listen') return undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** The 2026-07-28 leg of `/mcp`: the caller's session options ride on the request's auth info. */
export class ModernMcp {
  private readonly handler: McpHttpHandler;
  private readonly bus: ListenBus;
  private codec?: StateCodec;
  /** Open `subscriptions/listen` streams per key. */
  private readonly listens = new Map<string, number>();

  constructor(
    private readonly deps: McpDeps,
    watch: ListWatch,
  ) {
    this.bus = new ListenBus(watch, deps.logger);
    this.handler = createMcpHandler(
      (ctx) =>
        createModernServer(
          deps,
          ctx.authInfo?.extra?.session as SessionOptions,
          (this.codec ??= stateCodec(deps.sealKeys)),
        ),
      {
        legacy: 'reject',
        bus: this.bus,
        maxSubscriptions: deps.config.MCP_MAX_LISTENS,
        onerror: (error) => deps.logger.debug({ err: error }, 'MCP 2026-07-28 request refused'),
      },
    );
  }

  async serve(request: Request, parsedBody: unknown, session: SessionOptions, res: ExpressResponse): Promise<void> {
    const listenId = listenRequestId(parsedBody);
    if (listenId === undefined) return this.answer(await this.fetch(request, parsedBody, session), res);
    const key = callerIdOf(session.caller);
    const open = this.listens.get(key) ?? 0;
    if (open >= this.deps.config.MCP_MAX_LISTENS_PER_KEY) return this.refuseListen(listenId, open, res);
    this.listens.set(key, open + 1);
    res.on('close', () => this.closed(key));
    const fingerprints = await listFingerprints(this.deps, session);
    const answer = await this.bus.listening({ options: session, fingerprints }, () =>
      this.fetch(request, parsedBody, session),
    );
    return this.answer(answer, res);
  }

  private fetch(request: Request, parsedBody: unknown, session: SessionOptions): Promise<Response> {
    return this.handler.fetch(request, {
      parsedBody,
      authInfo: {
        token: '',
        clientId: session.caller.key_id ?? session.caller.tenant,
        scopes: [...(session.caller.scopes ?? [])],
        extra: { session },
      },
    });
  }

  /** The SDK's answer, a JSON body or a stream, on express's response. */
  private answer(answer: Response, res: ExpressResponse): void {
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

  private refuseListen(id: string | number, open: number, res: ExpressResponse): void {
    const message = `This key holds ${open} subscriptions/listen streams on this replica, its most (MCP_MAX_LISTENS_PER_KEY)`;
    res.status(200).json({
      jsonrpc: '2.0',
      id,
      error: { code: -32603, message: 'Subscription limit reached', data: errorBody('rate_limited', message) },
    });
  }

  private closed(key: string): void {
    const open = (this.listens.get(key) ?? 1) - 1;
    if (open > 0) this.listens.set(key, open);
    else this.listens.delete(key);
  }

  /** Open `subscriptions/listen` streams of a key (tests). */
  listensOf(key: string): number {
    return this.listens.get(key) ?? 0;
  }

  close(): Promise<void> {
    return this.handler.close();
  }
}
