/** The agent SDK against the real gateway: HTTP and WebSocket modes, signatures, de-duplication, drain. */
import assert from 'node:assert/strict';
import express from 'express';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { MisroutedError, ReachAgent, type Handler } from '../../sdk';
import { freePort } from '../../supervisor/dev-servers';
import { eventually } from '../helpers/eventually';
import { request, TEST_API_KEY } from '../helpers/http';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

let servers: TestServers;
let system: TestSystem;
const stops: (() => Promise<void> | void)[] = [];
let n = 0;

before(async () => {
  servers = await startTestServers();
  system = await startSystem(servers);
});

after(async () => {
  for (const stop of stops) await stop();
  await system?.stop();
  await servers?.stop();
});

async function httpAgent(handler: Handler, inlineMs = 2_000) {
  const port = await freePort();
  const agent = new ReachAgent({
    gateway: system.baseUrl,
    apiKey: TEST_API_KEY,
    endpoint: `http://127.0.0.1:${port}/`,
    inlineMs,
    card: { name: `sdk-${Date.now()}-${++n}`, capabilities: [{ name: 'work' }] },
  });
  await agent.register();
  const server: Server = createServer(agent.httpHandler(handler));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  stops.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { agent, url: `http://127.0.0.1:${port}/` };
}

async function sendAndWait(agentId: string, payload: unknown) {
  const messageId = `sdk-${Date.now()}-${++n}`;
  await request('POST', `${system.baseUrl}/v1/messages`, {
    message_id: messageId,
    target: { agent_id: agentId, capability: 'work' },
    payload,
  });
  return eventually('the message to end', async () => {
    const response = await request('GET', `${system.baseUrl}/v1/messages/${messageId}`);
    return ['processed', 'failed'].includes(response.body.state) ? response.body : undefined;
  });
}

describe('sdk', () => {
  it('sdk - quick handlers answer inline; slow ones answer 202 and send the receipt', async () => {
    const quick = await httpAgent((d) => ({ doubled: (d.payload as { n: number }).n * 2 }));
    const quickStatus = await sendAndWait(quick.agent.identity!.agent_id, { n: 21 });
    assert.equal(quickStatus.state, 'processed');
    assert.deepEqual(quickStatus.result, { doubled: 42 });
    assert.equal(quickStatus.attempts[0].outcome, 'processed');

    const slow = await httpAgent(async () => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      return 'slow result';
    }, 20);
    const slowStatus = await sendAndWait(slow.agent.identity!.agent_id, {});
    assert.equal(slowStatus.result, 'slow result');
    assert.equal(slowStatus.attempts[0].outcome, 'accepted');
  });

  it('sdk - a thrown error becomes a failed receipt', async () => {
    const failing = await httpAgent(() => {
      throw Object.assign(new Error('card declined'), { code: 'declined' });
    });
    const status = await sendAndWait(failing.agent.identity!.agent_id, {});
    assert.equal(status.state, 'failed');
    assert.deepEqual(status.error, { message: 'card declined', code: 'declined' });
  });

  it('sdk - a MisroutedError answers misrouted inline: a message sent by name ends misrouted, and nothing is remembered', async () => {
    let runs = 0;
    const notMine = await httpAgent(() => {
      runs++;
      throw new MisroutedError('I only do refunds');
    });
    const status = await sendAndWait(notMine.agent.identity!.agent_id, {});
    assert.equal(status.state, 'failed');
    assert.equal(status.reason.code, 'misrouted');
    assert.deepEqual(status.misrouted, [`${notMine.agent.identity!.agent_id}/work`]);
    assert.deepEqual(
      status.attempts.map((a: { outcome: string }) => a.outcome),
      ['misrouted'],
    );
    assert.equal(runs, 1);
    // A misroute is no outcome of work: the store does not answer a redelivery of the id with it.
    assert.equal(notMine.agent['store'].get(status.message_id), undefined);
  });

  it('sdk - a slow MisroutedError is sent as a misrouted receipt', async () => {
    const slow = await httpAgent(async () => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      throw new MisroutedError();
    }, 20);
    const status = await sendAndWait(slow.agent.identity!.agent_id, {});
    assert.equal(status.reason.code, 'misrouted');
    assert.deepEqual(
      status.attempts.map((a: { outcome: string }) => a.outcome),
      ['accepted'],
    );
  });

  it('sdk - unsigned or tampered deliveries are refused; a repeat is answered from the store', async () => {
    let runs = 0;
    const { agent, url } = await httpAgent(() => ++runs);
    const forged = await fetch(url, {
      method: 'POST',
      body: JSON.stringify({ message_id: 'x' }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(forged.status, 401);
    const status = await sendAndWait(agent.identity!.agent_id, {});
    assert.equal(status.result, 1);
    // Replay the exact signed delivery: the handler does not run again.
    const { Webhook } = await import('standardwebhooks');
    const body = JSON.stringify({ message_id: status.message_id, attempt: 2, payload: {} });
    const now = new Date();
    const signature = new Webhook(agent.identity!.signing_secret).sign(status.message_id, now, body);
    const replay = await fetch(url, {
      method: 'POST',
      body,
      headers: {
        'webhook-id': status.message_id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signature,
      },
    });
    assert.equal(replay.status, 409);
    assert.deepEqual(await replay.json(), { status: 'duplicate', result: 1 });
    assert.equal(runs, 1);
  });

  it('sdk - a draining agent reports it and refuses new deliveries', async () => {
    const { agent } = await httpAgent(() => 'ok');
    await agent.drain(1_000);
    const read = await request('GET', `${system.baseUrl}/v1/agents/${agent.identity!.agent_id}`);
    assert.equal(read.body.instances[0].state, 'draining');
  });

  it('sdk - the handler works as an Express route (mounted before any body parser)', async () => {
    const port = await freePort();
    const agent = new ReachAgent({
      gateway: system.baseUrl,
      apiKey: TEST_API_KEY,
      endpoint: `http://127.0.0.1:${port}/deliveries`,
      card: { name: `sdk-express-${Date.now()}`, capabilities: [{ name: 'work' }] },
    });
    await agent.register();
    const app = express();
    app.post(
      '/deliveries',
      agent.httpHandler((d) => ({ express: d.payload })),
    );
    app.use(express.json());
    const server = app.listen(port, '127.0.0.1');
    stops.push(() => new Promise((resolve) => server.close(() => resolve())));
    const status = await sendAndWait(agent.identity!.agent_id, { ok: 1 });
    assert.deepEqual(status.result, { express: { ok: 1 } });
  });

  it('sdk - WebSocket mode delivers without any endpoint', async () => {
    const agent = new ReachAgent({
      gateway: system.baseUrl,
      apiKey: TEST_API_KEY,
      card: { name: `sdk-ws-${Date.now()}`, capabilities: [{ name: 'work' }] },
    });
    await agent.register();
    const socket = agent.connectWebSocket((d) => ({ echoed: d.payload }));
    stops.push(async () => {
      await agent.drain(1_000);
      socket.close();
    });
    await eventually('the socket to open', async () => (socket.readyState === socket.OPEN ? true : undefined));
    await eventually('the instance online', async () => {
      const read = await request('GET', `${system.baseUrl}/v1/agents/${agent.identity!.agent_id}`);
      return read.body.instances[0]?.online ? true : undefined;
    });
    const status = await sendAndWait(agent.identity!.agent_id, { via: 'ws' });
    assert.equal(status.state, 'processed');
    assert.deepEqual(status.result, { echoed: { via: 'ws' } });
  });
});
