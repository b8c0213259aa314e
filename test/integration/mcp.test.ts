/**
 * The MCP face against the official TypeScript client, over Streamable HTTP and over stdio (`npm run mcp`), on the
 * real gateway (Temporal, FerretDB, worker) with SDK agents doing the work.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { messageWorkflowId } from '../../messages/temporal';
import { eventually } from '../helpers/eventually';
import { request, TEST_API_KEY } from '../helpers/http';
import { mcpClient, sdkAgent, sessionRecordingProxy, toolAnswer } from '../helpers/mcp';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

let servers: TestServers;
let system: TestSystem;
const stops: (() => Promise<unknown> | void)[] = [];
let n = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++n}`;

/** A key of the default tenant holding `scopes`. */
async function keyWith(scopes: string[]): Promise<string> {
  return (await system.keys.create('default', { scopes }, 'mcp-test')).key;
}

async function connect(key: string, query = ''): Promise<Client> {
  const client = await mcpClient(system.baseUrl, key, query);
  stops.push(() => client.close());
  return client;
}

before(async () => {
  servers = await startTestServers();
  // Progress is reported every 100 ms of a wait, so the progress test does not idle.
  system = await startSystem(servers, { MCP_PROGRESS_INTERVAL_MS: '100', CATALOGUE_REFRESH_MS: '200' });
});

after(async () => {
  for (const stop of stops.reverse()) await stop();
  await system?.stop();
  await servers?.stop();
});

describe('mcp', () => {
  it('mcp - a key lists the reach tools its scopes allow; without a key /mcp is 401', async () => {
    const full = await connect(await keyWith(['read', 'send']));
    const names = (await full.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(names, [
      'reach_plan_and_run',
      'reach_reply',
      'reach_route',
      'reach_search_agents',
      'reach_send',
      'reach_status',
    ]);
    const send = (await full.listTools()).tools.find((t) => t.name === 'reach_send')!;
    assert.ok('intent' in (send.inputSchema.properties ?? {}) && 'wait_ms' in (send.inputSchema.properties ?? {}));

    const reader = await connect(await keyWith(['read']));
    assert.deepEqual((await reader.listTools()).tools.map((t) => t.name).sort(), [
      'reach_search_agents',
      'reach_status',
    ]);
    const refused = toolAnswer(await reader.callTool({ name: 'reach_send', arguments: { intent: 'anything' } }));
    assert.equal(refused.isError, true);
    assert.equal(refused.body.error.code, 'insufficient_scope');

    const anonymous = await request(
      'POST',
      `${system.baseUrl}/mcp`,
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} },
      { authorization: '' },
    );
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.error.code, 'unauthenticated');
  });

  it('mcp - route, send to an SDK agent, read the status: the same message as GET /v1/messages and its resource', async () => {
    const worker = await sdkAgent(
      system.baseUrl,
      {
        name: unique('mcp-refund'),
        description: 'Refunds orders',
        capabilities: [
          {
            name: 'refund',
            description: 'Refunds an order',
            parameters: { type: 'object', properties: { order_id: { type: 'integer' } } },
          },
        ],
      },
      (d) => ({ refund_id: `r-${(d.params as { order_id: number }).order_id}` }),
    );
    stops.push(worker.stop);
    const client = await connect(await keyWith(['read', 'send']));

    const found = toolAnswer(
      await client.callTool({ name: 'reach_search_agents', arguments: { q: 'refunds orders' } }),
    );
    assert.ok(found.body.items.some((a: { agent_id: string }) => a.agent_id === worker.agentId));

    const route = toolAnswer(
      await client.callTool({
        name: 'reach_route',
        arguments: { target: { agent_id: worker.agentId, capability: 'refund' }, params: { order_id: 7 } },
      }),
    );
    assert.equal(route.isError, false);
    assert.equal(route.body.kind, 'routed');
    assert.equal(route.body.target.agent_id, worker.agentId);
    assert.equal(route.body.explanation.decided_by, 'explicit');

    const messageId = unique('mcp-msg');
    const sent = toolAnswer(
      await client.callTool({
        name: 'reach_send',
        arguments: {
          message_id: messageId,
          target: { agent_id: worker.agentId, capability: 'refund' },
          params: { order_id: 1042 },
        },
      }),
    );
    assert.equal(sent.isError, false, JSON.stringify(sent.body));
    assert.equal(sent.body.state, 'processed');
    assert.deepEqual(sent.body.result, { refund_id: 'r-1042' });

    const status = toolAnswer(await client.callTool({ name: 'reach_status', arguments: { message_id: messageId } }));
    assert.equal(status.body.state, 'processed');
    const rest = await request('GET', `${system.baseUrl}/v1/messages/${messageId}`);
    assert.equal(rest.body.state, 'processed');
    assert.deepEqual(rest.body.result, status.body.result);
    assert.equal(rest.body.trace_id, sent.body.trace_id);
    // The run Temporal UI shows: workflow msg:<tenant>:<message id>, completed.
    const run = await system.client.workflow.getHandle(messageWorkflowId('default', messageId)).describe();
    assert.equal(run.status.name, 'COMPLETED');

    const resource = await client.readResource({ uri: `reach://messages/${messageId}` });
    assert.equal(JSON.parse((resource.contents[0] as { text: string }).text).state, 'processed');
    const card = await client.readResource({ uri: `reach://agents/${worker.agentId}` });
    assert.equal(JSON.parse((card.contents[0] as { text: string }).text).capabilities[0].name, 'refund');
    const listed = await client.listResources();
    assert.ok(listed.resources.some((r) => r.uri === `reach://agents/${worker.agentId}`));
    const templates = await client.listResourceTemplates();
    assert.deepEqual(templates.resourceTemplates.map((t) => t.uriTemplate).sort(), [
      'reach://agents/{agent_id}',
      'reach://messages/{message_id}',
    ]);

    // The same message id again: no second run, the same outcome.
    const again = toolAnswer(
      await client.callTool({
        name: 'reach_send',
        arguments: {
          message_id: messageId,
          target: { agent_id: worker.agentId, capability: 'refund' },
          params: { order_id: 1042 },
        },
      }),
    );
    assert.equal(again.body.state, 'processed');
    assert.equal(again.body.attempts.length, 1);
  });

  it("mcp - an intent is routed and sent within the key's tenant; other tenants' messages and agents do not exist for it", async () => {
    const tenant = `mcp-intent-${process.pid}`;
    const admin = (await system.keys.create(tenant, { scopes: ['admin'] }, 'mcp-test')).key;
    const refunds = await sdkAgent(
      system.baseUrl,
      {
        name: 'refund-agent',
        capabilities: [
          {
            name: 'request_refund',
            description: 'Refund an order to the buyer.',
            tags: ['refund'],
            examples: ['please refund order 2024090112', 'I want my money back for order 2024090113'],
            parameters: {
              type: 'object',
              required: ['order_id'],
              properties: { order_id: { type: 'string', pattern: '^\\d{8,20}$' } },
            },
          },
        ],
      },
      (d) => ({ refunded: (d.params as { order_id: string }).order_id }),
      { apiKey: admin },
    );
    stops.push(refunds.stop);
    const weather = await sdkAgent(
      system.baseUrl,
      {
        name: 'weather-agent',
        capabilities: [
          {
            name: 'forecast',
            description: 'Weather forecast for a city',
            tags: ['weather'],
            examples: ['will it rain tomorrow in Paris'],
          },
        ],
      },
      () => 'sunny',
      { apiKey: admin },
    );
    stops.push(weather.stop);
    const client = await connect(admin, 'capability_tools=true');

    const route = toolAnswer(
      await client.callTool({ name: 'reach_route', arguments: { intent: 'please refund order 2024090112' } }),
    );
    assert.equal(route.body.kind, 'routed', JSON.stringify(route.body));
    assert.equal(route.body.target.capability, 'request_refund');
    assert.ok(route.body.explanation.candidates.length >= 1);
    const sent = toolAnswer(
      await client.callTool({ name: 'reach_send', arguments: { intent: 'please refund order 2024090112' } }),
    );
    assert.equal(sent.isError, false, JSON.stringify(sent.body));
    assert.deepEqual(sent.body.result, { refunded: '2024090112' });
    assert.equal(sent.body.routing.decided_by, route.body.explanation.decided_by);

    // The tenant's own capability tools only; the default tenant's message and agents are not found.
    assert.deepEqual(
      (await client.listTools()).tools
        .map((t) => t.name)
        .filter((t) => t.includes('__'))
        .sort(),
      ['refund-agent__request_refund', 'weather-agent__forecast'],
    );
    const elsewhere = toolAnswer(
      await (
        await connect(TEST_API_KEY)
      ).callTool({
        name: 'reach_send',
        arguments: { target: { agent_id: refunds.agentId, capability: 'request_refund' }, wait_ms: 0 },
      }),
    );
    assert.equal(elsewhere.body.error.code, 'agent_not_found');
    const foreign = toolAnswer(
      await client.callTool({ name: 'reach_status', arguments: { message_id: sent.body.message_id } }),
    );
    assert.equal(foreign.body.state, 'processed');
    const fromDefault = toolAnswer(
      await (
        await connect(TEST_API_KEY)
      ).callTool({ name: 'reach_status', arguments: { message_id: sent.body.message_id } }),
    );
    assert.equal(fromDefault.body.error.code, 'message_not_found');
    await assert.rejects(
      (await connect(TEST_API_KEY)).readResource({ uri: `reach://agents/${refunds.agentId}` }),
      /No agent/,
    );
  });

  it('mcp - a long wait reports progress, then the result', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The agent holds the work until the client has seen progress: no timing is assumed.
    const worker = await sdkAgent(
      system.baseUrl,
      { name: unique('mcp-slow'), capabilities: [{ name: 'work' }] },
      async () => {
        await released;
        return 'done';
      },
      { inlineMs: 20 },
    );
    stops.push(worker.stop);
    const client = await connect(await keyWith(['read', 'send']));
    const progress: string[] = [];
    const result = toolAnswer(
      await client.callTool(
        { name: 'reach_send', arguments: { target: { agent_id: worker.agentId, capability: 'work' } } },
        undefined,
        {
          onprogress: (p) => {
            progress.push(p.message ?? '');
            release();
          },
          resetTimeoutOnProgress: true,
        },
      ),
    );
    assert.equal(result.body.state, 'processed');
    assert.equal(result.body.result, 'done');
    assert.ok(progress.length >= 1);
    assert.match(progress[0]!, /^message .+: (accepted|routing|delivering|delivered)$/);
  });

  it('mcp - a wait of 0 returns the message id to poll', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const worker = await sdkAgent(
      system.baseUrl,
      { name: unique('mcp-later'), capabilities: [{ name: 'work' }] },
      async () => {
        await released;
        return 'later';
      },
      { inlineMs: 20 },
    );
    stops.push(worker.stop);
    const client = await connect(await keyWith(['read', 'send']));
    const sent = toolAnswer(
      await client.callTool({
        name: 'reach_send',
        arguments: { target: { agent_id: worker.agentId, capability: 'work' }, wait_ms: 0 },
      }),
    );
    assert.equal(sent.isError, false);
    assert.equal(sent.body.ended, false);
    assert.match(sent.body.hint, /reach_status/);
    release();
    const ended = await eventually('the message to end', async () => {
      const status = toolAnswer(
        await client.callTool({ name: 'reach_status', arguments: { message_id: sent.body.message_id } }),
      );
      return status.body.state === 'processed' ? status.body : undefined;
    });
    assert.equal(ended.result, 'later');
  });

  it('mcp - bad arguments and refusals are tool errors with our codes; the session goes on', async () => {
    const client = await connect(await keyWith(['read', 'send']));
    const bad = toolAnswer(
      await client.callTool({ name: 'reach_send', arguments: { target: { agent_id: 5 }, wait_ms: -1 } }),
    );
    assert.equal(bad.isError, true);
    assert.equal(bad.body.error.code, 'invalid_request');
    assert.deepEqual(bad.body.error.details.map((d: { location: string }) => d.location).sort(), [
      'arguments.target.agent_id',
      'arguments.wait_ms',
    ]);
    const neither = toolAnswer(await client.callTool({ name: 'reach_route', arguments: {} }));
    assert.equal(neither.body.error.code, 'invalid_request');
    const unknownAgent = toolAnswer(
      await client.callTool({
        name: 'reach_send',
        arguments: { target: { agent_id: 'agt_000000000000000000000000', capability: 'x' } },
      }),
    );
    assert.equal(unknownAgent.body.error.code, 'agent_not_found');
    const missing = toolAnswer(
      await client.callTool({ name: 'reach_status', arguments: { message_id: 'no-such-message' } }),
    );
    assert.equal(missing.body.error.code, 'message_not_found');
    // An unknown tool is the protocol's error -32602 (invalid params), our error body as its data.
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (error: McpError) => {
      assert.equal(error.code, ErrorCode.InvalidParams);
      assert.equal((error.data as { error: { code: string } }).error.code, 'unknown_tool');
      return true;
    });
    await assert.rejects(client.readResource({ uri: 'reach://messages/no-such-message' }), (error: McpError) => {
      assert.equal(error.code, -32002);
      assert.match(error.message, /No message no-such-message/);
      assert.equal((error.data as { uri: string }).uri, 'reach://messages/no-such-message');
      return true;
    });
    // A message that ends without being processed is a tool error too, with its reason's code and its status.
    const failing = await sdkAgent(
      system.baseUrl,
      { name: unique('mcp-failing'), capabilities: [{ name: 'work' }] },
      () => {
        throw Object.assign(new Error('card declined'), { code: 'declined' });
      },
    );
    stops.push(failing.stop);
    const failed = toolAnswer(
      await client.callTool({
        name: 'reach_send',
        arguments: { target: { agent_id: failing.agentId, capability: 'work' } },
      }),
    );
    assert.equal(failed.isError, true);
    assert.equal(failed.body.error.code, 'agent_failed');
    assert.equal(failed.body.error.details.state, 'failed');
    assert.deepEqual(failed.body.error.details.error, { message: 'card declined', code: 'declined' });
    assert.equal((await client.listTools()).tools.length, 6);
  });

  it('mcp - capability tools: an ACL hides a capability from a key without the scope, and refuses it when called', async () => {
    const name = unique('mcp-shop');
    const worker = await sdkAgent(
      system.baseUrl,
      {
        name,
        capabilities: [
          { name: 'echo', description: 'Echoes its parameters' },
          {
            name: 'refund',
            description: 'Refunds an order',
            acl: { scopes: ['refunds'] },
            parameters: { type: 'object', required: ['order_id'], properties: { order_id: { type: 'integer' } } },
          },
        ],
      },
      (d) => ({ capability: d.capability, params: d.params }),
    );
    stops.push(worker.stop);

    const plain = await connect(await keyWith(['read', 'send']), 'capability_tools=true');
    const plainNames = (await plain.listTools()).tools.map((t) => t.name);
    assert.ok(plainNames.includes(`${name}__echo`));
    assert.ok(!plainNames.includes(`${name}__refund`));
    const echoed = toolAnswer(await plain.callTool({ name: `${name}__echo`, arguments: { hello: 'world' } }));
    assert.deepEqual(echoed.body.result, { capability: 'echo', params: { hello: 'world' } });
    const forbidden = toolAnswer(await plain.callTool({ name: `${name}__refund`, arguments: { order_id: 1 } }));
    assert.equal(forbidden.isError, true);
    assert.equal(forbidden.body.error.code, 'capability_forbidden');

    const refunder = await connect(await keyWith(['read', 'send', 'refunds']), 'capability_tools=true');
    const refund = (await refunder.listTools()).tools.find((t) => t.name === `${name}__refund`);
    assert.deepEqual(refund?.inputSchema.required, ['order_id']);
    const badArgs = toolAnswer(await refunder.callTool({ name: `${name}__refund`, arguments: { order_id: 'x' } }));
    assert.equal(badArgs.body.error.code, 'invalid_request');
    const refunded = toolAnswer(await refunder.callTool({ name: `${name}__refund`, arguments: { order_id: 9 } }));
    assert.deepEqual(refunded.body.result, { capability: 'refund', params: { order_id: 9 } });

    // Capability tools send: a key that may only read has none.
    const reader = await connect(await keyWith(['read', 'refunds']), 'capability_tools=true');
    assert.deepEqual((await reader.listTools()).tools.map((t) => t.name).sort(), [
      'reach_search_agents',
      'reach_status',
    ]);

    // Without the session's choice, the gateway's default (MCP_CAPABILITY_TOOLS=false) lists only the reach tools.
    const generic = await connect(await keyWith(['read', 'send', 'refunds']));
    assert.equal((await generic.listTools()).tools.length, 6);
  });

  it('mcp - a capability tool called again with the same message_id (a retry after a lost answer) gives the same message, delivered once', async () => {
    const name = unique('mcp-once');
    let deliveries = 0;
    const worker = await sdkAgent(
      system.baseUrl,
      {
        name,
        capabilities: [
          {
            name: 'charge',
            parameters: {
              type: 'object',
              required: ['amount'],
              properties: { amount: { type: 'integer' } },
              additionalProperties: false,
            },
          },
        ],
      },
      (d) => {
        deliveries += 1;
        return { charged: (d.params as { amount: number }).amount };
      },
    );
    stops.push(worker.stop);
    const client = await connect(await keyWith(['read', 'send']), 'capability_tools=true');
    const tool = (await client.listTools()).tools.find((t) => t.name === `${name}__charge`)!;
    assert.equal((tool.inputSchema.properties as Record<string, { type: string }>).message_id!.type, 'string');
    const messageId = unique('mcp-charge');
    const first = toolAnswer(
      await client.callTool({ name: tool.name, arguments: { amount: 5, message_id: messageId } }),
    );
    const again = toolAnswer(
      await client.callTool({ name: tool.name, arguments: { amount: 5, message_id: messageId } }),
    );
    assert.equal(first.body.message_id, messageId);
    assert.equal(again.body.message_id, messageId);
    assert.deepEqual(again.body.result, { charged: 5 });
    assert.deepEqual(first.body.params, { amount: 5 }, 'message_id is not sent as a parameter');
    assert.equal(deliveries, 1, 'the work was done once');
    const other = toolAnswer(
      await client.callTool({ name: tool.name, arguments: { amount: 6, message_id: messageId } }),
    );
    assert.equal(other.isError, true);
    assert.equal(other.body.error.code, 'idempotency_conflict');
    // reach_send takes one too, with the same rule.
    const sendId = unique('mcp-send');
    const sent = () =>
      client.callTool({
        name: 'reach_send',
        arguments: {
          message_id: sendId,
          target: { agent_id: worker.agentId, capability: 'charge' },
          params: { amount: 7 },
        },
      });
    assert.equal(toolAnswer(await sent()).body.message_id, sendId);
    assert.deepEqual(toolAnswer(await sent()).body.result, { charged: 7 });
    assert.equal(deliveries, 2);
  });

  it('mcp - a catalogue change sends tools/list_changed to capability-tool sessions', async () => {
    const client = await connect(await keyWith(['read', 'send']), 'capability_tools=true');
    let changed!: () => void;
    const notified = new Promise<void>((resolve) => (changed = resolve));
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => changed());
    const name = unique('mcp-new');
    const worker = await sdkAgent(system.baseUrl, { name, capabilities: [{ name: 'hello' }] }, () => 'hi');
    stops.push(worker.stop);
    await notified;
    assert.ok((await client.listTools()).tools.some((t) => t.name === `${name}__hello`));
  });

  it('mcp - a session belongs to the key that opened it', async () => {
    const client = await connect(TEST_API_KEY);
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const other = await keyWith(['read', 'send']);
    const response = await fetch(`${system.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${other}`,
        'mcp-session-id': sessionId,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(response.status, 404);
    // Its own key ends it (DELETE); the id is then unknown to everyone.
    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    const after = await fetch(`${system.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TEST_API_KEY}`,
        'mcp-session-id': sessionId,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    assert.equal(after.status, 404);
  });

  it('mcp - stdio: `npm run mcp` relays to the gateway with the key (list, route, send, status)', async () => {
    const worker = await sdkAgent(
      system.baseUrl,
      { name: unique('mcp-stdio'), capabilities: [{ name: 'double' }] },
      (d) => (d.params as { n: number }).n * 2,
    );
    stops.push(worker.stop);
    const client = new Client({ name: 'agent-reach-stdio-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: 'npm',
        args: ['run', '--silent', 'mcp', '--', '--api', system.baseUrl],
        env: { ...process.env, REACH_API_KEY: TEST_API_KEY } as Record<string, string>,
        stderr: 'inherit',
      }),
    );
    stops.push(() => client.close());
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), [
      'reach_plan_and_run',
      'reach_reply',
      'reach_route',
      'reach_search_agents',
      'reach_send',
      'reach_status',
    ]);
    const route = toolAnswer(
      await client.callTool({
        name: 'reach_route',
        arguments: { target: { agent_id: worker.agentId, capability: 'double' } },
      }),
    );
    assert.equal(route.body.kind, 'routed');
    const sent = toolAnswer(
      await client.callTool({
        name: 'reach_send',
        arguments: { target: { agent_id: worker.agentId, capability: 'double' }, params: { n: 21 } },
      }),
    );
    assert.equal(sent.body.result, 42);
    const status = toolAnswer(
      await client.callTool({ name: 'reach_status', arguments: { message_id: sent.body.message_id } }),
    );
    assert.equal(status.body.state, 'processed');
  });

  it('mcp - stdio: when the gateway has closed the session, the relay opens a new one and the call goes through', async () => {
    const proxy = await sessionRecordingProxy(system.baseUrl);
    stops.push(proxy.stop);
    const client = new Client({ name: 'agent-reach-stdio-test', version: '1.0.0' });
    let changed!: () => void;
    const notified = new Promise<void>((resolve) => (changed = resolve));
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => changed());
    await client.connect(
      new StdioClientTransport({
        command: 'npm',
        args: ['run', '--silent', 'mcp', '--', '--api', proxy.url],
        env: { ...process.env, REACH_API_KEY: TEST_API_KEY } as Record<string, string>,
        stderr: 'ignore',
      }),
    );
    stops.push(() => client.close());
    assert.equal((await client.listTools()).tools.length, 6);
    assert.equal(proxy.sessions.length, 1);
    // End the relay's session at the gateway, as an idle sweep or a replica restart would.
    const ended = await fetch(`${system.baseUrl}/mcp`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${TEST_API_KEY}`, 'mcp-session-id': proxy.sessions[0]! },
    });
    assert.equal(ended.status, 200);
    assert.equal((await client.listTools()).tools.length, 6);
    assert.equal(proxy.sessions.length, 2);
    await notified;
  });
});
