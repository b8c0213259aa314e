/**
 * The smaller holes of issue 42, against a real Temporal dev server and FerretDB: a redrive is checked against the
 * capability's ACL as a send is; a chain costs one rate-limit unit per message it may send; a chain's results need
 * the `read` scope; an agent's instances are capped, a newcomer taking an offline instance's place; failed WebSocket
 * upgrades spend the same per-address tokens as failed HTTP authentications.
 *
 * One system for all: a tenant's rate limit of 1000 units that never refills, 6 failed authentications per address,
 * at most 50 instances per agent, and a catalogue clock of the test's own (moved on only by the instance test, which
 * runs after the messages). The WebSocket test spends this address's tokens, so it runs last.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { eventually } from '../helpers/eventually';
import { acceptAndConfirm, startFakeAgent, type FakeAgent } from '../helpers/fake-agent';
import { registerAgent, request } from '../helpers/http';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

const TTL_MS = 3_600_000;
let servers: TestServers;
let system: TestSystem;
let clock = new Date();
const advance = (ms: number) => (clock = new Date(clock.getTime() + ms));
const agents: FakeAgent[] = [];
let sequence = 0;
const newId = (prefix: string) => `${prefix}-${Date.now()}-${++sequence}`;

const as = (key: string) => ({ authorization: `Bearer ${key}` });
const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  request(method, `${system.baseUrl}${path}`, body, headers);
const ofAgent = (secret: string) => ({ authorization: `Bearer ${secret}` });

async function fakeAgent(behaviour = acceptAndConfirm) {
  const agent = await startFakeAgent(behaviour);
  agents.push(agent);
  return agent;
}

async function keyOf(tenant: string, scopes: string[]): Promise<string> {
  return (await system.keys.create(tenant, { scopes }, 'test')).key;
}

/** Polls (gently: every request spends the tenant's units) until the message is in one of `states`. */
async function messageIn(id: string, states: string[]) {
  return eventually(
    `message ${id} in ${states.join('/')}`,
    async () => {
      const status = await api('GET', `/v1/messages/${id}`);
      return states.includes(status.body?.state) ? status.body : undefined;
    },
    { intervalMs: 250, timeoutMs: 60_000 },
  );
}

before(async () => {
  servers = await startTestServers();
  system = await startSystem(
    servers,
    {
      HEARTBEAT_TTL_MS: String(TTL_MS),
      MAX_INSTANCES_PER_AGENT: '50',
      RATE_LIMIT_PER_SECOND: '0.001',
      RATE_LIMIT_BURST: '1000',
      UNAUTHENTICATED_RATE_LIMIT_PER_SECOND: '0.001',
      UNAUTHENTICATED_RATE_LIMIT_BURST: '6',
    },
    { now: () => clock },
  );
});

after(async () => {
  await Promise.all(agents.map((agent) => agent.stop()));
  await system?.stop();
  await servers?.stop();
});

describe('small holes', () => {
  it('small holes - a redrive is refused as a send is when the ACL does not admit the key; nothing starts; a key it admits redrives', async () => {
    const refusing = await fakeAgent(() => ({ status: 400, body: { error: 'no' } }));
    const target = await registerAgent(system.baseUrl, refusing.url, {
      capabilities: [{ name: 'refund', acl: { scopes: ['refunds'] } }],
    });
    refusing.secret = target.secret;
    const [sendKey, refundKey] = await Promise.all([keyOf('default', ['send']), keyOf('default', ['send', 'refunds'])]);
    const messageId = newId('refund');
    const sent = await api(
      'POST',
      '/v1/messages',
      { message_id: messageId, target: { agent_id: target.agent_id, capability: 'refund' } },
      as(refundKey),
    );
    assert.equal(sent.status, 202, JSON.stringify(sent.body));
    await messageIn(messageId, ['failed']);
    const deliveries = refusing.deliveries.length;

    const send = await api(
      'POST',
      '/v1/messages',
      { target: { agent_id: target.agent_id, capability: 'refund' } },
      as(sendKey),
    );
    const redrive = await api('POST', `/v1/messages/${messageId}/redrive`, undefined, as(sendKey));
    assert.deepEqual(
      [redrive.status, redrive.body.error.code],
      [send.status, send.body.error.code],
      'the same answer as a send',
    );
    assert.deepEqual([redrive.status, redrive.body.error.code], [403, 'capability_forbidden']);
    assert.equal(redrive.body.error.details?.reason, undefined, 'why is for admins only');
    const admin = await api('POST', `/v1/messages/${messageId}/redrive`);
    assert.equal(admin.status, 403, 'admin holds no custom scope');
    assert.match(admin.body.error.details.reason, /scope "refunds"/);

    const after = await api('GET', `/v1/messages/${messageId}`);
    assert.equal(after.body.state, 'failed');
    assert.equal(after.body.redrives, undefined, 'no new run');
    assert.equal(refusing.deliveries.length, deliveries, 'nothing delivered');

    const allowed = await api('POST', `/v1/messages/${messageId}/redrive`, undefined, as(refundKey));
    assert.equal(allowed.status, 202, JSON.stringify(allowed.body));
    const redriven = await messageIn(messageId, ['failed']);
    assert.equal(redriven.redrives.length, 1);
    assert.ok(refusing.deliveries.length > deliveries, 'delivered again');
  });

  it('small holes - a repeated chain POST by a key without read gets the chain and its states, not its results', async () => {
    const echo = await fakeAgent();
    const target = await registerAgent(system.baseUrl, echo.url);
    echo.secret = target.secret;
    const [sendKey, sendReadKey] = await Promise.all([keyOf('default', ['send']), keyOf('default', ['send', 'read'])]);
    const body = {
      chain_id: newId('chain'),
      steps: [{ id: 'only', target: { agent_id: target.agent_id, capability: 'echo' } }],
    };
    const started = await api('POST', '/v1/chains', body, as(sendKey));
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const ended = await eventually(
      'the chain to complete',
      async () => {
        const status = await api('GET', `/v1/chains/${body.chain_id}`);
        return status.body?.state === 'completed' ? status.body : undefined;
      },
      { intervalMs: 250, timeoutMs: 60_000 },
    );
    assert.deepEqual(ended.steps[0].result, { handled: `${body.chain_id}:only` });

    const repeat = await api('POST', '/v1/chains', body, as(sendKey));
    assert.equal(repeat.status, 200, JSON.stringify(repeat.body));
    assert.equal(repeat.body.chain_id, body.chain_id);
    assert.equal(repeat.body.state, 'completed');
    assert.deepEqual(
      repeat.body.steps.map((s: { id: string; state: string }) => [s.id, s.state]),
      [['only', 'completed']],
    );
    assert.ok(!('result' in repeat.body.steps[0]), JSON.stringify(repeat.body));
    assert.ok(!JSON.stringify(repeat.body).includes('handled'));
    assert.equal(
      (await api('GET', `/v1/chains/${body.chain_id}`, undefined, as(sendKey))).status,
      403,
      'GET needs read',
    );

    const withRead = await api('POST', '/v1/chains', body, as(sendReadKey));
    assert.equal(withRead.status, 200);
    assert.deepEqual(withRead.body.steps[0].result, { handled: `${body.chain_id}:only` });
  });

  it('small holes - a chain costs one rate-limit unit per step and compensation: 15 chains of 32 + 32 spend 960 of 1000', async () => {
    const key = await keyOf('chain-cost', ['admin']);
    const ghost = { agent_id: 'agt_000000000000000000000000', capability: 'nothing' };
    const steps = Array.from({ length: 32 }, (_, i) => ({ id: `s${i}`, target: ghost, compensate: { target: ghost } }));
    for (let i = 0; i < 15; i++) {
      const refused = await api('POST', '/v1/chains', { chain_id: newId('costly'), steps }, as(key));
      assert.notEqual(refused.status, 429, `chain ${i + 1}: ${JSON.stringify(refused.body)}`);
    }
    const limited = await api('POST', '/v1/chains', { chain_id: newId('costly'), steps }, as(key));
    assert.equal(limited.status, 429, JSON.stringify(limited.body));
    assert.equal(limited.body.error.code, 'rate_limited');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal(
      (await api('GET', '/v1/keys', undefined, as(key))).status,
      200,
      'a request of one unit still fits in the 39 left',
    );
    const small = await api('POST', '/v1/chains', { chain_id: newId('small'), steps: steps.slice(0, 19) }, as(key));
    assert.notEqual(small.status, 429, 'a chain of 38 messages still fits in the 38 left');
    assert.equal((await api('GET', '/v1/keys', undefined, as(key))).status, 429, 'and then nothing is left');
  });

  it('small holes - an agent has at most MAX_INSTANCES_PER_AGENT instances; a newcomer takes the place of the longest-silent offline one', async () => {
    const registered = await registerAgent(system.baseUrl, 'http://127.0.0.1:9/i1', {
      instances: [{ instance_id: 'i1', endpoint: 'http://127.0.0.1:9/i1' }],
      endpoint: undefined,
    });
    const id = registered.agent_id;
    const beat = (instance: string) =>
      api(
        'POST',
        `/v1/agents/${id}/heartbeat`,
        { instance_id: instance, endpoint: `http://127.0.0.1:9/${instance}` },
        ofAgent(registered.secret),
      );
    advance(1_000);
    for (let i = 2; i <= 50; i++) assert.equal((await beat(`i${i}`)).status, 200, `i${i} joins`);
    const full = await beat('i51');
    assert.equal(full.status, 422);
    assert.equal(full.body.error.code, 'too_many_instances');
    assert.equal(full.body.error.details.limit, 50);
    assert.equal(typeof full.body.error.message, 'string');
    assert.equal((await api('GET', `/v1/agents/${id}`)).body.instances.length, 50);

    // An hour on, every instance but i1 beats again: i1 is the one offline.
    advance(TTL_MS);
    for (let i = 2; i <= 50; i++) assert.equal((await beat(`i${i}`)).status, 200);
    const joined = await beat('i51');
    assert.equal(joined.status, 200, JSON.stringify(joined.body));
    assert.deepEqual(joined.body.transitions, ['instance_added']);
    const instances = (await api('GET', `/v1/agents/${id}`)).body.instances.map(
      (i: { instance_id: string }) => i.instance_id,
    );
    assert.equal(instances.length, 50);
    assert.ok(!instances.includes('i1') && instances.includes('i51'));
    const events = (await api('GET', `/v1/agents/${id}/events`)).body.items;
    const pruned = events.find((e: { type: string }) => e.type === 'instance_pruned');
    assert.equal(pruned?.instance_id, 'i1');
    assert.equal(pruned?.details.replaced_by, 'i51');
    assert.equal((await beat('i52')).status, 422, 'all online again: the next one is refused');
  });

  it('small holes - failed WebSocket upgrades and failed HTTP authentications spend the same per-address tokens (runs last)', async () => {
    const echo = await fakeAgent();
    const target = await registerAgent(system.baseUrl, echo.url);
    const wsUrl = (agentId: string) =>
      `${system.baseUrl.replace('http', 'ws')}/v1/agents/${agentId}/ws?instance_id=ws1`;
    const upgrade = (agentId: string, secret: string) =>
      new Promise<{ status: number; retryAfter: string | undefined }>((resolve) => {
        const socket = new WebSocket(wsUrl(agentId), { headers: { authorization: `Bearer ${secret}` } });
        socket.on('unexpected-response', (_req, res) => {
          resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined });
          socket.terminate();
        });
        socket.on('open', () => {
          socket.close();
          resolve({ status: 101, retryAfter: undefined });
        });
        socket.on('error', () => undefined);
      });
    const badKey = { authorization: `Bearer rk_0000deadbeef_${'Z'.repeat(43)}` };
    for (let i = 0; i < 3; i++) assert.equal((await upgrade(target.agent_id, 'ars_wrong')).status, 401);
    for (let i = 0; i < 2; i++) assert.equal((await api('GET', '/v1/agents', undefined, badKey)).status, 401);
    assert.equal((await upgrade('agt_000000000000000000000000', target.secret)).status, 404);
    const limited = await upgrade(target.agent_id, target.secret);
    assert.equal(limited.status, 429, 'even the right secret, once the address has spent its tokens');
    assert.ok(Number(limited.retryAfter) >= 1);
    const http = await api('GET', '/v1/agents', undefined, badKey);
    assert.equal(http.status, 429);
    assert.equal(http.body.error.code, 'rate_limited');
  });
});
