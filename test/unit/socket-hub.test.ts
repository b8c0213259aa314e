/**
 * The WebSocket hub against hostile or broken clients, with the catalogue and the message service faked: one bad
 * socket is closed and nothing else is; a socket that stops answering pings is terminated.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, it } from 'node:test';
import pino from 'pino';
import WebSocket from 'ws';
import { MAX_FRAME_BYTES, SocketHub } from '../../api/ws/socket-hub';
import { eventually } from '../helpers/eventually';

const AGENT_ID = 'agt_000000000000000000000001';

interface Rig {
  hub: SocketHub;
  server: Server;
  url: string;
  beats: string[];
}

let rig: Rig | undefined;

afterEach(async () => {
  rig?.hub.close();
  rig?.server.closeAllConnections();
  await new Promise((resolve) => rig?.server.close(resolve));
  rig = undefined;
});

async function startHub(options: { pingIntervalMs?: number; receipt?: () => Promise<unknown> } = {}): Promise<Rig> {
  const beats: string[] = [];
  const catalogue = {
    policy: { intervalMs: 60_000 },
    store: { authenticate: async () => ({ kind: 'ok', agent: { _id: AGENT_ID, tenant: 'default' } }) },
    heartbeats: { beat: async (_agent: unknown, beat: { instance_id: string }) => void beats.push(beat.instance_id) },
  };
  const messages = { receipt: options.receipt ?? (async () => ({ kind: 'recorded' })) };
  const hub = new SocketHub({
    catalogue: catalogue as never,
    messages: messages as never,
    taskQueue: 'test-ws',
    logger: pino({ level: 'silent' }),
    ...(options.pingIntervalMs ? { pingIntervalMs: options.pingIntervalMs } : {}),
  });
  const server = createServer((_req, res) => res.end('ok'));
  hub.attach(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  rig = { hub, server, url: `127.0.0.1:${port}`, beats };
  return rig;
}

interface Client {
  socket: WebSocket;
  frames: Record<string, unknown>[];
  closed: Promise<number>;
}

async function connect(r: Rig, instanceId: string, options: { autoPong?: boolean } = {}): Promise<Client> {
  const socket = new WebSocket(`ws://${r.url}/v1/agents/${AGENT_ID}/ws?instance_id=${instanceId}`, {
    headers: { authorization: 'Bearer ars_secret' },
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
    client.socket.send(JSON.stringify({ type: 'ack', message_id: frame.message_id, attempt: frame.attempt, status: 'processed', result: 'ok' }));
  });
  return r.hub.send(AGENT_ID, instanceId, { message_id: `m-${instanceId}`, attempt: 1 }, 10_000);
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
    assert.deepEqual(await deliverTo(r, good, 'good'), { ack: { type: 'ack', message_id: 'm-good', attempt: 1, status: 'processed', result: 'ok' } });
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
    assert.deepEqual(errors.map((f) => f.code), ['invalid_frame', 'invalid_json', 'invalid_frame', 'invalid_frame']);
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
});
