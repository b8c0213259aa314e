import { z } from 'zod';
import { commaList, flag, positiveMs } from './fields';

/**
 * MCP and A2A faces: sessions, waits and allowed hosts of `/mcp` (docs/mcp.md); waits and streams of `/a2a`, and how
 * A2A agents' cards are fetched and probed (docs/a2a.md).
 */
export const facesShape = {
  /**
   * MCP face (`/mcp`, docs/mcp.md): also publish each capability the key may reach as a tool of its own,
   * `<agent>__<capability>`; a client chooses for its session with `/mcp?capability_tools=true|false`. @default false
   */
  MCP_CAPABILITY_TOOLS: flag.default(false),
  /** MCP face: longest a tool call waits for its message to end before answering with the message id to poll, in ms (at most 120000). @default 30000 */
  MCP_SEND_WAIT_MS: z.coerce.number().int().min(0).max(120_000).default(30_000),
  /** MCP face: how often a waiting tool call reports progress (to clients that asked for it), in ms. @default 5000 */
  MCP_PROGRESS_INTERVAL_MS: positiveMs.default(5_000),
  /**
   * MCP face: a session that makes no request this long is closed, even while it holds its notification stream (its
   * client then starts a new one), in ms. @default 1800000 (30 min)
   */
  MCP_SESSION_IDLE_MS: positiveMs.default(1_800_000),
  /** MCP face: sessions this replica holds at most; past it, `initialize` is answered 429. @default 1000 */
  MCP_MAX_SESSIONS: z.coerce.number().int().min(1).default(1_000),
  /** MCP face: sessions one tenant holds at most on one replica; past it, its `initialize` is answered 429. @default 200 */
  MCP_MAX_SESSIONS_PER_TENANT: z.coerce.number().int().min(1).default(200),
  /** MCP face: sessions one API key holds at most on one replica; opening one more closes its least recently used. @default 100 */
  MCP_MAX_SESSIONS_PER_KEY: z.coerce.number().int().min(1).default(100),
  /** MCP face: 2026-07-28 `subscriptions/listen` streams this replica holds open at most; one more is refused (-32603). @default 1000 */
  MCP_MAX_LISTENS: z.coerce.number().int().min(1).default(1_000),
  /** MCP face: `subscriptions/listen` streams one API key holds open at most on one replica; one more is refused (-32603). @default 10 */
  MCP_MAX_LISTENS_PER_KEY: z.coerce.number().int().min(1).default(10),
  /**
   * MCP face, DNS-rebinding protection: host names (without port, IPv6 in brackets) `/mcp` answers for, comma-separated;
   * a request with another `Host` is refused 403. `*` turns the check off. @default when API_HOST is a loopback
   * address: localhost,127.0.0.1,[::1] and PUBLIC_URL's host; otherwise off
   */
  MCP_ALLOWED_HOSTS: z
    .string()
    .regex(/^(\*|[A-Za-z0-9.:[\]-]+(,[A-Za-z0-9.:[\]-]+)*)$/, 'comma-separated host names, or *')
    .transform((v) => (v === '*' ? '*' : v.split(',')))
    .optional(),
  /**
   * MCP face: origins (`scheme://host[:port]`) allowed to call `/mcp` from a browser, comma-separated; a request with
   * another `Origin` header is refused 403 (one without is not concerned). @default any origin on an allowed host
   */
  MCP_ALLOWED_ORIGINS: commaList
    .refine(
      (list) => list.every((o) => URL.canParse(o) && new URL(o).origin === o),
      'comma-separated origins such as http://localhost:6274',
    )
    .optional(),
  /** Time allowed to fetch a remote A2A agent card, in ms. @default 5000 */
  A2A_FETCH_TIMEOUT_MS: positiveMs.default(5_000),
  /**
   * A2A face (`/a2a`, docs/a2a.md): longest a blocking `SendMessage` waits for its task to end, and longest a stream
   * (`SendStreamingMessage`, `SubscribeToTask`) stays open, in ms (at most 120000); then the task is answered as it
   * is (submitted or working), to follow with `GetTask` or `SubscribeToTask`. @default 30000
   */
  A2A_SEND_WAIT_MS: z.coerce.number().int().min(0).max(120_000).default(30_000),
  /**
   * A2A agents send no heartbeats: each api replica reads the card of every A2A instance this often, and a card that
   * answers counts as a heartbeat (catalogue/a2a-probe.ts), in ms. @default 10000
   */
  A2A_PROBE_INTERVAL_MS: positiveMs.default(10_000),
  /** A2A face: how often a stream reads its task's state while it waits, in ms. @default 1000 */
  A2A_STREAM_POLL_MS: positiveMs.default(1_000),
};
