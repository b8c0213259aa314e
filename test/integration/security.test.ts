/**
 * Tenants are walls, callbacks prove who sends them, capabilities obey their ACL, endpoints obey the SSRF policy.
 * Tenant A is `default` (the test admin key); tenant B has its own admin key. Every probe of B at A's things must
 * fail (404 where the thing's existence would otherwise show) and change nothing, while A can do the same.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { eventually } from '../helpers/eventually';
import { acceptAndConfirm, startFakeAgent, type FakeAgent } from '../helpers/fake-agent';
import { registerAgent, request } from '../helpers/http';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

const OVERLAP_MS = 60_000;
let servers: TestServers;
let system: TestSystem;
let clock = new Date();
const agents: FakeAgent[] = [];
let sequence = 0;
const messageId = (prefix: string) => `${prefix}-${Date.now()}-${++sequence}`;

interface Registered {
  agent_id: string;
  secret: string;
}

/** A's world: an agent that processes (with a processed message), one that refuses (a failed message) and a silent one (messages left delivered). */
const a = {} as {
  echo: Registered;
  silent: Registered;
  processed: string;
  traceId: string;
  failed: string;
  pending: string;
  readKeyId: string;
};
/** B's world: its admin key, an agent. */
const b = {} as { key: string; echo: Registered };

async function fakeAgent(behaviour = acceptAndConfirm) {
  const agent = await startFakeAgent(behaviour);
  agents.push(agent);
  return agent;
}

const asB = (headers: Record<string, string> = {}) => ({ authorization: `Bearer ${b.key}`, ...headers });
const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  request(method, `${system.baseUrl}${path}`, body, headers);

async function endState(id: string, states = ['processed', 'failed', 'rejected', 'cancelled', 'expired']) {
  return eventually(`message ${id} to end`, async () => {
    const status = await api('GET', `/v1/messages/${id}`);
    return states.includes(status.body?.state) ? status.body : undefined;
  });
}

async function sendAs(
  headers: Record<string, string> | undefined,
  target: Registered,
  capability: string,
  id = messageId('m'),
) {
  return api('POST', '/v1/messages', { message_id: id, target: { agent_id: target.agent_id, capability } }, headers);
}

before(async () => {
  servers = await startTestServers();
  // The catalogue's clock is ours (to pass a rotation's overlap window); instances never go offline meanwhile.
  system = await startSystem(
    servers,
    { SECRET_ROTATION_OVERLAP_MS: String(OVERLAP_MS), HEARTBEAT_TTL_MS: '3600000' },
    { now: () => clock },
  );

  const echo = await fakeAgent();
  a.echo = await registerAgent(system.baseUrl, echo.url, { name: 'a-echo' });
  echo.secret = a.echo.secret;
  const refusing = await fakeAgent(() => ({ status: 400, body: { error: 'no' } }));
  const refuser = await registerAgent(system.baseUrl, refusing.url);
  const silent = await fakeAgent(() => ({ status: 202 }));
  a.silent = await registerAgent(system.baseUrl, silent.url, {
    capabilities: [{ name: 'echo', ack_timeout_ms: 600_000 }],
  });
  silent.secret = a.silent.secret;

  a.processed = messageId('a-processed');
  const sent = await api('POST', '/v1/messages', {
    message_id: a.processed,
    target: { agent_id: a.echo.agent_id, capability: 'echo' },
  });
  a.traceId = sent.body.trace_id;
  a.failed = (await sendAs(undefined, refuser, 'echo')).body.message_id;
  a.pending = (await sendAs(undefined, a.silent, 'echo')).body.message_id;
  await endState(a.processed);
  await endState(a.failed);
  await endState(a.pending, ['delivered']);
  a.readKeyId = (await system.keys.create('default', { scopes: ['read'] }, 'test')).view.key_id;

  b.key = (await system.keys.create('tenant-b', { scopes: ['admin'] }, 'test')).key;
  const bAgent = await fakeAgent();
  const registered = await api(
    'POST',
    '/v1/agents',
    { name: 'b-echo', endpoint: bAgent.url, capabilities: [{ name: 'echo' }] },
    asB(),
  );
  assert.equal(registered.status, 201, JSON.stringify(registered.body));
  b.echo = registered.body;
  bAgent.secret = b.echo.secret;
});

after(async () => {
  await Promise.all(agents.map((agent) => agent.stop()));
  await system?.stop();
  await servers?.stop();
});

interface Probe {
  name: string;
  run: () => Promise<{ status: number; body: any }>;
  status: number;
  code?: string;
  /** More to check in the answer (e.g. that a list does not show A's things). */
  check?: (body: any) => void;
}

const itemIds = (body: any, field: string): string[] => body.items.map((i: Record<string, string>) => i[field]);

const PROBES: Probe[] = [
  {
    name: 'list agents',
    run: () => api('GET', '/v1/agents', undefined, asB()),
    status: 200,
    check: (body) => assert.ok(!itemIds(body, 'agent_id').includes(a.echo.agent_id)),
  },
  {
    name: "search for A's agent by name",
    run: () => api('GET', '/v1/agents?q=a-echo', undefined, asB()),
    status: 200,
    check: (body) => assert.deepEqual(body.items, []),
  },
  {
    name: 'search by capability',
    run: () => api('GET', '/v1/agents?capability=echo', undefined, asB()),
    status: 200,
    check: (body) => assert.deepEqual(itemIds(body, 'agent_id'), [b.echo.agent_id]),
  },
  {
    name: "read A's agent",
    run: () => api('GET', `/v1/agents/${a.echo.agent_id}`, undefined, asB()),
    status: 404,
    code: 'agent_not_found',
  },
  {
    name: "read A's agent events",
    run: () => api('GET', `/v1/agents/${a.echo.agent_id}/events`, undefined, asB()),
    status: 404,
    code: 'agent_not_found',
  },
  {
    name: "export A's agent card",
    run: () => api('GET', `/v1/agents/${a.echo.agent_id}/agent-card.json`, undefined, asB()),
    status: 404,
    code: 'agent_not_found',
  },
  {
    name: "update A's agent with B's key",
    run: () =>
      api(
        'PUT',
        `/v1/agents/${a.echo.agent_id}`,
        { name: 'taken-over', endpoint: 'http://127.0.0.1:9/', capabilities: [{ name: 'echo' }] },
        asB(),
      ),
    status: 404,
    code: 'agent_not_found',
  },
  {
    name: "update A's agent with B's agent secret",
    run: () =>
      api(
        'PUT',
        `/v1/agents/${a.echo.agent_id}`,
        { name: 'taken-over', endpoint: 'http://127.0.0.1:9/', capabilities: [{ name: 'echo' }] },
        { authorization: `Bearer ${b.echo.secret}` },
      ),
    status: 404,
    code: 'agent_not_found',
  },
  {
    name: "deregister A's agent",
    run: () => api('DELETE', `/v1/agents/${a.echo.agent_id}`, undefined, asB()),
    status: 404,
    code: 'agent_not_found',
  },
  {
    name: "rotate A's agent secret",
    run: () => api('POST', `/v1/agents/${a.echo.agent_id}/secret`, undefined, asB()),
    status: 404,
    code: 'agent_not_found',
  },
  {
    name: "heartbeat for A's agent with B's key",
    run: () => api('POST', `/v1/agents/${a.echo.agent_id}/heartbeat`, { instance_id: 'i1', state: 'draining' }, asB()),
    status: 404,
    code: 'agent_not_found',
  },
  {
    name: "heartbeat for A's agent with B's agent secret",
    run: () =>
      api(
        'POST',
        `/v1/agents/${a.echo.agent_id}/heartbeat`,
        { instance_id: 'i1', state: 'draining' },
        { authorization: `Bearer ${b.echo.secret}` },
      ),
    status: 404,
    code: 'agent_not_found',
  },
  {
    name: "rotate A's agent secret with B's agent secret",
    run: () =>
      api('POST', `/v1/agents/${a.echo.agent_id}/secret`, undefined, { authorization: `Bearer ${b.echo.secret}` }),
    status: 404,
    code: 'agent_not_found',
  },
  {
    name: "open A's agent WebSocket with B's agent secret",
    run: () => upgradeStatus(a.echo.agent_id, b.echo.secret),
    status: 401,
  },
  { name: "send to A's agent", run: () => sendAs(asB(), a.echo, 'echo'), status: 404, code: 'agent_not_found' },
  {
    name: "send under A's message id to B's own agent (ids are per tenant: no conflict shows)",
    run: () =>
      api(
        'POST',
        '/v1/messages',
        { message_id: a.processed, target: { agent_id: b.echo.agent_id, capability: 'echo' } },
        asB(),
      ),
    status: 202,
  },
  {
    name: "read A's message",
    run: () => api('GET', `/v1/messages/${a.failed}`, undefined, asB()),
    status: 404,
    code: 'message_not_found',
  },
  {
    name: 'list messages',
    run: () => api('GET', '/v1/messages?limit=500', undefined, asB()),
    status: 200,
    check: (body) => assert.ok(![a.failed, a.pending].some((id) => itemIds(body, 'message_id').includes(id))),
  },
  {
    name: "list messages of A's agent",
    run: () => api('GET', `/v1/messages?agent_id=${a.echo.agent_id}`, undefined, asB()),
    status: 200,
    check: (body) => assert.deepEqual(body.items, []),
  },
  {
    name: "list messages of A's trace",
    run: () => api('GET', `/v1/messages?trace_id=${a.traceId}`, undefined, asB()),
    status: 200,
    check: (body) => assert.deepEqual(body.items, []),
  },
  {
    name: "read A's trace",
    run: () => api('GET', `/v1/traces/${a.traceId}`, undefined, asB()),
    status: 404,
    code: 'trace_not_found',
  },
  {
    name: "cancel A's message",
    run: () => api('POST', `/v1/messages/${a.pending}/cancel`, { reason: 'hostile' }, asB()),
    status: 404,
    code: 'message_not_found',
  },
  {
    name: "redrive A's failed message",
    run: () => api('POST', `/v1/messages/${a.failed}/redrive`, undefined, asB()),
    status: 404,
    code: 'message_not_found',
  },
  {
    name: "receipt for A's message with B's agent secret",
    run: () =>
      api(
        'POST',
        '/v1/callback',
        { message_id: a.pending, status: 'processed', result: { forged: true } },
        { authorization: `Bearer ${b.echo.secret}` },
      ),
    status: 404,
    code: 'message_not_found',
  },
  {
    name: 'list keys',
    run: () => api('GET', '/v1/keys', undefined, asB()),
    status: 200,
    check: (body) =>
      assert.ok(
        body.items.every((k: { tenant: string }) => k.tenant === 'tenant-b') &&
          !itemIds(body, 'key_id').includes(a.readKeyId),
      ),
  },
  {
    name: "revoke A's key",
    run: () => api('DELETE', `/v1/keys/${a.readKeyId}`, undefined, asB()),
    status: 404,
    code: 'key_not_found',
  },
  {
    name: 'read the metrics of every tenant',
    run: () => api('GET', '/metrics', undefined, asB()),
    status: 403,
    code: 'insufficient_scope',
  },
  {
    name: "register an agent under A's agent's name (names are per tenant: no conflict shows)",
    run: () =>
      api(
        'POST',
        '/v1/agents',
        { name: 'a-echo', instances: [{ transport: 'websocket' }], capabilities: [{ name: 'echo' }] },
        asB(),
      ),
    status: 201,
  },
];

/** The HTTP status with which the api answers a WebSocket upgrade. */
function upgradeStatus(agentId: string, secret: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${system.baseUrl.replace('http', 'ws')}/v1/agents/${agentId}/ws?instance_id=probe`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    socket.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0, body: undefined }));
    socket.on('open', () => {
      socket.close();
      resolve({ status: 101, body: undefined });
    });
    socket.on('error', () => undefined);
  });
}

describe('security - tenants are walls', () => {
  for (const probe of PROBES) {
    it(`security - tenant B: ${probe.name} → ${probe.status}${probe.code ? ` ${probe.code}` : ''}`, async () => {
      const response = await probe.run();
      assert.equal(response.status, probe.status, JSON.stringify(response.body));
      if (probe.code) assert.equal(response.body.error.code, probe.code);
      probe.check?.(response.body);
    });
  }

  it("security - after B's probes, A's things are unchanged and A can do what B could not", async () => {
    const agent = await api('GET', `/v1/agents/${a.echo.agent_id}`);
    assert.equal(agent.body.name, 'a-echo');
    assert.equal(agent.body.revision, 1);
    assert.equal(agent.body.instances[0].state, 'healthy');
    assert.equal((await api('GET', `/v1/messages/${a.processed}`)).body.state, 'processed');
    assert.equal((await api('GET', `/v1/messages/${a.pending}`)).body.state, 'delivered');
    assert.equal(
      (
        await api(
          'POST',
          `/v1/agents/${a.echo.agent_id}/heartbeat`,
          { instance_id: 'i1' },
          { authorization: `Bearer ${a.echo.secret}` },
        )
      ).status,
      200,
      "A's secret still works",
    );
    assert.ok(
      (await api('GET', '/v1/keys')).body.items.some(
        (k: { key_id: string; revoked_at?: string }) => k.key_id === a.readKeyId && !k.revoked_at,
      ),
    );
    assert.equal((await api('GET', `/v1/traces/${a.traceId}`)).status, 200);
    assert.equal((await api('POST', `/v1/messages/${a.failed}/redrive`)).status, 202);
    assert.equal((await api('POST', `/v1/messages/${a.pending}/cancel`, { reason: 'done testing' })).status, 200);
  });
});

describe('security - callbacks', () => {
  it('security - a receipt with a forged secret is refused and changes nothing', async () => {
    const id = (await sendAs(undefined, a.silent, 'echo')).body.message_id;
    await endState(id, ['delivered']);
    const forged = await api(
      'POST',
      '/v1/callback',
      { message_id: id, status: 'processed' },
      { authorization: 'Bearer ars_forged' },
    );
    assert.equal(forged.status, 401);
    assert.equal(forged.body.error.code, 'invalid_secret');
    const noSecret = await api('POST', '/v1/callback', { message_id: id, status: 'processed' }, { authorization: '' });
    assert.equal(noSecret.status, 401);
    assert.equal((await api('GET', `/v1/messages/${id}`)).body.state, 'delivered');
  });

  it('security - a receipt for a message delivered to another agent is refused (403) and changes nothing', async () => {
    const id = (await sendAs(undefined, a.silent, 'echo')).body.message_id;
    await endState(id, ['delivered']);
    const other = await api(
      'POST',
      '/v1/callback',
      { message_id: id, status: 'processed', result: { forged: true } },
      { authorization: `Bearer ${a.echo.secret}` },
    );
    assert.equal(other.status, 403);
    assert.equal(other.body.error.code, 'not_your_message');
    assert.equal((await api('GET', `/v1/messages/${id}`)).body.state, 'delivered');
  });

  it('security - a replayed receipt is acknowledged as a duplicate and applies nothing', async () => {
    const replay = await api(
      'POST',
      '/v1/callback',
      { message_id: a.processed, status: 'failed', error: { message: 'replayed' } },
      { authorization: `Bearer ${a.echo.secret}` },
    );
    assert.equal(replay.status, 200);
    assert.deepEqual(
      { applied: replay.body.applied, duplicate: replay.body.duplicate, state: replay.body.state },
      { applied: false, duplicate: true, state: 'processed' },
    );
    assert.equal((await api('GET', `/v1/messages/${a.processed}`)).body.state, 'processed');
  });

  it('security - after a rotation the old secret works during the overlap, then is refused (stale callbacks and heartbeats)', async () => {
    const silent = await fakeAgent(() => ({ status: 202 }));
    const registered = await registerAgent(system.baseUrl, silent.url, {
      capabilities: [{ name: 'echo', ack_timeout_ms: 600_000 }],
    });
    const rotated = await api('POST', `/v1/agents/${registered.agent_id}/secret`, undefined, {
      authorization: `Bearer ${registered.secret}`,
    });
    assert.equal(rotated.status, 200);
    const old = { authorization: `Bearer ${registered.secret}` };
    assert.equal(
      (await api('POST', `/v1/agents/${registered.agent_id}/heartbeat`, { instance_id: 'i1' }, old)).status,
      200,
      'inside the overlap',
    );
    const id = (await sendAs(undefined, registered, 'echo')).body.message_id;
    await endState(id, ['delivered']);

    clock = new Date(clock.getTime() + OVERLAP_MS + 1_000);
    const stale = await api('POST', '/v1/callback', { message_id: id, status: 'processed' }, old);
    assert.equal(stale.status, 401);
    assert.equal(stale.body.error.code, 'invalid_secret');
    assert.equal(
      (await api('POST', `/v1/agents/${registered.agent_id}/heartbeat`, { instance_id: 'i1' }, old)).status,
      401,
    );
    assert.equal((await api('GET', `/v1/messages/${id}`)).body.state, 'delivered');
    const fresh = await api(
      'POST',
      '/v1/callback',
      { message_id: id, status: 'processed', result: { ok: true } },
      { authorization: `Bearer ${rotated.body.secret}` },
    );
    assert.equal(fresh.status, 200);
    assert.equal(fresh.body.applied, true);
  });
});

describe('security - capability ACLs', () => {
  const acl = {} as { agent: Registered; sendKey: string; refundKey: string; auditKey: string };

  before(async () => {
    const receiver = await fakeAgent();
    const keys = await Promise.all(
      [['send'], ['send', 'refunds'], ['send']].map((scopes) => system.keys.create('default', { scopes }, 'test')),
    );
    acl.sendKey = keys[0]!.key;
    acl.refundKey = keys[1]!.key;
    acl.auditKey = keys[2]!.key;
    acl.agent = await registerAgent(system.baseUrl, receiver.url, {
      capabilities: [
        { name: 'refund', acl: { scopes: ['refunds'] } },
        { name: 'audit', acl: { key_ids: [keys[2]!.view.key_id] } },
        { name: 'echo' },
      ],
    });
    receiver.secret = acl.agent.secret;
  });

  const as = (key: string) => ({ authorization: `Bearer ${key}` });

  it('security - a key without the scope gets 403 on a restricted capability, and nothing is started', async () => {
    const id = messageId('acl-denied');
    const denied = await sendAs(as(acl.sendKey), acl.agent, 'refund', id);
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error.code, 'capability_forbidden');
    assert.equal(denied.body.error.details, null, 'why is for admins only');
    assert.equal((await api('GET', `/v1/messages/${id}`)).status, 404);
  });

  it('security - a key with the scope gets through and the message is processed; a repeat by a key without it is 403', async () => {
    const allowed = await sendAs(as(acl.refundKey), acl.agent, 'refund');
    assert.equal(allowed.status, 202, JSON.stringify(allowed.body));
    assert.equal((await endState(allowed.body.message_id)).state, 'processed');
    const repeat = await sendAs(as(acl.sendKey), acl.agent, 'refund', allowed.body.message_id);
    assert.equal(repeat.status, 403, 'the existing status is not shown to a sender the ACL refuses');
    assert.equal((await sendAs(as(acl.refundKey), acl.agent, 'refund', allowed.body.message_id)).status, 200);
  });

  it('security - an admin without the custom scope is refused too, but is told why', async () => {
    const denied = await sendAs(undefined, acl.agent, 'refund');
    assert.equal(denied.status, 403);
    assert.match(denied.body.error.details.reason, /scope "refunds"/);
  });

  it('security - a capability open to listed keys admits those keys only; an open capability admits any sender', async () => {
    assert.equal((await sendAs(as(acl.auditKey), acl.agent, 'audit')).status, 202);
    assert.equal((await sendAs(as(acl.sendKey), acl.agent, 'audit')).status, 403);
    assert.equal((await sendAs(as(acl.sendKey), acl.agent, 'echo')).status, 202);
  });

  it('security - when the ACL changes before delivery, the accepted message is refused at its next attempt', async () => {
    const key = (await system.keys.create('default', { scopes: ['send', 'payments'] }, 'test')).key;
    // A WebSocket-only agent that never connects: the message waits, looking the target up before each attempt.
    const card = {
      name: `acl-later-${Date.now()}`,
      instances: [{ transport: 'websocket' }],
      capabilities: [{ name: 'pay', max_attempts: 100, acl: { scopes: ['payments'] } }],
    };
    const registered = await api('POST', '/v1/agents', card);
    const sent = await sendAs(as(key), registered.body, 'pay');
    assert.equal(sent.status, 202);
    const updated = await api(
      'PUT',
      `/v1/agents/${registered.body.agent_id}`,
      { ...card, capabilities: [{ ...card.capabilities[0], acl: { scopes: ['treasury'] } }] },
      { authorization: `Bearer ${registered.body.secret}` },
    );
    assert.equal(updated.status, 200);
    const status = await endState(sent.body.message_id);
    assert.equal(status.reason.code, 'capability_forbidden');
    assert.ok(['rejected', 'failed'].includes(status.state));
  });
});

describe('security - endpoints (SSRF)', () => {
  it('security - registering an agent at the cloud metadata address is 422 with the error shape, and stores nothing', async () => {
    const before = await system.catalogue.models.agents.countDocuments();
    const response = await api('POST', '/v1/agents', {
      name: 'metadata',
      endpoint: 'http://169.254.169.254/latest/meta-data/',
      capabilities: [{ name: 'echo' }],
    });
    assert.equal(response.status, 422);
    assert.equal(response.body.error.code, 'endpoint_not_allowed');
    assert.equal(typeof response.body.error.message, 'string');
    assert.deepEqual(response.body.error.details, [
      { location: 'body.endpoint', message: '169.254.169.254 is a cloud metadata address' },
    ]);
    assert.equal(await system.catalogue.models.agents.countDocuments(), before);
  });
});
