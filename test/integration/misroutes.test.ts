/**
 * Misroute reports (store/misroutes.ts) on a real FerretDB, and `/v1/router/misroutes` through the live api: a
 * report per message counts once, enough reports apply a lesson by itself, an operator applies or dismisses one,
 * the store keeps its bound, and bad input gets a 4xx.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MisrouteStore } from '../../store/misroutes';
import { request } from '../helpers/http';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

let servers: TestServers;
let system: TestSystem;

before(async () => {
  servers = await startTestServers();
  system = await startSystem(servers, { ROUTER_PROVIDER: 'lexical' });
});

after(async () => {
  await system?.stop();
  await servers?.stop();
});

describe('misroute store', () => {
  it('misroutes - the same message reported twice counts once; a second message applies the lesson (applyAfter 2)', async () => {
    const store = new MisrouteStore(system.mongo, { applyAfter: 2, maxPerTenant: 100 });
    const first = await store.report('t1', 'w/forecast', '  book a flight  ', 'm1');
    assert.equal(first.reports, 1);
    assert.equal(first.text, 'book a flight');
    assert.equal(first.state, 'pending');
    assert.equal((await store.report('t1', 'w/forecast', 'book a flight', 'm1')).reports, 1);
    const second = await store.report('t1', 'w/forecast', 'book a flight', 'm2');
    assert.equal(second.state, 'applied');
    assert.equal(second.decided_by, 'auto');
    assert.deepEqual([...(await store.applied('t1'))], [['w/forecast', ['book a flight']]]);
    // Another tenant sees nothing of it.
    assert.equal((await store.applied('t2')).size, 0);
    assert.equal((await store.list('t2')).length, 0);
  });

  it('misroutes - a dismissed report stays dismissed however often it comes back; applyAfter 0 never applies by itself', async () => {
    const store = new MisrouteStore(system.mongo, { applyAfter: 0, maxPerTenant: 100 });
    const doc = await store.report('t3', 'a/b', 'hello', 'm1');
    for (const id of ['m2', 'm3', 'm4']) assert.equal((await store.report('t3', 'a/b', 'hello', id)).state, 'pending');
    await store.decide('t3', doc._id, 'dismissed', 'key:abc');
    const again = await store.report('t3', 'a/b', 'hello', 'm5');
    assert.equal(again.state, 'dismissed');
    assert.equal(again.reports, 5);
    assert.equal(await store.decide('other-tenant', doc._id, 'applied', 'key:abc'), undefined);
  });

  it('misroutes - past the bound the least recently reported pending reports go, then the oldest lessons', async () => {
    const store = new MisrouteStore(system.mongo, { applyAfter: 0, maxPerTenant: 3 });
    await store.teach('t4', 'a/b', 'lesson 0', 'key:k');
    for (let i = 1; i < 5; i++) await store.report('t4', 'a/b', `request ${i}`, `m${i}`);
    assert.deepEqual((await store.list('t4')).map((d) => d.text).sort(), ['lesson 0', 'request 3', 'request 4']);
    for (let i = 1; i < 4; i++) await store.teach('t4', 'a/b', `lesson ${i}`, 'key:k');
    assert.deepEqual((await store.list('t4')).map((d) => d.text).sort(), ['lesson 1', 'lesson 2', 'lesson 3']);
  });
});

describe('misroutes api', () => {
  it("misroutes api - lists the tenant's reports; an admin applies or dismisses one; unknown or malformed ids are 4xx", async () => {
    const store = new MisrouteStore(system.mongo);
    const doc = await store.report('default', 'agt/forecast', 'book a flight to Tokyo', 'msg-1');
    const list = await request('GET', `${system.baseUrl}/v1/router/misroutes?state=pending`);
    assert.equal(list.status, 200);
    const item = list.body.items.find((i: { misroute_id: string }) => i.misroute_id === doc._id);
    assert.equal(item.capability, 'agt/forecast');
    assert.equal(item.reports, 1);
    assert.deepEqual(item.message_ids, ['msg-1']);
    assert.equal(item.tenant, undefined);
    const reader = (await system.keys.create('default', { scopes: ['read', 'send'] }, 'misroutes-reader')).key;
    const forbidden = await request(
      'POST',
      `${system.baseUrl}/v1/router/misroutes/${doc._id}`,
      { state: 'applied' },
      { authorization: `Bearer ${reader}` },
    );
    assert.equal(forbidden.status, 403);
    assert.equal(
      (await request('GET', `${system.baseUrl}/v1/router/misroutes`, undefined, { authorization: `Bearer ${reader}` }))
        .status,
      200,
    );
    const applied = await request('POST', `${system.baseUrl}/v1/router/misroutes/${doc._id}`, { state: 'applied' });
    assert.equal(applied.status, 200);
    assert.equal(applied.body.state, 'applied');
    assert.match(applied.body.decided_by, /^key:/);
    assert.equal((await request('GET', `${system.baseUrl}/v1/router/misroutes?state=applied`)).body.items.length, 1);
    const missing = await request('POST', `${system.baseUrl}/v1/router/misroutes/${'A'.repeat(32)}`, {
      state: 'applied',
    });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'misroute_not_found');
    assert.equal(
      (await request('POST', `${system.baseUrl}/v1/router/misroutes/short`, { state: 'applied' })).status,
      400,
    );
    assert.equal(
      (await request('POST', `${system.baseUrl}/v1/router/misroutes/${doc._id}`, { state: 'maybe' })).status,
      400,
    );
    assert.equal((await request('GET', `${system.baseUrl}/v1/router/misroutes?limit=0`)).status, 400);
  });
});
