/** MCP clients and an SDK agent for the MCP face's tests: the official TypeScript client over Streamable HTTP. */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ReachAgent, type AgentCard, type Handler } from '../../sdk';
import { freePort } from '../../supervisor/dev-servers';
import { TEST_API_KEY } from './http';

/** A connected MCP client of `baseUrl/mcp` with `key`; `query` is added to the URL (e.g. `capability_tools=true`). */
export async function mcpClient(baseUrl: string, key: string, query = ''): Promise<Client> {
  const client = new Client({ name: 'agent-reach-test', version: '1.0.0' });
  const url = new URL(`${baseUrl}/mcp${query ? `?${query}` : ''}`);
  await client.connect(
    new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  );
  return client;
}

/** The JSON a tool answered (its structured content), and whether it is an error. */
export function toolAnswer(result: unknown): { isError: boolean; body: any } {
  const r = result as CallToolResult;
  return {
    isError: Boolean(r.isError),
    body: r.structuredContent ?? JSON.parse((r.content[0] as { text: string }).text),
  };
}

/**
 * An SDK agent listening on a free port, registered with `apiKey` (in its tenant; the test system's admin key by
 * default); quick handlers answer inline, those slower than `inlineMs` with 202 and a receipt. `stop` closes it.
 */
export async function sdkAgent(
  gateway: string,
  card: AgentCard,
  handler: Handler,
  { inlineMs = 2_000, apiKey = TEST_API_KEY }: { inlineMs?: number; apiKey?: string } = {},
): Promise<{ agent: ReachAgent; agentId: string; stop(): Promise<void> }> {
  const port = await freePort();
  const agent = new ReachAgent({ gateway, apiKey, endpoint: `http://127.0.0.1:${port}/`, inlineMs, card });
  await agent.register();
  const server: Server = createServer(agent.httpHandler(handler));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    agent,
    agentId: agent.identity!.agent_id,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * A pass-through HTTP proxy to `target` that notes every `Mcp-Session-Id` the gateway hands out (streams are piped,
 * so notifications flow); lets a test end a session behind a client's back.
 */
export async function sessionRecordingProxy(
  target: string,
): Promise<{ url: string; sessions: string[]; stop(): Promise<void> }> {
  const sessions: string[] = [];
  const port = await freePort();
  const server = createServer((req, res) => {
    const upstream = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      const session = answer.headers['mcp-session-id'];
      if (typeof session === 'string' && !sessions.includes(session)) sessions.push(session);
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    sessions,
    stop: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
