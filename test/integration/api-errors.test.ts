/**
 * Bad input against the live api: every case answers 4xx with the error shape, and nothing is stored.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../helpers/eventually';
import { startFakeAgent, type FakeAgent } from '../helpers/fake-agent';
import { registerAgent, request, TEST_API_KEY } from '../helpers/http';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

let servers: TestServers;
let system: TestSystem;
let agent: FakeAgent;
let agentId: string;

before(async () => {
  servers = await startTestServers();
  system = await startSystem(servers);
  agent = await startFakeAgent();
  agentId = (await registerAgent(system.baseUrl, agent.url)).agent_id;
});

after(async () => {
  await agent?.stop();
  await system?.stop();
  await servers?.stop();
});

async function storedCounts() {
  let workflows = 0;
  for await (const _ of system.client.workflow.list({ query: `TaskQueue = '${system.config.TEMPORAL_TASK_QUEUE}'` }))
    workflows += 1;
  return { agents: await system.catalogue.models.agents.countDocuments(), workflows };
}

interface Case {
  name: string;
  method: string;
  path: string | (() => string);
  body?: unknown;
  headers?: Record<string, string>;
  status: number;
  code: string;
}

const validCapability = [{ name: 'echo' }];
const cases: Case[] = [
  {
    name: 'malformed JSON',
    method: 'POST',
    path: '/v1/messages',
    body: '{"target":',
    status: 400,
    code: 'invalid_json',
  },
  {
    name: 'JSON that is not an object',
    method: 'POST',
    path: '/v1/messages',
    body: '"hello"',
    status: 400,
    code: 'invalid_json',
  },
  {
    name: 'message with neither a capability nor an intent',
    method: 'POST',
    path: '/v1/messages',
    body: { payload: { a: 1 } },
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'message with a blank intent and no capability',
    method: 'POST',
    path: '/v1/messages',
    body: { intent: '   ', target: { agent_id: 'agt_x' } },
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'target agent_id mistyped',
    method: 'POST',
    path: '/v1/messages',
    body: { target: { agent_id: 7, capability: 'echo' } },
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'unknown field',
    method: 'POST',
    path: '/v1/messages',
    body: () => ({ target: { agent_id: agentId, capability: 'echo' }, colour: 'red' }),
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'message_id with a slash',
    method: 'POST',
    path: '/v1/messages',
    body: () => ({ message_id: 'a/b', target: { agent_id: agentId, capability: 'echo' } }),
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'message_id too long',
    method: 'POST',
    path: '/v1/messages',
    body: () => ({ message_id: 'x'.repeat(129), target: { agent_id: agentId, capability: 'echo' } }),
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'unknown agent',
    method: 'POST',
    path: '/v1/messages',
    body: { target: { agent_id: 'agt_000000000000000000000000', capability: 'echo' } },
    status: 404,
    code: 'agent_not_found',
  },
  {
    name: 'reply_to without a caller webhook secret',
    method: 'POST',
    path: '/v1/messages',
    body: () => ({ target: { agent_id: agentId, capability: 'echo' }, reply_to: { url: 'http://127.0.0.1:9/' } }),
    status: 422,
    code: 'reply_to_unavailable',
  },
  {
    name: 'reply_to that is not http',
    method: 'POST',
    path: '/v1/messages',
    body: () => ({ target: { agent_id: agentId, capability: 'echo' }, reply_to: { url: 'ftp://x/' } }),
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'unknown capability',
    method: 'POST',
    path: '/v1/messages',
    body: () => ({ target: { agent_id: agentId, capability: 'refund' } }),
    status: 422,
    code: 'unknown_capability',
  },
  {
    name: 'agent without name',
    method: 'POST',
    path: '/v1/agents',
    body: { endpoint: 'http://127.0.0.1:9/', capabilities: validCapability },
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'agent without capabilities',
    method: 'POST',
    path: '/v1/agents',
    body: { name: 'a', endpoint: 'http://127.0.0.1:9/', capabilities: [] },
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'agent without endpoint',
    method: 'POST',
    path: '/v1/agents',
    body: { name: 'a', capabilities: validCapability },
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'agent endpoint not http',
    method: 'POST',
    path: '/v1/agents',
    body: { name: 'a', endpoint: 'file:///etc/passwd', capabilities: validCapability },
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'capability name with spaces',
    method: 'POST',
    path: '/v1/agents',
    body: { name: 'a', endpoint: 'http://127.0.0.1:9/', capabilities: [{ name: 'do it' }] },
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'duplicate capability names',
    method: 'POST',
    path: '/v1/agents',
    body: { name: 'a', endpoint: 'http://127.0.0.1:9/', capabilities: [{ name: 'x' }, { name: 'x' }] },
    status: 422,
    code: 'duplicate_capability',
  },
  {
    name: 'body over the size limit',
    method: 'POST',
    path: '/v1/agents',
    body: JSON.stringify({ name: 'a'.repeat(1_100_000) }),
    status: 413,
    code: 'payload_too_large',
  },
  { name: 'malformed agent id', method: 'GET', path: '/v1/agents/not-an-id', status: 400, code: 'invalid_request' },
  {
    name: 'unknown agent id',
    method: 'GET',
    path: '/v1/agents/agt_000000000000000000000000',
    status: 404,
    code: 'agent_not_found',
  },
  {
    name: 'unknown message id',
    method: 'GET',
    path: '/v1/messages/never-sent',
    status: 404,
    code: 'message_not_found',
  },
  {
    name: 'message id with a NUL byte',
    method: 'GET',
    path: '/v1/messages/a%00b',
    status: 400,
    code: 'invalid_request',
  },
  {
    name: 'callback without a secret',
    method: 'POST',
    path: '/v1/callback',
    body: { message_id: 'm', status: 'processed' },
    headers: { authorization: '' },
    status: 401,
    code: 'unauthenticated',
  },
  {
    name: 'callback with a wrong secret',
    method: 'POST',
    path: '/v1/callback',
    body: { message_id: 'm', status: 'processed' },
    headers: { authorization: 'Bearer ars_wrong' },
    status: 401,
    code: 'invalid_secret',
  },
  { name: 'unknown route', method: 'POST', path: '/v1/nothing', body: {}, status: 404, code: 'not_found' },
];

describe('api errors - bad input', () => {
  for (const c of cases) {
    it(`api errors - ${c.name} → ${c.status} ${c.code}, nothing stored`, async () => {
      const before = await storedCounts();
      const body = typeof c.body === 'function' ? (c.body as () => unknown)() : c.body;
      const path = typeof c.path === 'function' ? c.path() : c.path;
      const response = await request(c.method, `${system.baseUrl}${path}`, body, c.headers);
      assert.equal(response.status, c.status, JSON.stringify(response.body));
      assert.equal(response.body.error.code, c.code);
      assert.equal(typeof response.body.error.message, 'string');
      assert.deepEqual(await storedCounts(), before);
    });
  }

  it('api errors - invalid fields are named in details', async () => {
    const response = await request('POST', `${system.baseUrl}/v1/messages`, { target: { agent_id: 7, capability: 5 } });
    assert.equal(response.status, 400);
    assert.deepEqual(response.body.error.details.map((d: { location: string }) => d.location).sort(), [
      'body.target.agent_id',
      'body.target.capability',
    ]);
  });

  it('api errors - a registered agent is readable without its secret', async () => {
    const response = await request('GET', `${system.baseUrl}/v1/agents/${agentId}`);
    assert.equal(response.status, 200);
    assert.equal(response.body.agent_id, agentId);
    assert.equal(response.body.capabilities[0].name, 'echo');
    assert.ok(!JSON.stringify(response.body).includes('secret'));
  });

  it('api errors - registering a taken name is a conflict and stores nothing', async () => {
    const name = `taken-${Date.now()}`;
    await registerAgent(system.baseUrl, agent.url, { name });
    const before = await storedCounts();
    const again = await request('POST', `${system.baseUrl}/v1/agents`, {
      name,
      endpoint: agent.url,
      capabilities: validCapability,
    });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'agent_name_taken');
    assert.deepEqual(await storedCounts(), before);
  });

  it('api errors - metrics count requests, sends and agents, and the worker counts deliveries', async () => {
    const metric = (text: string, line: string) => {
      const found = text.split('\n').find((l) => l.startsWith(`${line} `));
      return found ? Number(found.slice(line.length + 1)) : 0;
    };
    const before = await (
      await fetch(`${system.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TEST_API_KEY}` } })
    ).text();
    const sent = await request('POST', `${system.baseUrl}/v1/messages`, {
      target: { agent_id: agentId, capability: 'echo' },
    });
    assert.equal(sent.status, 202);
    await request('POST', `${system.baseUrl}/v1/messages`, {
      target: { agent_id: 'agt_000000000000000000000000', capability: 'echo' },
    });
    const after = await (
      await fetch(`${system.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TEST_API_KEY}` } })
    ).text();
    assert.equal(
      metric(after, 'reach_messages_sent_total{result="accepted"}'),
      metric(before, 'reach_messages_sent_total{result="accepted"}') + 1,
    );
    assert.equal(
      metric(after, 'reach_messages_sent_total{result="refused"}'),
      metric(before, 'reach_messages_sent_total{result="refused"}') + 1,
    );
    assert.ok(metric(after, 'reach_http_requests_total{method="POST",route="/v1/messages",status="202"}') >= 1);
    assert.ok(metric(after, 'reach_agents_online') >= 1);
    assert.match(after, /^reach_messages\{state="processed"\} \d+$/m);
    await eventually('the worker to count the delivery', async () => {
      const worker = await system.workerMetrics.registry.metrics();
      return /^reach_delivery_attempts_total\{outcome="accepted",transport="http"\} [1-9]/m.test(worker)
        ? true
        : undefined;
    });
  });

  it('api errors - readiness reports both dependencies', async () => {
    const response = await request('GET', `${system.baseUrl}/readyz`);
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { status: 'ready', database: true, temporal: true });
  });
});
