/**
 * Revision 2026-07-28 of the MCP face with the official v2 TypeScript client (`@modelcontextprotocol/client`),
 * which negotiates it with `server/discover` and then sends stateless requests: no session is ever handed out, and
 * the tools, resources and errors are those a 2025-11-25 session has, on the real gateway with an SDK agent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { TEST_API_KEY } from '../helpers/http';
import { sdkAgent, sessionRecordingProxy, toolAnswer } from '../helpers/mcp';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

let servers: TestServers;
let system: TestSystem;
const stops: (() => Promise<unknown> | void)[] = [];

async function modernClient(baseUrl: string, key: string, mode: 'auto' | { pin: string }): Promise<Client> {
  const client = new Client({ name: 'agent-reach-test', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  stops.push(() => client.close());
  return client;
}

before(async () => {
  servers = await startTestServers();
  system = await startSystem(servers);
});

after(async () => {
  for (const stop of stops.reverse()) await stop();
  await system?.stop();
  await servers?.stop();
});

describe('mcp 2026-07-28', () => {
  it('mcp 2026-07-28 - the v2 client negotiates the revision and sends to an SDK agent without a session', async () => {
    const worker = await sdkAgent(
      system.baseUrl,
      {
        name: `mcp-modern-${process.pid}`,
        capabilities: [{ name: 'echo', description: 'Echoes its params' }],
      },
      (d) => ({ echoed: d.params }),
    );
    stops.push(worker.stop);
    const proxy = await sessionRecordingProxy(system.baseUrl);
    stops.push(proxy.stop);

    const client = await modernClient(proxy.url, TEST_API_KEY, 'auto');
    assert.equal(client.getProtocolEra(), 'modern');
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    assert.equal(client.getServerVersion()?.name, 'agent-reach');

    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(names, [
      'reach_plan_and_run',
      'reach_reply',
      'reach_route',
      'reach_search_agents',
      'reach_send',
      'reach_status',
    ]);

    const sent = toolAnswer(
      await client.callTool({
        name: 'reach_send',
        arguments: { target: { agent_id: worker.agentId, capability: 'echo' }, params: { n: 7 } },
      }),
    );
    assert.equal(sent.isError, false);
    assert.equal(sent.body.state, 'processed');
    assert.deepEqual(sent.body.result, { echoed: { n: 7 } });
    const status = toolAnswer(
      await client.callTool({ name: 'reach_status', arguments: { message_id: sent.body.message_id } }),
    );
    assert.equal(status.body.state, 'processed');
    const resource = await client.readResource({ uri: `reach://messages/${sent.body.message_id}` });
    assert.equal(JSON.parse((resource.contents[0] as { text: string }).text).message_id, sent.body.message_id);

    // An unknown tool is -32602 as in a session; a missing resource too in this revision (SEP-2164: -32002 became
    // -32602, which the SDK answers), its uri in the data.
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (error: ProtocolError) => {
      assert.equal(error.code, -32602);
      assert.equal((error.data as { error: { code: string } }).error.code, 'unknown_tool');
      return true;
    });
    await assert.rejects(client.readResource({ uri: 'reach://messages/no-such-message' }), (error: ProtocolError) => {
      assert.equal(error.code, -32602);
      assert.equal((error.data as { uri: string }).uri, 'reach://messages/no-such-message');
      return true;
    });
    assert.deepEqual(proxy.sessions, [], 'a 2026-07-28 client is never handed a session');
  });

  it('mcp 2026-07-28 - a pinned client with a read-only key lists what the key allows; no key is 401', async () => {
    const reader = (await system.keys.create('default', { scopes: ['read'] }, 'mcp-modern')).key;
    const client = await modernClient(system.baseUrl, reader, { pin: '2026-07-28' });
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), [
      'reach_search_agents',
      'reach_status',
    ]);
    const refused = toolAnswer(await client.callTool({ name: 'reach_send', arguments: { intent: 'anything' } }));
    assert.equal(refused.body.error.code, 'insufficient_scope');
    await assert.rejects(modernClient(system.baseUrl, '', { pin: '2026-07-28' }), /401|nauthori/);
  });
});
