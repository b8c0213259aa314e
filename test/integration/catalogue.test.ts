/**
 * The catalogue API against real FerretDB and Temporal, with a controllable clock for heartbeat ages.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { CatalogueIndex } from '../../catalogue/catalogue-index';
import { Heartbeats } from '../../catalogue/heartbeats';
import { sweepOnce } from '../../catalogue/sweeper';
import { retentionPruners } from '../../api/retention';
import { sessionModel } from '../../store/routing-sessions';
import { deleteOlderThan } from '../../store/retention';
import { eventually } from '../helpers/eventually';
import { startFakeAgent, type FakeAgent } from '../helpers/fake-agent';
import { request } from '../helpers/http';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

let servers: TestServers;
let system: TestSystem;
let agent: FakeAgent;
let clock = new Date();
const advance = (ms: number) => (clock = new Date(clock.getTime() + ms));
let n = 0;
const uniqueName = (prefix: string) => `${prefix}-${Date.now()}-${++n}`;

const api = (method: string, path: string, body?: unknown, secret?: string) =>
  request(method, `${system.baseUrl}${path}`, body, secret ? { authorization: `Bearer ${secret}` } : {});

async function register(overrides: Record<string, unknown> = {}) {
  const response = await api('POST', '/v1/agents', {
    name: uniqueName('agent'),
    endpoint: agent.url,
    capabilities: [{ name: 'echo', description: 'Echoes' }],
    ...overrides,
  });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body as { agent_id: string; secret: string; agent: any };
}

async function events(agentId: string): Promise<{ type: string; instance_id?: string; details?: any }[]> {
  return (await api('GET', `/v1/agents/${agentId}/events`)).body.items;
}

before(async () => {
  servers = await startTestServers();
  system = await startSystem(
    servers,
    { DELIVERY_MAX_ATTEMPTS: '40', SECRET_ROTATION_OVERLAP_MS: '60000' },
    { now: () => clock },
  );
  agent = await startFakeAgent();
});

after(async () => {
  await agent?.stop();
  await system?.stop();
  await servers?.stop();
});

beforeEach(() => {
  clock = new Date();
});

describe('catalogue - registration', () => {
  it('catalogue - register returns the id, the secret once, the card and heartbeat advice', async () => {
    const registered = await register({
      description: 'Handles refunds',
      tags: ['finance'],
      capabilities: [
        {
          name: 'refund',
          description: 'Refund an order',
          tags: ['money'],
          parameters: { type: 'object', required: ['order_id'], properties: { order_id: { type: 'string' } } },
          returns: { type: 'object' },
          examples: ['refund order 42'],
          ack_timeout_ms: 5000,
          max_concurrency: 4,
        },
      ],
    });
    assert.match(registered.agent_id, /^agt_[0-9a-f]{24}$/);
    assert.match(registered.secret, /^ars_/);
    const read = await api('GET', `/v1/agents/${registered.agent_id}`);
    assert.equal(read.status, 200);
    assert.equal(read.body.revision, 1);
    assert.deepEqual(read.body.capabilities[0].parameters.required, ['order_id']);
    assert.equal(read.body.capabilities[0].max_concurrency, 4);
    assert.equal(read.body.instances[0].online, true);
    assert.equal(read.body.instances[0].instance_id, 'i1');
    assert.ok(!JSON.stringify(read.body).includes(registered.secret));
    assert.ok(!JSON.stringify(read.body).includes('secret_hash'));
    assert.deepEqual(
      (await events(registered.agent_id)).map((e) => e.type),
      ['registered'],
    );
  });

  it('catalogue - a broken parameters schema is a 422 naming the path, and nothing is stored', async () => {
    const name = uniqueName('broken');
    const response = await api('POST', '/v1/agents', {
      name,
      endpoint: agent.url,
      capabilities: [
        { name: 'ok' },
        { name: 'refund', parameters: { type: 'object', properties: { amount: { type: 'numbr' } } } },
      ],
    });
    assert.equal(response.status, 422);
    assert.equal(response.body.error.code, 'invalid_schema');
    assert.equal(response.body.error.details[0].location, 'body.capabilities.1.parameters#/properties/amount/type');
    assert.equal(await system.catalogue.models.agents.countDocuments({ name }), 0);
  });

  it('catalogue - registering again with the same name and secret reuses the id and takes the new card', async () => {
    const first = await register();
    const name = first.agent.name;
    const again = await request(
      'POST',
      `${system.baseUrl}/v1/agents`,
      {
        name,
        endpoint: agent.url,
        capabilities: [{ name: 'echo' }, { name: 'shout' }],
      },
      { authorization: `Bearer ${first.secret}` },
    );
    assert.equal(again.status, 200);
    assert.equal(again.body.agent_id, first.agent_id);
    assert.equal(again.body.reregistered, true);
    assert.equal(again.body.secret, undefined, 'no new secret');
    assert.equal(again.body.agent.revision, 2);
    assert.deepEqual(
      again.body.agent.capabilities.map((c: { name: string }) => c.name),
      ['echo', 'shout'],
    );
    const stranger = await api(
      'POST',
      '/v1/agents',
      { name, endpoint: agent.url, capabilities: [{ name: 'x' }] },
      'ars_wrong',
    );
    assert.equal(stranger.status, 401);
    assert.equal(stranger.body.error.code, 'invalid_secret');
    const withKey = await api('POST', '/v1/agents', { name, endpoint: agent.url, capabilities: [{ name: 'x' }] });
    assert.equal(withKey.status, 409, 'a register key does not take over a name');
    assert.equal(withKey.body.error.code, 'agent_name_taken');
    const otherName = await api(
      'POST',
      '/v1/agents',
      { name: `${name}-2`, endpoint: agent.url, capabilities: [{ name: 'x' }] },
      first.secret,
    );
    assert.equal(otherName.status, 403, 'an agent secret registers nothing but its own agent');
    assert.equal(otherName.body.error.code, 'register_needs_api_key');
  });

  it('catalogue - concurrent registrations all succeed, even before the change counter exists', async () => {
    await system.catalogue.models.meta.deleteMany({});
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        api('POST', '/v1/agents', { name: uniqueName('burst'), endpoint: agent.url, capabilities: [{ name: 'echo' }] }),
      ),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      Array(8).fill(201),
    );
    assert.ok((await system.catalogue.models.meta.findById('catalogue').lean())!.version >= 1);
  });

  it('catalogue - several instances, each with its transport and state', async () => {
    const registered = await register({
      endpoint: undefined,
      instances: [
        { instance_id: 'eu-1', endpoint: agent.url },
        { instance_id: 'ws-1', transport: 'websocket' },
        { instance_id: 'eu-2', endpoint: agent.url, state: 'draining' },
      ],
    });
    const read = await api('GET', `/v1/agents/${registered.agent_id}`);
    assert.deepEqual(
      read.body.instances.map((i: { instance_id: string; transport: string; state: string }) => [
        i.instance_id,
        i.transport,
        i.state,
      ]),
      [
        ['eu-1', 'http', 'healthy'],
        ['eu-2', 'http', 'draining'],
        ['ws-1', 'websocket', 'healthy'],
      ],
    );
    const bad = await api('POST', '/v1/agents', {
      name: uniqueName('x'),
      instances: [{ instance_id: 'a' }],
      capabilities: [{ name: 'x' }],
    });
    assert.equal(bad.status, 400, 'an http instance needs an endpoint');
  });
});

describe('catalogue - search', () => {
  it('catalogue - filters by tag, capability, free text (both languages) and state, with pages', async () => {
    const marker = `m${Date.now()}`;
    const a = await register({
      name: `${marker}-退款助手`,
      description: '处理退款和售后',
      tags: [marker, 'finance'],
      capabilities: [{ name: 'refund', description: 'refund an order', tags: ['money'] }],
    });
    const b = await register({
      name: `${marker}-quality`,
      description: 'Checks ticket quality',
      tags: [marker],
      capabilities: [{ name: 'review' }],
    });
    const c = await register({
      name: `${marker}-drain`,
      tags: [marker],
      endpoint: undefined,
      instances: [{ endpoint: agent.url, state: 'draining' }],
      capabilities: [{ name: 'review' }],
    });
    const ids = (response: { body: { items: { agent_id: string }[] } }) =>
      response.body.items.map((i) => i.agent_id).sort();

    assert.deepEqual(ids(await api('GET', `/v1/agents?tag=${marker}`)), [a.agent_id, b.agent_id, c.agent_id].sort());
    assert.deepEqual(ids(await api('GET', `/v1/agents?tag=money&q=${marker}`)), [a.agent_id], 'capability tags count');
    assert.deepEqual(
      ids(await api('GET', `/v1/agents?tag=${marker}&capability=review`)),
      [b.agent_id, c.agent_id].sort(),
    );
    assert.deepEqual(ids(await api('GET', `/v1/agents?tag=${marker}&q=${encodeURIComponent('售后')}`)), [a.agent_id]);
    assert.deepEqual(ids(await api('GET', `/v1/agents?tag=${marker}&q=TICKET`)), [b.agent_id], 'case-insensitive');
    assert.deepEqual(
      ids(await api('GET', `/v1/agents?tag=${marker}&q=${encodeURIComponent('.*')}`)),
      [],
      'regex characters are literal',
    );
    assert.deepEqual(ids(await api('GET', `/v1/agents?tag=${marker}&state=draining`)), [c.agent_id]);

    const page1 = await api('GET', `/v1/agents?tag=${marker}&limit=2`);
    assert.equal(page1.body.items.length, 2);
    const page2 = await api('GET', `/v1/agents?tag=${marker}&limit=2&cursor=${page1.body.next_cursor}`);
    assert.equal(page2.body.items.length, 1);
    assert.equal(page2.body.next_cursor, undefined);
    assert.deepEqual([...ids(page1), ...ids(page2)].sort(), [a.agent_id, b.agent_id, c.agent_id].sort());

    advance(61_000);
    assert.deepEqual(
      ids(await api('GET', `/v1/agents?tag=${marker}&state=offline`)),
      [a.agent_id, b.agent_id, c.agent_id].sort(),
    );
    assert.deepEqual(ids(await api('GET', `/v1/agents?tag=${marker}&state=online`)), []);
  });

  it('catalogue - bad search parameters are 400s', async () => {
    for (const query of ['state=sleeping', 'limit=0', 'limit=abc', 'cursor=nope', 'colour=red', 'tag=a&tag=b']) {
      const response = await api('GET', `/v1/agents?${query}`);
      assert.equal(response.status, 400, query);
      assert.equal(response.body.error.code, 'invalid_request');
    }
  });
});

describe('catalogue - heartbeats', () => {
  it('catalogue - heartbeats keep an instance online; silence makes it offline; the next beat restores it', async () => {
    const registered = await register();
    const id = registered.agent_id;
    const beat = (body: Record<string, unknown> = { instance_id: 'i1' }) =>
      api('POST', `/v1/agents/${id}/heartbeat`, body, registered.secret);

    advance(50_000);
    const ok = await beat({ instance_id: 'i1', state: 'busy', load: { in_flight: 3, qps: 1.5 } });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.next_heartbeat_in_ms, 10_000);
    assert.equal(ok.body.offline_after_ms, 60_000);
    assert.deepEqual(ok.body.instance.load, { in_flight: 3, qps: 1.5 });
    assert.deepEqual(ok.body.transitions, ['state_changed']);

    advance(59_000);
    assert.equal((await api('GET', `/v1/agents/${id}`)).body.instances[0].online, true, 'within the TTL');
    await system.catalogue.heartbeats.sweep();
    assert.equal(
      (await system.catalogue.models.instances.findById(`${id}/i1`).lean())?.liveness,
      'online',
      'not swept',
    );

    advance(2_000);
    assert.equal((await api('GET', `/v1/agents/${id}`)).body.instances[0].online, false, 'derived at once');
    await system.catalogue.heartbeats.sweep();
    const offline = await system.catalogue.models.instances.findById(`${id}/i1`).lean();
    assert.equal(offline?.liveness, 'offline', 'marked, not deleted');

    const back = await beat();
    assert.equal(back.status, 200);
    assert.deepEqual(back.body.transitions, ['online']);
    assert.equal(back.body.instance.online, true);
    assert.deepEqual(
      (await events(id)).map((e) => e.type),
      ['online', 'offline', 'state_changed', 'registered'],
    );
  });

  it('catalogue - two replicas sweeping at once record each offline transition once', async () => {
    const registered = await register();
    advance(120_000);
    const replicaA = new Heartbeats(system.catalogue.models, system.catalogue.policy, {
      writeEveryMs: 15_000,
      now: () => clock,
    });
    const replicaB = new Heartbeats(system.catalogue.models, system.catalogue.policy, {
      writeEveryMs: 15_000,
      now: () => clock,
    });
    await Promise.all([replicaA.sweep(), replicaB.sweep(), replicaA.sweep()]);
    const offline = (await events(registered.agent_id)).filter((e) => e.type === 'offline');
    assert.equal(offline.length, 1);
    const beat = () =>
      api('POST', `/v1/agents/${registered.agent_id}/heartbeat`, { instance_id: 'i1' }, registered.secret);
    const answers = await Promise.all([beat(), beat(), beat()]);
    assert.ok(answers.every((a) => a.status === 200));
    assert.deepEqual(
      answers.flatMap((a) => a.body.transitions),
      ['online'],
      'one heartbeat reports the comeback',
    );
    assert.equal((await events(registered.agent_id)).filter((e) => e.type === 'online').length, 1);
  });

  it('catalogue - a replica writes a heartbeat at most every HEARTBEAT_WRITE_EVERY_MS unless something changes', async () => {
    const registered = await register();
    const id = registered.agent_id;
    const stored = async () => (await system.catalogue.models.instances.findById(`${id}/i1`).lean())!;
    const beat = (body: Record<string, unknown> = {}) =>
      api('POST', `/v1/agents/${id}/heartbeat`, { instance_id: 'i1', ...body }, registered.secret);
    await beat();
    const first = (await stored()).last_heartbeat_at.getTime();
    assert.equal(first, clock.getTime(), 'the first beat is written');
    advance(5_000);
    const quiet = await beat({ load: { in_flight: 2 } });
    assert.equal(
      new Date(quiet.body.instance.last_heartbeat_at).getTime(),
      clock.getTime(),
      'answered with the beat time',
    );
    assert.equal(quiet.body.instance.load.in_flight, 2);
    assert.equal((await stored()).last_heartbeat_at.getTime(), first, 'not written');
    advance(1_000);
    await beat({ state: 'busy' });
    assert.equal((await stored()).state, 'busy', 'a state change is written at once');
    assert.equal((await stored()).last_heartbeat_at.getTime(), clock.getTime());
    advance(15_000);
    await beat();
    assert.equal((await stored()).last_heartbeat_at.getTime(), clock.getTime(), 'written again after 15 s');
  });

  it('catalogue - an instance joins or moves by heartbeat with an endpoint', async () => {
    const registered = await register();
    const id = registered.agent_id;
    const unknown = await api('POST', `/v1/agents/${id}/heartbeat`, { instance_id: 'i9' }, registered.secret);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'instance_not_found');
    assert.match(unknown.body.error.details.hint, /endpoint/);

    const joined = await api(
      'POST',
      `/v1/agents/${id}/heartbeat`,
      { instance_id: 'i9', endpoint: 'http://127.0.0.1:9/new' },
      registered.secret,
    );
    assert.equal(joined.status, 200);
    assert.deepEqual(joined.body.transitions, ['instance_added']);
    const moved = await api(
      'POST',
      `/v1/agents/${id}/heartbeat`,
      { instance_id: 'i1', endpoint: 'http://127.0.0.1:9/moved' },
      registered.secret,
    );
    assert.deepEqual(moved.body.transitions, ['instance_moved']);
    const read = await api('GET', `/v1/agents/${id}`);
    assert.deepEqual(
      read.body.instances.map((i: { endpoint: string }) => i.endpoint),
      ['http://127.0.0.1:9/moved', 'http://127.0.0.1:9/new'],
    );
    const moveEvent = (await events(id)).find((e) => e.type === 'instance_moved');
    assert.deepEqual(moveEvent?.details, { from: agent.url, to: 'http://127.0.0.1:9/moved' });
  });

  it('catalogue - heartbeat errors: unknown agent (with a hint), wrong secret, bad state', async () => {
    const registered = await register();
    const unknown = await api(
      'POST',
      '/v1/agents/agt_000000000000000000000000/heartbeat',
      { instance_id: 'i1' },
      registered.secret,
    );
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'agent_not_found');
    assert.match(unknown.body.error.details.hint, /register/);
    const wrong = await api('POST', `/v1/agents/${registered.agent_id}/heartbeat`, { instance_id: 'i1' }, 'ars_wrong');
    assert.equal(wrong.status, 401);
    const anon = await request(
      'POST',
      `${system.baseUrl}/v1/agents/${registered.agent_id}/heartbeat`,
      { instance_id: 'i1' },
      { authorization: '' },
    );
    assert.equal(anon.status, 401);
    const apiKey = await api('POST', `/v1/agents/${registered.agent_id}/heartbeat`, { instance_id: 'i1' });
    assert.equal(apiKey.status, 404, "a caller's API key is not an agent secret");
    for (const body of [
      { instance_id: 'i1', state: 'sleeping' },
      { instance_id: 'i 1' },
      { instance_id: 'i1', load: { in_flight: -1 } },
      {},
    ]) {
      const bad = await api('POST', `/v1/agents/${registered.agent_id}/heartbeat`, body, registered.secret);
      assert.equal(bad.status, 400, JSON.stringify(body));
    }
  });
});

describe('catalogue - routing and liveness', () => {
  it('catalogue - an offline agent is never delivered to; its message waits and goes out when it beats again', async () => {
    const silent = await startFakeAgent();
    try {
      const registered = await register({ endpoint: silent.url });
      silent.secret = registered.secret;
      advance(61_000);
      const messageId = uniqueName('wait');
      const sent = await api('POST', '/v1/messages', {
        message_id: messageId,
        target: { agent_id: registered.agent_id, capability: 'echo' },
      });
      assert.equal(sent.status, 202, 'accepted: the workflow waits for an instance');
      await eventually('an unavailable attempt', async () => {
        const status = await api('GET', `/v1/messages/${messageId}`);
        return status.body.attempts.some((a: { outcome: string }) => a.outcome === 'unavailable') ? true : undefined;
      });
      assert.equal(silent.deliveries.length, 0, 'nothing reached the offline agent');
      await api('POST', `/v1/agents/${registered.agent_id}/heartbeat`, { instance_id: 'i1' }, registered.secret);
      const done = await eventually('processed', async () => {
        const status = await api('GET', `/v1/messages/${messageId}`);
        return status.body.state === 'processed' ? status.body : undefined;
      });
      assert.equal(done.attempts.at(-1).outcome, 'accepted');
      assert.equal(silent.deliveries.length, 1);
    } finally {
      await silent.stop();
    }
  });

  it('catalogue - a draining instance is skipped for a healthy one', async () => {
    const draining = await startFakeAgent();
    const healthy = await startFakeAgent();
    try {
      const registered = await register({
        endpoint: undefined,
        instances: [
          { instance_id: 'a', endpoint: draining.url, state: 'draining' },
          { instance_id: 'b', endpoint: healthy.url },
        ],
      });
      draining.secret = healthy.secret = registered.secret;
      const messageId = uniqueName('drain');
      await api('POST', '/v1/messages', {
        message_id: messageId,
        target: { agent_id: registered.agent_id, capability: 'echo' },
      });
      const done = await eventually('processed', async () => {
        const status = await api('GET', `/v1/messages/${messageId}`);
        return status.body.state === 'processed' ? status.body : undefined;
      });
      assert.equal(done.agent.instance_id, 'b');
      assert.equal(draining.deliveries.length, 0);
    } finally {
      await Promise.all([draining.stop(), healthy.stop()]);
    }
  });
});

describe('catalogue - update, rotate, deregister', () => {
  it('catalogue - the agent updates its card with its secret; a new revision', async () => {
    const registered = await register();
    const id = registered.agent_id;
    const card = {
      name: registered.agent.name,
      version: '2.0',
      endpoint: agent.url,
      capabilities: [{ name: 'echo' }, { name: 'translate' }],
    };
    assert.equal((await request('PUT', `${system.baseUrl}/v1/agents/${id}`, card, { authorization: '' })).status, 401);
    assert.equal((await api('PUT', `/v1/agents/${id}`, card)).status, 404, "a caller's API key is not an agent secret");
    assert.equal((await api('PUT', `/v1/agents/${id}`, card, 'ars_wrong')).status, 401);
    const updated = await api('PUT', `/v1/agents/${id}`, card, registered.secret);
    assert.equal(updated.status, 200);
    assert.equal(updated.body.agent.version, '2.0');
    assert.equal(updated.body.agent.revision, 2);
    const dup = await api(
      'PUT',
      `/v1/agents/${id}`,
      { ...card, capabilities: [{ name: 'a' }, { name: 'a' }] },
      registered.secret,
    );
    assert.equal(dup.status, 422);
    assert.equal(dup.body.error.code, 'duplicate_capability');
    const other = await register();
    const clash = await api('PUT', `/v1/agents/${id}`, { ...card, name: other.agent.name }, registered.secret);
    assert.equal(clash.status, 409);
    assert.equal((await api('GET', `/v1/agents/${id}`)).body.revision, 2, 'refused updates changed nothing');
  });

  it('catalogue - a rotated secret replaces the old one after the overlap window', async () => {
    const registered = await register();
    const id = registered.agent_id;
    const rotated = await api('POST', `/v1/agents/${id}/secret`, undefined, registered.secret);
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.secret, registered.secret);
    const beat = (secret: string) => api('POST', `/v1/agents/${id}/heartbeat`, { instance_id: 'i1' }, secret);
    assert.equal((await beat(rotated.body.secret)).status, 200);
    assert.equal((await beat(registered.secret)).status, 200, 'old secret still valid during the overlap');
    advance(61_000);
    assert.equal((await beat(registered.secret)).status, 401, 'old secret expired');
    assert.equal((await beat(rotated.body.secret)).status, 200);
  });

  it('catalogue - deregistration removes the agent; later calls say it is unknown', async () => {
    const registered = await register();
    const id = registered.agent_id;
    assert.equal((await api('DELETE', `/v1/agents/${id}`, undefined, 'ars_wrong')).status, 401);
    assert.equal((await api('DELETE', `/v1/agents/${id}`, undefined, registered.secret)).status, 204);
    assert.equal((await api('GET', `/v1/agents/${id}`)).status, 404);
    assert.equal(
      (await api('POST', `/v1/agents/${id}/heartbeat`, { instance_id: 'i1' }, registered.secret)).status,
      404,
    );
    const message = await api('POST', '/v1/messages', { target: { agent_id: id, capability: 'echo' } });
    assert.equal(message.status, 404);
    assert.equal(await system.catalogue.models.instances.countDocuments({ agent_id: id }), 0);
  });
});

describe('catalogue - A2A agent cards', () => {
  const fixture = (name: string) =>
    JSON.parse(readFileSync(join(__dirname, '../fixtures', name), 'utf8')) as Record<string, unknown>;

  it('catalogue - imports a v1.0 card inline and exports it back in A2A form', async () => {
    // The fixture's interfaces are on example.com, which does not resolve here: the endpoint policy needs an address.
    const fixtureCard = fixture('a2a-card-v1.0.json') as { supportedInterfaces: { url: string }[] };
    const supportedInterfaces = fixtureCard.supportedInterfaces.map((i) => ({
      ...i,
      url: i.url.replace('https://travel.example.com', 'http://127.0.0.1:10000'),
    }));
    const card = { ...fixtureCard, supportedInterfaces, name: uniqueName('travel') };
    const imported = await api('POST', '/v1/agents/import', { card });
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    assert.equal(imported.body.a2a_version, '1.0');
    assert.match(imported.body.secret, /^ars_/);
    assert.deepEqual(imported.body.agent.source, { kind: 'a2a', version: '1.0', card }, 'the card is kept as imported');
    assert.equal(imported.body.agent.instances[0].endpoint, 'http://127.0.0.1:10000/a2a/v1');

    const exported = await api('GET', `/v1/agents/${imported.body.agent_id}/agent-card.json`);
    assert.equal(exported.status, 200);
    assert.equal(exported.body.name, card.name);
    // The skills as the card named them; reached through the agent's A2A face with an API key (docs/a2a.md).
    assert.deepEqual(
      exported.body.skills.map((s: { id: string; name: string }) => [s.id, s.name]),
      [
        ['book-flight', 'Book a flight'],
        ['hotel search/v2', 'Search hotels'],
      ],
    );
    assert.deepEqual(exported.body.provider, (card as Record<string, unknown>).provider);
    assert.equal(
      exported.body.supportedInterfaces[0].url,
      `${system.config.PUBLIC_URL}/a2a/agents/${imported.body.agent_id}`,
    );
    assert.deepEqual(Object.keys(exported.body.securitySchemes), ['reach_api_key']);
    const v03 = await api('GET', `/v1/agents/${imported.body.agent_id}/agent-card.json?a2a_version=0.3`);
    assert.equal(v03.body.protocolVersion, '0.3.0');
    assert.equal((await api('GET', `/v1/agents/${imported.body.agent_id}/agent-card.json?a2a_version=9`)).status, 400);
  });

  it('catalogue - imports a v0.3 card from a URL’s well-known path', async () => {
    const card = { ...fixture('a2a-card-v0.3.json'), name: uniqueName('currency') };
    let requested = '';
    const server: Server = createServer((req, res) => {
      requested = req.url ?? '';
      res
        .writeHead(req.url === '/.well-known/agent-card.json' ? 200 : 404, { 'content-type': 'application/json' })
        .end(JSON.stringify(card));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const address = server.address() as { port: number };
      const imported = await api('POST', '/v1/agents/import', { url: `http://127.0.0.1:${address.port}` });
      assert.equal(imported.status, 201, JSON.stringify(imported.body));
      assert.equal(requested, '/.well-known/agent-card.json');
      assert.equal(imported.body.a2a_version, '0.3');
      assert.deepEqual(
        imported.body.agent.capabilities.map((c: { name: string }) => c.name),
        ['convert_currency'],
      );
      assert.equal(imported.body.agent.source.url, `http://127.0.0.1:${address.port}/.well-known/agent-card.json`);
    } finally {
      server.close();
    }
  });

  it('catalogue - invalid or unreachable cards are 4xx and store nothing', async () => {
    const before = await system.catalogue.models.agents.countDocuments();
    const noSkills = await api('POST', '/v1/agents/import', { card: { ...fixture('a2a-card-v1.0.json'), skills: [] } });
    assert.equal(noSkills.status, 422);
    assert.equal(noSkills.body.error.code, 'invalid_agent_card');
    assert.equal(noSkills.body.error.details[0].location, 'card.skills');
    const unreachable = await api('POST', '/v1/agents/import', { url: 'http://127.0.0.1:9/' });
    assert.equal(unreachable.status, 422);
    assert.equal(unreachable.body.error.code, 'agent_card_unreachable');
    const both = await api('POST', '/v1/agents/import', { url: 'http://127.0.0.1:9/', card: {} });
    assert.equal(both.status, 400);
    assert.equal(await system.catalogue.models.agents.countDocuments(), before);
  });
});

describe('catalogue - in-memory index', () => {
  it('catalogue - the index reloads when the change counter moves, and only then', async () => {
    const index = new CatalogueIndex(system.catalogue.models, { refreshMs: 1_000, maxStalenessMs: 3_600_000 });
    assert.equal(await index.refresh(), true);
    assert.equal(await index.refresh(), false, 'nothing changed');
    const registered = await register();
    assert.equal(await index.refresh(), true);
    const entry = index.agents('default').find((e) => e.agent._id === registered.agent_id);
    assert.ok(entry, 'the new agent is in the index');
    assert.equal(entry.instances.length, 1);
    assert.equal((entry.agent as { secret_hash?: string }).secret_hash, undefined, 'no secret hash in memory');
    await api('POST', `/v1/agents/${registered.agent_id}/heartbeat`, { instance_id: 'i1' }, registered.secret);
    assert.equal(await index.refresh(), false, 'a plain heartbeat is not a catalogue change');
  });
});

describe('catalogue - retention', () => {
  const DAY = 86_400_000;
  const quiet = { info() {}, warn() {} };

  it('catalogue - the sweeper deletes agent events past their retention and routing sessions past their TTL, nothing newer', async () => {
    const now = new Date();
    const ago = (ms: number) => new Date(now.getTime() - ms);
    const agentId = uniqueName('retained');
    const event = (id: string, at: Date) => ({
      _id: `${agentId}-${id}`,
      tenant: 'default',
      agent_id: agentId,
      type: 'online' as const,
      at,
    });
    await system.catalogue.models.events.insertMany([event('old', ago(8 * DAY)), event('recent', ago(6 * DAY))]);
    const sessions = sessionModel(system.mongo);
    const session = (id: string, updatedAt: Date) => ({
      _id: `default/${agentId}-${id}`,
      key: 'k',
      instance_id: 'i1',
      updated_at: updatedAt,
    });
    await sessions.insertMany([session('expired', ago(31 * 60_000)), session('live', ago(29 * 60_000))]);

    const config = { AGENT_EVENT_RETENTION_MS: 7 * DAY, ROUTER_SESSION_TTL_MS: 30 * 60_000 };
    await sweepOnce(
      system.catalogue.heartbeats,
      retentionPruners(config, system.mongo, system.catalogue.models, () => now),
      quiet,
    );

    const eventIds = (await system.catalogue.models.events.find({ agent_id: agentId }).lean()).map((e) => e._id);
    assert.deepEqual(eventIds, [`${agentId}-recent`]);
    const sessionIds = (await sessions.find({ _id: { $regex: `^default/${agentId}-` } }).lean()).map((d) => d._id);
    assert.deepEqual(sessionIds, [`default/${agentId}-live`]);
  });

  it('catalogue - one prune deletes at most its batch; the next sweep takes the rest', async () => {
    const agentId = uniqueName('backlog');
    const at = new Date('2000-01-01T00:00:00Z');
    await system.catalogue.models.events.insertMany(
      [1, 2, 3].map((i) => ({
        _id: `${agentId}-${i}`,
        tenant: 'default',
        agent_id: agentId,
        type: 'online' as const,
        at,
      })),
    );
    const cutoff = new Date('2000-01-02T00:00:00Z');
    assert.equal(await deleteOlderThan(system.catalogue.models.events, 'at', cutoff, 2), 2);
    assert.equal(await system.catalogue.models.events.countDocuments({ agent_id: agentId }), 1);
    assert.equal(await deleteOlderThan(system.catalogue.models.events, 'at', cutoff, 2), 1);
    assert.equal(await system.catalogue.models.events.countDocuments({ agent_id: agentId }), 0);
  });
});
