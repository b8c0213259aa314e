/**
 * `GET /v1/chains` against a real Temporal dev server and FerretDB, with the real worker and api in process: the
 * tenant's chains with their states, the state filter, cursor pages, refused queries, and another tenant's chains
 * out of sight (docs/chains.md, "List").
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../helpers/eventually';
import type { Behaviour } from '../helpers/fake-agent';
import { registerAgent, request } from '../helpers/http';
import type { TestSystem } from '../helpers/system';
import { startSystemWithAgent, type SystemWithAgent } from '../helpers/system-with-agent';
import { chainListQuery } from '../../chains/list';
import { pageTokenOf } from '../../util/page-token';

let world: SystemWithAgent | undefined;
let system: TestSystem;
let agentId: string;
const run = `list-${Date.now()}`;
const ids = {
  completed: `${run}-completed`,
  failed: `${run}-failed`,
  running: `${run}-running`,
  other: `${run}-other`,
};
let otherKey: string;

/** `fail` fails, `hold` never answers, anything else is processed. */
const behaviour: Behaviour = (d) => {
  if (d.body.capability === 'hold') return { status: 202 };
  if (d.body.capability === 'fail') return { status: 202, receipt: { status: 'failed', error: { message: 'no' } } };
  return { status: 202, receipt: { status: 'processed', result: { secret_answer: d.body.message_id } } };
};

type Listed = {
  chain_id: string;
  tenant: string;
  state: string;
  steps: { result?: unknown; message_id: string }[];
  links: { self: string };
};

async function list(query: string, key?: string) {
  return request(
    'GET',
    `${system.baseUrl}/v1/chains${query}`,
    undefined,
    key ? { authorization: `Bearer ${key}` } : {},
  );
}

/** Every chain of the tenant in `state` (all pages of `limit`), with the number of pages read. */
async function listAll(query: string, key?: string): Promise<{ items: Listed[]; pages: number }> {
  const items: Listed[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const response = await list(`${query}${cursor ? `&cursor=${cursor}` : ''}`, key);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    items.push(...response.body.items);
    cursor = response.body.next_cursor;
    pages += 1;
  } while (cursor && pages < 50);
  return { items, pages };
}

before(async () => {
  world = await startSystemWithAgent({
    behaviour,
    registration: {
      capabilities: ['work', 'fail', 'hold'].map((name) => ({ name, description: `${name} capability` })),
    },
  });
  ({ system, agentId } = world);
  const step = (id: string, capability: string, extra: object = {}) => ({
    id,
    target: { agent_id: agentId, capability },
    ...extra,
  });
  const bodies = [
    { chain_id: ids.completed, steps: [step('a', 'work'), step('b', 'work')] },
    { chain_id: ids.failed, steps: [step('a', 'work'), step('b', 'fail')] },
    { chain_id: ids.running, steps: [step('a', 'hold')] },
  ];
  for (const body of bodies) assert.equal((await request('POST', `${system.baseUrl}/v1/chains`, body)).status, 202);
  // Another tenant's chain, to its own agent (on the same fake agent, held).
  otherKey = (await system.keys.create('other', { scopes: ['read', 'send', 'register'] }, 'chain-list')).key;
  const other = await registerAgent(
    system.baseUrl,
    world.agent.url,
    { capabilities: [{ name: 'hold', description: 'held' }] },
    { authorization: `Bearer ${otherKey}` },
  );
  const started = await request(
    'POST',
    `${system.baseUrl}/v1/chains`,
    { chain_id: ids.other, steps: [{ id: 'a', target: { agent_id: other.agent_id, capability: 'hold' } }] },
    { authorization: `Bearer ${otherKey}` },
  );
  assert.equal(started.status, 202, JSON.stringify(started.body));
  for (const id of [ids.completed, ids.failed]) {
    await eventually(
      `chain ${id} to end`,
      async () => {
        const state = (await request('GET', `${system.baseUrl}/v1/chains/${id}`)).body?.state;
        return ['completed', 'failed'].includes(state) ? true : undefined;
      },
      { timeoutMs: 60_000 },
    );
  }
});

after(() => world?.stop());

describe('chain list', () => {
  it("chain list - lists the tenant's chains with their states, without what the agents answered", async () => {
    // Visibility is eventually consistent: the ended chains show once it has their close.
    const { items } = await eventually('the ended chains listed', async () => {
      const all = await listAll('?limit=50');
      const states = new Map(all.items.map((c) => [c.chain_id, c.state]));
      return states.get(ids.completed) === 'completed' && states.get(ids.failed) === 'failed' ? all : undefined;
    });
    const ours = new Map(items.map((c) => [c.chain_id, c]));
    assert.equal(ours.get(ids.running)?.state, 'running');
    assert.equal(ours.has(ids.other), false, "another tenant's chain is not listed");
    assert.ok(items.every((c) => c.tenant === 'default'));
    const completed = ours.get(ids.completed)!;
    assert.deepEqual(
      completed.steps.map((s) => s.message_id),
      [`${ids.completed}:a`, `${ids.completed}:b`],
    );
    assert.ok(
      completed.steps.every((s) => !('result' in s)),
      'no step result in a list',
    );
    assert.ok(completed.links.self.endsWith(`/v1/chains/${ids.completed}`));
    // Each chain once, running first.
    assert.equal(new Set(items.map((c) => c.chain_id)).size, items.length);
    assert.ok(
      items.findIndex((c) => c.chain_id === ids.running) < items.findIndex((c) => c.chain_id === ids.completed),
    );
  });

  it('chain list - the state filter shows only chains in that state', async () => {
    for (const [state, id] of [
      ['failed', ids.failed],
      ['completed', ids.completed],
      ['running', ids.running],
    ] as const) {
      const { items } = await listAll(`?state=${state}&limit=50`);
      assert.ok(
        items.some((c) => c.chain_id === id),
        `${id} listed as ${state}`,
      );
      assert.ok(
        items.every((c) => c.state === state),
        `only ${state}: ${JSON.stringify(items.map((c) => c.state))}`,
      );
    }
    assert.deepEqual((await listAll('?state=compensated')).items, []);
  });

  it('chain list - pages of limit follow next_cursor to the end, each chain once', async () => {
    const whole = (await listAll('?limit=50')).items.map((c) => c.chain_id);
    const paged = await listAll('?limit=1');
    assert.deepEqual(
      paged.items.map((c) => c.chain_id),
      whole,
    );
    assert.ok(paged.pages >= 3, `${paged.pages} pages`);
    const first = await list('?limit=1');
    assert.equal(first.body.items.length, 1);
    assert.equal(typeof first.body.next_cursor, 'string');
  });

  it('chain list - bad queries are refused with the error shape: a malformed one 400, a cursor this list never gave (or gave for another state) 422', async () => {
    const cursor = (await list('?limit=1')).body.next_cursor as string;
    const forged = Buffer.from(JSON.stringify({ q: 'x', c: 'AAAA' })).toString('base64url');
    // Tokens of the right query with a made-up cursor, unsigned or signed with another key: refused before Temporal
    // (which answers a cursor it cannot read with UNKNOWN after ~19 s of the client's retries).
    const madeUp = new TextEncoder().encode('not a temporal cursor');
    const unsigned = pageTokenOf(madeUp, chainListQuery('default'));
    const otherKey = pageTokenOf(madeUp, chainListQuery('default'), 'not-the-gateways-key');
    const refusals: [string, number, string][] = [
      ...[
        '?cursor=not%20a%20cursor',
        `?cursor=${'A'.repeat(4097)}`,
        '?limit=0',
        '?limit=101',
        '?limit=ten',
        '?state=done',
        '?tenant=other',
      ].map((q): [string, number, string] => [q, 400, 'invalid_request']),
      ...[
        `?cursor=${forged}`,
        `?cursor=${unsigned}`,
        `?cursor=${otherKey}`,
        '?cursor=0',
        `?state=failed&cursor=${cursor}`,
      ].map((q): [string, number, string] => [q, 422, 'invalid_cursor']),
    ];
    for (const [query, status, code] of refusals) {
      const response = await list(query);
      assert.equal(response.status, status, `${query.slice(0, 80)}: ${JSON.stringify(response.body)}`);
      assert.equal(response.body.error.code, code, query);
      assert.equal(typeof response.body.error.message, 'string');
      assert.ok(response.body.error.details !== undefined, query);
    }
  });

  it("chain list - another tenant's key lists its own chains only; a key without read is refused", async () => {
    const { items } = await listAll('?limit=50', otherKey);
    assert.deepEqual(
      items.map((c) => c.chain_id),
      [ids.other],
    );
    assert.equal(items[0]!.tenant, 'other');
    const sendOnly = (await system.keys.create('default', { scopes: ['send'] }, 'chain-list')).key;
    const refused = await list('', sendOnly);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'insufficient_scope');
  });
});
