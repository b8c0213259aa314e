/**
 * The MCP face's session bounds and guards, with the official SDK client over real HTTP against `McpFace` alone
 * (a stand-in for the api's key check puts the caller named by the bearer token on the request): caps per key, per
 * tenant and per replica, idle close of a session that only holds its GET stream, DNS-rebinding protection, and a
 * catalogue change rebuilding tool lists once per key and only for the tenants that changed.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import express from 'express';
import pino from 'pino';
import type { AgentWithInstances } from '../../catalogue/agent-queries';
import type { McpDeps } from '../../api/mcp/context';
import { McpFace } from '../../api/mcp/sessions';
import { mcpAllowedHosts } from '../../api/mcp/mcp-origin';
import { errorHandler } from '../../api/error-middleware';
import { loadConfig } from '../../platform/config';
import type { AgentDoc } from '../../store/agents';

/** Bearer `<tenant>.<key id>` → that caller, with the send scope. */
async function startFace(
  env: Record<string, string>,
  catalogue: { agents: (tenant: string) => AgentWithInstances[]; version: () => number } = {
    agents: () => [],
    version: () => 0,
  },
) {
  const config = loadConfig({ MCP_SESSION_IDLE_MS: '60000', ...env });
  const index = {
    ensureCurrent: async () => undefined,
    agents: catalogue.agents,
    get version() {
      return catalogue.version();
    },
  };
  const face = new McpFace({
    config,
    catalogue: { index } as never,
    logger: pino({ level: 'silent' }),
  } as unknown as McpDeps);
  const app = express();
  app.use((req, res, next) => {
    const [tenant, key_id] = (req.get('authorization') ?? '').replace(/^Bearer /, '').split('.');
    res.locals.caller = { tenant, key_id, scopes: ['read', 'send'] };
    next();
  });
  app.use(express.json());
  app.use(face.routes());
  app.use(errorHandler(pino({ level: 'silent' })));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return {
    face,
    url,
    async connect(tenant: string, keyId: string, query = ''): Promise<Client> {
      const client = new Client({ name: 'sessions-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${url()}${query}`), {
          requestInit: { headers: { authorization: `Bearer ${tenant}.${keyId}` } },
        }),
      );
      return client;
    },
    async stop() {
      await face.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const stops: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
});

/** The HTTP status of an initialize (without the SDK client: it hides the status in an error message). */
async function initializeStatus(url: string, bearer: string, headers: Record<string, string> = {}): Promise<number> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      target,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${bearer}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    );
  });
}

describe('mcp sessions', () => {
  it('mcp sessions - a key past its cap loses its least recently used session; a tenant and the replica past theirs are refused 429', async () => {
    const face = await startFace({
      MCP_MAX_SESSIONS_PER_KEY: '2',
      MCP_MAX_SESSIONS_PER_TENANT: '3',
      MCP_MAX_SESSIONS: '4',
    });
    stops.push(face.stop);
    const first = await face.connect('acme', 'k1');
    await face.connect('acme', 'k1');
    await face.connect('acme', 'k1'); // k1 at its cap: its first session makes room
    await assert.rejects(
      first.listTools(),
      /404|Session not found/,
      'the least recently used session of the key was closed',
    );
    await face.connect('acme', 'k2'); // acme: 3 sessions
    assert.equal(await initializeStatus(face.url(), 'acme.k3'), 429, 'the tenant is at its cap');
    assert.equal(face.face.size, 3);
    await face.connect('beta', 'k4'); // the replica: 4 sessions
    assert.equal(await initializeStatus(face.url(), 'gamma.k5'), 429, 'the replica is at its cap');
    // A key at its own cap still may: it replaces one of its own, taking nothing from others.
    await face.connect('acme', 'k1');
    assert.equal(face.face.size, 4);
  });

  it('mcp sessions - a session that only holds its notification stream is closed when idle, the stream with it', async () => {
    const face = await startFace({ MCP_SESSION_IDLE_MS: '1000' });
    stops.push(face.stop);
    const post = (body: object, session?: string) =>
      fetch(face.url(), {
        method: 'POST',
        headers: {
          authorization: 'Bearer acme.k1',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(session ? { 'mcp-session-id': session } : {}),
        },
        body: JSON.stringify(body),
      });
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId)).text();
    const opened = Date.now();
    const stream = await fetch(face.url(), {
      headers: { authorization: 'Bearer acme.k1', 'mcp-session-id': sessionId, accept: 'text/event-stream' },
    });
    assert.equal(stream.status, 200);
    await stream.text(); // ends when the gateway closes the session
    assert.ok(Date.now() - opened >= 900, 'held until idle');
    assert.equal(face.face.size, 0, 'closed although it held a stream');
    const after = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, sessionId);
    assert.equal(after.status, 404);
  });

  it('mcp sessions - /mcp on a loopback bind refuses another Host or Origin (DNS rebinding); configurable', async () => {
    const face = await startFace({});
    stops.push(face.stop);
    assert.equal(await initializeStatus(face.url(), 'acme.k1', { host: 'attacker.example' }), 403);
    assert.equal(await initializeStatus(face.url(), 'acme.k1', { origin: 'http://attacker.example' }), 403);
    assert.equal(
      await initializeStatus(face.url(), 'acme.k1', { host: 'localhost:1234', origin: 'http://localhost:6274' }),
      200,
    );
    assert.equal(await initializeStatus(face.url(), 'acme.k1'), 200);
    assert.deepEqual(mcpAllowedHosts(loadConfig({})), ['localhost', '127.0.0.1', '[::1]']);
    assert.equal(
      mcpAllowedHosts(loadConfig({ API_HOST: '0.0.0.0' })),
      undefined,
      'not a loopback bind: off unless configured',
    );
    assert.equal(mcpAllowedHosts(loadConfig({ MCP_ALLOWED_HOSTS: '*' })), undefined);
    assert.deepEqual(mcpAllowedHosts(loadConfig({ API_HOST: '0.0.0.0', MCP_ALLOWED_HOSTS: 'gw.example,10.0.0.5' })), [
      'gw.example',
      '10.0.0.5',
    ]);
    const open = await startFace({ MCP_ALLOWED_HOSTS: '*', MCP_ALLOWED_ORIGINS: 'https://app.example' });
    stops.push(open.stop);
    assert.equal(await initializeStatus(open.url(), 'acme.k1', { host: 'anything.example' }), 200);
    assert.equal(await initializeStatus(open.url(), 'acme.k1', { origin: 'https://app.example' }), 200);
    assert.equal(await initializeStatus(open.url(), 'acme.k1', { origin: 'http://localhost:6274' }), 403);
  });

  it('mcp sessions - a catalogue change rebuilds the lists once per key, only for tenants whose agents changed', async () => {
    let version = 1;
    const revisions: Record<string, number> = { acme: 1, beta: 1 };
    const reads: Record<string, number> = { acme: 0, beta: 0 };
    const agentOf = (tenant: string): AgentWithInstances => ({
      agent: {
        _id: `agt_${tenant}`,
        tenant,
        name: tenant,
        description: '',
        revision: revisions[tenant],
        capabilities: [{ name: `c${revisions[tenant]}`, description: '', tags: [], examples: [] }],
      } as unknown as AgentDoc,
      instances: [],
    });
    const face = await startFace(
      { CATALOGUE_REFRESH_MS: '100' },
      {
        agents: (tenant) => {
          reads[tenant] = (reads[tenant] ?? 0) + 1;
          return [agentOf(tenant)];
        },
        version: () => version,
      },
    );
    stops.push(face.stop);
    const acme = await Promise.all([1, 2, 3].map(() => face.connect('acme', 'k1', '?capability_tools=true')));
    await face.connect('beta', 'k2', '?capability_tools=true');
    const told: number[] = [];
    acme.forEach((client, i) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void told.push(i)),
    );
    version = 2;
    await new Promise((resolve) => setTimeout(resolve, 400)); // a round that sees every tenant once
    const before = { ...reads };
    revisions.acme = 2;
    version = 3;
    await new Promise((resolve) => setTimeout(resolve, 600));
    // acme: one read for its revisions, one rebuild of its lists (tools, resources) for its one key (not three);
    // beta: its revisions only.
    assert.equal(reads.acme! - before.acme!, 3);
    assert.equal(reads.beta! - before.beta!, 1);
    assert.deepEqual(told.sort(), [0, 1, 2], 'each acme session was told');
  });
});
