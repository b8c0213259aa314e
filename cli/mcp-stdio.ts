/**
 * `npm run --silent mcp -- [--api URL] [--key rk_…] [--capability-tools]`: the MCP face over stdio, for desktop
 * clients that start their MCP servers as processes. It holds no tools of its own: it relays each JSON-RPC message
 * between stdin/stdout and the gateway's `/mcp` (Streamable HTTP, with the key as bearer token), so a stdio client
 * gets exactly what an HTTP client gets — same tools, ACLs, progress and list-changed notifications.
 * The api is `--api`, else $REACH_API, else http://127.0.0.1:3000; the key `--key`, else $REACH_API_KEY.
 * stdout carries only the protocol (hence `npm run --silent`); diagnostics go to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InitializeResultSchema, isJSONRPCRequest, isJSONRPCResultResponse, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { Command } from 'commander';

const program = new Command('reach-mcp')
  .description('The Agent-Reach MCP server over stdio, relaying to a gateway')
  .option('--api <url>', 'the gateway', process.env.REACH_API ?? 'http://127.0.0.1:3000')
  .option('--key <key>', 'an API key (rk_…)', process.env.REACH_API_KEY)
  .option('--capability-tools', 'also list each reachable capability as a tool of its own (default: the gateway\'s MCP_CAPABILITY_TOOLS)')
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
const upstream = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${options.key}` } } });
/** The id of the client's `initialize`, whose answer carries the protocol version later requests must name. */
let initializeId: RequestId | undefined;

/** Messages on their way to the gateway (and their error answers): waited for before exiting. */
const inFlight = new Set<Promise<unknown>>();

local.onmessage = (message: JSONRPCMessage) => {
  if (isJSONRPCRequest(message) && message.method === 'initialize') initializeId = message.id;
  const sending = upstream.send(message).catch(async (error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(`reach-mcp: ${url.origin}: ${reason}\n`);
    // A request must be answered, or the client waits for ever: the failure becomes its error answer.
    if (isJSONRPCRequest(message)) {
      await local.send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: `Agent-Reach gateway at ${url.origin}: ${reason}` } });
    }
  });
  inFlight.add(sending);
  void sending.finally(() => inFlight.delete(sending));
};
upstream.onmessage = (message: JSONRPCMessage) => {
  if (initializeId !== undefined && isJSONRPCResultResponse(message) && message.id === initializeId) {
    const result = InitializeResultSchema.safeParse(message.result);
    if (result.success) upstream.setProtocolVersion(result.data.protocolVersion);
    initializeId = undefined;
  }
  void local.send(message);
};
upstream.onerror = (error) => process.stderr.write(`reach-mcp: ${error.message}\n`);
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
