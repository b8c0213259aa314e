/**
 * The bad-input corpus (test/fixtures/bad-input-corpus.ts) against the live api: every case answers 4xx with
 * `{"error": {"code", "message", "details"}}` — never a 500 — and stores nothing (agents, instances, events,
 * keys and message runs are counted before and after each case).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BAD_INPUT_CORPUS, type CorpusCase, type CorpusContext } from '../fixtures/bad-input-corpus';
import { registerAgent, request } from '../helpers/http';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

let servers: TestServers;
let system: TestSystem;
let context: CorpusContext;

before(async () => {
  servers = await startTestServers();
  // Production's endpoint policy (no loopback, no private ranges) and a small stored-payload limit.
  system = await startSystem(servers, { ENDPOINT_ALLOW_LOOPBACK: 'false', MAX_PAYLOAD_BYTES: '16384' });
  const agent = await registerAgent(system.baseUrl, '', {
    name: 'corpus-echo',
    endpoint: undefined,
    instances: [{ transport: 'websocket' }],
  });
  const key = async (scopes: string[]) => (await system.keys.create('default', { scopes }, 'corpus')).key;
  const revoked = await system.keys.create('default', { scopes: ['read'] }, 'corpus');
  await system.keys.revoke('default', revoked.view.key_id);
  context = {
    agentId: agent.agent_id,
    agentSecret: agent.secret,
    adminKey: await key(['admin']),
    readKey: await key(['read']),
    sendKey: await key(['send']),
    revokedKey: revoked.key,
  };
});

after(async () => {
  await system?.stop();
  await servers?.stop();
});

async function storedCounts() {
  let runs = 0;
  for await (const _ of system.client.workflow.list({ query: `TaskQueue = '${system.config.TEMPORAL_TASK_QUEUE}'` }))
    runs += 1;
  const { agents, instances, events } = system.catalogue.models;
  const keys = system.mongo.collection('api_keys');
  return {
    agents: await agents.countDocuments(),
    instances: await instances.countDocuments(),
    events: await events.countDocuments(),
    keys: await keys.countDocuments(),
    runs,
  };
}

/** Sends a case as it is written: JSON, or a string or bytes as they are. */
async function sendCase(c: CorpusCase) {
  const resolve = <T>(v: T | ((ctx: CorpusContext) => T)): T =>
    typeof v === 'function' ? (v as (ctx: CorpusContext) => T)(context) : v;
  const path = resolve(c.path);
  const body = resolve(c.body);
  const headers = { authorization: `Bearer ${context.adminKey}`, ...resolve(c.headers ?? {}) };
  if (!Buffer.isBuffer(body)) return request(c.method, `${system.baseUrl}${path}`, body, headers);
  const response = await fetch(`${system.baseUrl}${path}`, {
    method: c.method,
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });
  return { status: response.status, body: JSON.parse(await response.text()), headers: response.headers };
}

describe('bad input corpus', () => {
  it(`bad input corpus - holds at least 100 cases (${BAD_INPUT_CORPUS.length})`, () => {
    assert.ok(BAD_INPUT_CORPUS.length >= 100);
    assert.equal(new Set(BAD_INPUT_CORPUS.map((c) => c.name)).size, BAD_INPUT_CORPUS.length, 'case names are unique');
  });

  for (const c of BAD_INPUT_CORPUS) {
    it(`bad input corpus - ${c.name} → ${c.status ?? '4xx'}${c.code ? ` ${c.code}` : ''}, nothing stored`, async () => {
      const before = await storedCounts();
      const response = await sendCase(c);
      assert.ok(
        response.status >= 400 && response.status < 500,
        `status ${response.status}: ${JSON.stringify(response.body)}`,
      );
      if (c.status) assert.equal(response.status, c.status, JSON.stringify(response.body));
      const error = response.body?.error;
      assert.equal(typeof error?.code, 'string', JSON.stringify(response.body));
      assert.equal(typeof error.message, 'string');
      assert.ok('details' in error, 'the error carries details');
      if (c.code) assert.equal(error.code, c.code, JSON.stringify(response.body));
      assert.deepEqual(await storedCounts(), before);
    });
  }

  it('bad input corpus - loopback endpoints are refused where ENDPOINT_ALLOW_LOOPBACK is off, naming the place and why', async () => {
    const before = await storedCounts();
    const response = await request(
      'POST',
      `${system.baseUrl}/v1/agents`,
      {
        name: 'loopback',
        instances: [
          { instance_id: 'a', endpoint: 'http://127.0.0.1:4000/' },
          { instance_id: 'b', endpoint: 'http://[::1]:4000/' },
        ],
        capabilities: [{ name: 'echo' }],
      },
      { authorization: `Bearer ${context.adminKey}` },
    );
    assert.equal(response.status, 422);
    assert.equal(response.body.error.code, 'endpoint_not_allowed');
    assert.deepEqual(response.body.error.details, [
      { location: 'body.instances.0.endpoint', message: '127.0.0.1 is loopback (ENDPOINT_ALLOW_LOOPBACK is off)' },
      { location: 'body.instances.1.endpoint', message: '::1 is loopback (ENDPOINT_ALLOW_LOOPBACK is off)' },
    ]);
    assert.deepEqual(await storedCounts(), before);
  });
});
