/**
 * `npm run --silent mcp -- [--api URL] [--key rk_…] [--capability-tools]`: the MCP face over stdio, for desktop
 * clients that start their MCP servers as processes. It holds no tools of its own: it relays each JSON-RPC message
 * between stdin/stdout and the gateway's `/mcp` (Streamable HTTP, with the key as bearer token), so a stdio client
 * gets exactly what an HTTP client gets — same tools, ACLs, progress and list-changed notifications. When the gateway
 * has closed the session (idle, or a replica restarted), the relay opens a new one with the client's `initialize`.
 * The api is `--api`, else $REACH_API, else http://127.0.0.1:3000; the key `--key`, else $REACH_API_KEY.
 * stdout carries only the protocol (hence `npm run --silent`); diagnostics go to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  InitializeResultSchema,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { Command } from 'commander';

const program = new Command('reach-mcp')
  .description('The Agent-Reach MCP server over stdio, relaying to a gateway')
  .option('--api <url>', 'the gateway', process.env.REACH_API ?? 'http://127.0.0.1:3000')
  .option('--key <key>', 'an API key (rk_…)', process.env.REACH_API_KEY)
  .option(
    '--capability-tools',
    "also list each reachable capability as a tool of its own (default: the gateway's MCP_CAPABILITY_TOOLS)",
  )
  .parse();
const options = program.opts<{ api: string; key?: string; capabilityTools?: boolean }>();

function fail(message: string): never {
  process.stderr.write(`reach-mcp: ${message}\n`);
  process.exit(2);
}

if (!options.key) fail('give an API key with --key or REACH_API_KEY');
let url: URL;
try {
  url = new URL('/mcp', options.api);
} catch {
  fail(`--api is not a URL: ${options.api}`);
}
if (options.capabilityTools) url.searchParams.set('capability_tools', 'true');

const local = new StdioServerTransport();
const headers = { authorization: `Bearer ${options.key}` };
/** The client's `initialize`: its answer names the protocol version, and it is sent again to open a new session. */
let clientInitialize: JSONRPCRequest | undefined;
/** Answers the relay waits for itself (its own `initialize` when it reopens a session), by request id. */
const ownRequests = new Map<RequestId, (message: JSONRPCMessage) => void>();
let reopened = 0;

/** A transport to the gateway's `/mcp`, relaying what it receives to the client. */
function connectUpstream(): StreamableHTTPClientTransport {
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  transport.onmessage = (message: JSONRPCMessage) => {
    const id = 'id' in message ? message.id : undefined;
    const own = id === undefined ? undefined : ownRequests.get(id);
    if (own) return own(message);
    if (clientInitialize && isJSONRPCResultResponse(message) && message.id === clientInitialize.id)
      useProtocolOf(transport, message);
    void local.send(message);
  };
  transport.onerror = (error) =>
    process.stderr.write(`reach-mcp: ${error.message}
`);
  return transport;
}

function useProtocolOf(transport: StreamableHTTPClientTransport, answer: JSONRPCMessage): void {
  const result = InitializeResultSchema.safeParse('result' in answer ? answer.result : undefined);
  if (result.success) transport.setProtocolVersion(result.data.protocolVersion);
}

let upstream = connectUpstream();
let reopening: Promise<void> | undefined;

/**
 * The gateway no longer knows our session (it closed it when idle, or its replica restarted): open a new one with the
 * client's own `initialize`, and tell the client its tool list may have changed. Concurrent callers share one.
 */
function reopenSession(): Promise<void> {
  reopening ??= (async () => {
    const previous = upstream;
    upstream = connectUpstream();
    await previous.close().catch(() => undefined);
    await upstream.start();
    const id = `reach-mcp-reopen-${++reopened}`;
    const answered = new Promise<JSONRPCMessage>((resolve) => ownRequests.set(id, resolve));
    await upstream.send({ ...clientInitialize!, id });
    const answer = await answered.finally(() => ownRequests.delete(id));
    if (!isJSONRPCResultResponse(answer))
      throw new Error(`the gateway refused a new session: ${JSON.stringify(answer)}`);
    useProtocolOf(upstream, answer);
    await upstream.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await local.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    process.stderr.write('reach-mcp: the gateway had closed the session; a new one is open\n');
  })().finally(() => (reopening = undefined));
  return reopening;
}

/** Sends to the gateway; a message refused because the session is gone (404) goes again in a new session. */
async function relay(message: JSONRPCMessage): Promise<void> {
  if (reopening) await reopening;
  try {
    await upstream.send(message);
  } catch (error) {
    const sessionGone =
      error instanceof StreamableHTTPError && error.code === 404 && clientInitialize && message !== clientInitialize;
    if (!sessionGone) throw error;
    await reopenSession();
    await upstream.send(message);
  }
}

/** Messages on their way to the gateway (and their error answers): waited for before exiting. */
const inFlight = new Set<Promise<unknown>>();

local.onmessage = (message: JSONRPCMessage) => {
  if (isJSONRPCRequest(message) && message.method === 'initialize') clientInitialize = message;
  const sending = relay(message).catch(async (error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(`reach-mcp: ${url.origin}: ${reason}\n`);
    // A request must be answered, or the client waits for ever: the failure becomes its error answer.
    if (isJSONRPCRequest(message)) {
      await local.send({
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32000, message: `Agent-Reach gateway at ${url.origin}: ${reason}` },
      });
    }
  });
  inFlight.add(sending);
  void sending.finally(() => inFlight.delete(sending));
};

/** The client went away (closed stdin): end the gateway session too, then exit. */
function stop(): void {
  void Promise.allSettled([...inFlight])
    .then(() => upstream.terminateSession())
    .catch(() => undefined)
    .finally(() => process.exit(0));
}
local.onclose = stop;
process.stdin.once('end', stop);

void (async () => {
  await upstream.start();
  await local.start();
})();
