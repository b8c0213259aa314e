/**
 * An outage of the catalogue's database (FerretDB stopped, then started again on the same data) with messages in
 * flight, on the real system: receipts keep being taken, a message whose instance looks offline meanwhile waits
 * without spending its tries, and once the database is back every message ends processed, delivered once.
 * The outage here lasts longer than everything that used to bound it (the lookup activity's own retries, two
 * heartbeat lifetimes, the message's attempts): the clock is short, the semantics are not.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../helpers/eventually';
import { acceptAndConfirm, startFakeAgent, type FakeAgent } from '../helpers/fake-agent';
import { registerAgent, request } from '../helpers/http';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

let servers: TestServers;
let system: TestSystem;
let agent: FakeAgent;
let agentId = '';
const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  request(method, `${system.baseUrl}${path}`, body, headers);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

before(async () => {
  servers = await startTestServers();
  system = await startSystem(servers, {
    HEARTBEAT_TTL_MS: '3000',
    HEARTBEAT_WRITE_EVERY_MS: '1000',
    SWEEP_INTERVAL_MS: '1000',
    DELIVERY_MAX_ATTEMPTS: '2',
  });
  agent = await startFakeAgent(acceptAndConfirm);
  const registered = await registerAgent(system.baseUrl, agent.url);
  agent.secret = registered.secret;
  agentId = registered.agent_id;
});

after(async () => {
  await agent?.stop();
  await system?.stop();
  await servers?.stop();
});

async function send(id: string) {
  const sent = await api('POST', '/v1/messages', { message_id: id, target: { agent_id: agentId, capability: 'echo' } });
  assert.equal(sent.status, 202, JSON.stringify(sent.body));
}

async function stateOf(id: string): Promise<string | undefined> {
  const status = await api('GET', `/v1/messages/${id}`);
  return status.body?.state;
}

describe('database outage', () => {
  it('database outage - messages in flight through a database outage longer than every retry budget end processed, each delivered once', async () => {
    const heartbeat = () =>
      api(
        'POST',
        `/v1/agents/${agentId}/heartbeat`,
        { instance_id: 'i1' },
        { authorization: `Bearer ${agent.secret}` },
      );
    assert.equal((await heartbeat()).status, 200);
    await send('before-outage');
    await eventually('the first message processed (its agent now known to the receipt path)', async () =>
      (await stateOf('before-outage')) === 'processed' ? true : undefined,
    );

    // The api checks a named capability in its catalogue copy, which holds the agent once refreshed after its
    // registration (CATALOGUE_REFRESH_MS); until then it reads the database. The outage starts after that.
    await system.catalogue.index.refresh();
    await servers.stopDatabase();
    await send('during-outage-online');
    await sleep(5_000); // the instance's last heartbeat is now older than its lifetime: it looks offline
    await send('during-outage-offline');
    await sleep(20_000); // far past the lookup activity's own four tries and the message's two attempts
    assert.equal(
      (await stateOf('during-outage-offline'))?.match(/processed|failed|rejected|expired/),
      null,
      'still waiting, not ended',
    );

    await servers.startDatabase();
    await eventually('a heartbeat taken again', async () => ((await heartbeat()).status === 200 ? true : undefined), {
      timeoutMs: 60_000,
    });
    for (const id of ['before-outage', 'during-outage-online', 'during-outage-offline']) {
      await eventually(`${id} processed`, async () => ((await stateOf(id)) === 'processed' ? true : undefined), {
        timeoutMs: 60_000,
      });
      assert.equal(agent.deliveries.filter((d) => d.body.message_id === id).length, 1, `${id} delivered once`);
    }
    assert.ok(
      agent.receiptAnswers.every((answer) => answer.status === 200),
      JSON.stringify(agent.receiptAnswers),
    );
  });
});
