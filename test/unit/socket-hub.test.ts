/**
 * The WebSocket hub against hostile or broken clients, with the catalogue and the message service faked: one bad
 * socket is closed and nothing else is; a socket that stops answering pings is terminated.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, it } from 'node:test';
import pino from 'pino';
import WebSocket from 'ws';
import { ClientLimit } from '../../api/client-limit';
import { MAX_FRAME_BYTES, SocketHub } from '../../api/ws/socket-hub';
import { eventually } from '../helpers/eventually';

const AGENT_ID = 'agt_000000000000000000000001';

interface Rig {
  hub: SocketHub;
  server: Server;
  url: string;
  beats: string[];
  /** The secrets the hub checked, in order. */
  authentications: string[];
}

let rig: Rig | undefined;

afterEach(async () => {
  rig?.hub.close();
  rig?.server.closeAllConnections();
  await new Promise((resolve) => rig?.server.close(resolve));
  rig = undefined;
});

interface HubOptions {
  pingIntervalMs?: number;
  receipt?: () => Promise<unknown>;
  /** The per-address limit of failed upgrades. @default 1000 a second */
  clients?: ClientLimit;
  /** Instances the agent may have. @default unlimited */
  maxInstances?: number;
}

const SECRET = 'ars_secret';

async function startHub(options: HubOptions = {}): Promise<Rig> {
  const beats: string[] = [];
  const authentications: string[] = [];
  const catalogue = {
    policy: { intervalMs: 60_000 },
    store: {
      authenticate: async (agentId: string, secret: string) => {
        authentications.push(secret);
        if (agentId !== AGENT_ID) return { kind: 'unknown_agent' };
        return secret === SECRET
          ? { kind: 'ok', agent: { _id: AGENT_ID, tenant: 'default' } }
          : { kind: 'invalid_secret' };
      },
    },
    heartbeats: {
      beat: async (_agent: unknown, beat: { instance_id: string }) => {
        const known = beats.includes(beat.instance_id);
        if (!known && new Set(beats).size >= (options.maxInstances ?? Infinity))
          return { kind: 'too_many_instances', limit: options.maxInstances };
        beats.push(beat.instance_id);
        return { kind: 'ok' };
      },
    },
  };
  const messages = { receipt: options.receipt ?? (async () => ({ kind: 'recorded' })) };
  const hub = new SocketHub({
    catalogue: catalogue as never,
    messages: messages as never,
    taskQueue: 'test-ws',
    logger: pino({ level: 'silent' }),
    clients: options.clients ?? new ClientLimit({ perSecond: 1000, burst: 1000 }),
    ...(options.pingIntervalMs ? { pingIntervalMs: options.pingIntervalMs } : {}),
  });
  const server = createServer((_req, res) => res.end('ok'));
  hub.attach(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  rig = { hub, server, url: `127.0.0.1:${port}`, beats, authentications };
  return rig;
}

interface Client {
  socket: WebSocket;
  frames: Record<string, unknown>[];
  closed: Promise<number>;
}

async function connect(r: Rig, instanceId: string, options: { autoPong?: boolean } = {}): Promise<Client> {
  const socket = new WebSocket(`ws://${r.url}/v1/agents/${AGENT_ID}/ws?instance_id=${instanceId}`, {
    headers: { authorization: `Bearer ${SECRET}` },
    ...options,
  });
  socket.on('error', () => undefined);
  const frames: Record<string, unknown>[] = [];
  socket.on('message', (data) => frames.push(JSON.parse(data.toString()) as Record<string, unknown>));
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  await eventually('the ready frame', async () => (frames.some((f) => f.type === 'ready') ? true : undefined));
  return { socket, frames, closed };
}

/** A delivery through the hub to `instanceId`, answered by the client's ack. */
async function deliverTo(r: Rig, client: Client, instanceId: string) {
  client.socket.once('message', (data) => {
    const frame = JSON.parse(data.toString()) as { message_id: string; attempt: number };
    client.socket.send(
      JSON.stringify({
        type: 'ack',
        message_id: frame.message_id,
        attempt: frame.attempt,
        status: 'processed',
        result: 'ok',
      }),
    );
  });
  return r.hub.send(AGENT_ID, instanceId, { message_id: `m-${instanceId}`, attempt: 1 }, 10_000);
}

/** An upgrade the hub refuses: its HTTP status, headers and error body. */
async function refusedUpgrade(
  r: Rig,
  path: string,
  secret = SECRET,
): Promise<{
  status: number;
  retryAfter?: string;
  body: { error: { code: string; message: string; details?: Record<string, unknown> } };
}> {
  const socket = new WebSocket(`ws://${r.url}${path}`, { headers: { authorization: `Bearer ${secret}` } });
  socket.on('error', () => undefined);
  const [, response] = (await once(socket, 'unexpected-response')) as [unknown, IncomingMessage];
  let text = '';
  for await (const chunk of response) text += String(chunk);
  socket.terminate();
  return {
    status: response.statusCode!,
    ...(response.headers['retry-after'] ? { retryAfter: String(response.headers['retry-after']) } : {}),
    body: JSON.parse(text),
  };
}

async function httpAnswers(r: Rig): Promise<string> {
  return (await fetch(`http://${r.url}/health`)).text();
}

describe('socket hub', () => {
  it('socket hub - a text frame with invalid UTF-8 closes that socket with 1007, and only that one', async () => {
    const r = await startHub();
    const bad = await connect(r, 'bad');
    const good = await connect(r, 'good');
    bad.socket.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
    assert.equal(await bad.closed, 1007);
    assert.equal(await httpAnswers(r), 'ok');
    assert.deepEqual(await deliverTo(r, good, 'good'), {
      ack: { type: 'ack', message_id: 'm-good', attempt: 1, status: 'processed', result: 'ok' },
    });
    good.socket.close();
  });

  it('socket hub - a frame over the size limit closes that socket with 1009, and only that one', async () => {
    const r = await startHub();
    const bad = await connect(r, 'bad');
    const good = await connect(r, 'good');
    bad.socket.send('x'.repeat(MAX_FRAME_BYTES + 1));
    assert.equal(await bad.closed, 1009);
    assert.equal(await httpAnswers(r), 'ok');
    assert.ok('ack' in (await deliverTo(r, good, 'good')));
    good.socket.close();
  });

  it('socket hub - binary, malformed and non-object frames are answered with error frames; the socket stays open', async () => {
    const r = await startHub();
    const client = await connect(r, 'i1');
    client.socket.send(Buffer.from('{"type":"ack"}'), { binary: true });
    client.socket.send('{not json');
    client.socket.send('null');
    client.socket.send('{"type":"ack"}');
    const errors = await eventually('four error frames', async () => {
      const found = client.frames.filter((f) => f.type === 'error');
      return found.length === 4 ? found : undefined;
    });
    assert.deepEqual(
      errors.map((f) => f.code),
      ['invalid_frame', 'invalid_json', 'invalid_frame', 'invalid_frame'],
    );
    assert.equal(client.socket.readyState, WebSocket.OPEN);
    client.socket.close();
  });

  it('socket hub - a receipt the message service cannot take is answered with receipt_failed, not a crash', async () => {
    const r = await startHub({ receipt: async () => Promise.reject(new Error('temporal is down')) });
    const client = await connect(r, 'i1');
    client.socket.send(JSON.stringify({ type: 'receipt', message_id: 'm1', status: 'processed', result: 1 }));
    const error = await eventually('the error frame', async () => client.frames.find((f) => f.type === 'error'));
    assert.equal(error.code, 'receipt_failed');
    assert.equal(error.message_id, 'm1');
    assert.equal(client.socket.readyState, WebSocket.OPEN);
    client.socket.close();
  });

  it('socket hub - a socket that misses its pong is terminated; one that answers stays connected', async () => {
    const r = await startHub({ pingIntervalMs: 50 });
    const silent = await connect(r, 'silent', { autoPong: false });
    const alive = await connect(r, 'alive');
    assert.equal(await silent.closed, 1006); // terminated: no close handshake
    assert.deepEqual(await r.hub.send(AGENT_ID, 'silent', { message_id: 'm', attempt: 1 }, 1_000), {
      failure: 'the instance has no open socket on this replica',
    });
    assert.equal(alive.socket.readyState, WebSocket.OPEN);
    assert.ok('ack' in (await deliverTo(r, alive, 'alive')));
    alive.socket.close();
  });

  it("socket hub - failed upgrades spend the address's tokens; once spent, it is refused 429 before any secret is checked", async () => {
    let now = 0;
    const r = await startHub({ clients: new ClientLimit({ perSecond: 1, burst: 3 }, () => now) });
    const wrongAgent = await refusedUpgrade(r, '/v1/agents/agt_000000000000000000000009/ws?instance_id=i1');
    assert.deepEqual([wrongAgent.status, wrongAgent.body.error.code], [404, 'agent_not_found']);
    const malformed = await refusedUpgrade(r, `/v1/agents/${AGENT_ID}/ws?instance_id=${'x'.repeat(65)}`);
    assert.deepEqual([malformed.status, malformed.body.error.code], [400, 'invalid_request']);
    const wrongSecret = await refusedUpgrade(r, `/v1/agents/${AGENT_ID}/ws?instance_id=i1`, 'ars_guess');
    assert.deepEqual([wrongSecret.status, wrongSecret.body.error.code], [401, 'invalid_secret']);
    const checked = r.authentications.length;
    const limited = await refusedUpgrade(r, `/v1/agents/${AGENT_ID}/ws?instance_id=i1`, 'ars_guess2');
    assert.equal(limited.status, 429);
    assert.equal(limited.retryAfter, '1');
    assert.deepEqual(limited.body.error, {
      code: 'rate_limited',
      message: 'Too many failed connections from this address; retry in 1 s',
      details: { retry_after_seconds: 1 },
    });
    assert.equal(r.authentications.length, checked, 'refused before the secret was checked');
    assert.equal(
      (await refusedUpgrade(r, `/v1/agents/${AGENT_ID}/ws?instance_id=i1`)).status,
      429,
      'even with the right secret, until a token is back',
    );
    now += 1000;
    const client = await connect(r, 'i1');
    assert.equal(client.socket.readyState, WebSocket.OPEN, 'a token back: the right secret connects');
    client.socket.close();
  });

  it('socket hub - a connection that succeeds spends no token', async () => {
    const r = await startHub({ clients: new ClientLimit({ perSecond: 0.001, burst: 1 }) });
    for (let i = 0; i < 3; i++) (await connect(r, `ok${i}`)).socket.close();
    assert.equal((await refusedUpgrade(r, `/v1/agents/${AGENT_ID}/ws?instance_id=x`, 'ars_guess')).status, 401);
    assert.equal((await refusedUpgrade(r, `/v1/agents/${AGENT_ID}/ws?instance_id=x`, 'ars_guess')).status, 429);
  });

  it("socket hub - an instance past its agent's limit is refused 422 too_many_instances before the upgrade", async () => {
    const r = await startHub({ maxInstances: 1 });
    const first = await connect(r, 'first');
    const refused = await refusedUpgrade(r, `/v1/agents/${AGENT_ID}/ws?instance_id=second`);
    assert.equal(refused.status, 422);
    assert.equal(refused.body.error.code, 'too_many_instances');
    assert.equal(refused.body.error.details?.limit, 1);
    const again = await connect(r, 'first');
    assert.equal(again.socket.readyState, WebSocket.OPEN, 'a known instance reconnects');
    first.socket.close();
    again.socket.close();
  });
});
