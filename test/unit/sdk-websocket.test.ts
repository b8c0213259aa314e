/**
 * The SDK's WebSocket mode against a fake gateway that is down at first, sends junk, goes away and comes back:
 * the agent survives all of it, reconnects, and still answers deliveries.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { WebSocketServer, type WebSocket } from 'ws';
import { ReachAgent } from '../../sdk';
import { eventually } from '../helpers/eventually';

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** A fake gateway on `port` that records the agent's frames. */
async function fakeGateway(port: number) {
  const server = new WebSocketServer({ port, host: '127.0.0.1' });
  await once(server, 'listening');
  const frames: Record<string, unknown>[] = [];
  const sockets: WebSocket[] = [];
  server.on('connection', (socket) => {
    sockets.push(socket);
    socket.on('message', (data) => frames.push(JSON.parse(data.toString()) as Record<string, unknown>));
  });
  const connected = async () =>
    eventually('the agent to connect', async () => sockets.find((s) => s.readyState === s.OPEN));
  const stop = async () => {
    for (const socket of sockets) socket.terminate();
    await new Promise((resolve) => server.close(resolve));
  };
  return { frames, connected, stop };
}

function delivery(messageId: string) {
  return JSON.stringify({ type: 'delivery', message_id: messageId, attempt: 1, payload: {} });
}

describe('sdk websocket', () => {
  it('sdk websocket - survives a gateway that is down, junk frames and a gateway restart; reconnects and answers', async () => {
    const port = await freePort();
    const errors: Error[] = [];
    const agent = new ReachAgent({
      gateway: `http://127.0.0.1:${port}`,
      card: { name: 'ws-sdk', capabilities: [{ name: 'echo' }] },
      reconnect: { initialMs: 20, maxMs: 100 },
      onError: (error) => errors.push(error),
    });
    agent.identity = { agent_id: 'agt_000000000000000000000001', secret: 'ars_x', signing_secret: 'whsec_x' };
    agent.connectWebSocket((d) => ({ echoed: d.message_id }));
    await eventually('a refused connection to be reported', async () => (errors.length > 0 ? true : undefined));

    const first = await fakeGateway(port);
    const socket = await first.connected();
    socket.send('{not json');
    socket.send('null');
    socket.send(Buffer.from([0xff, 0x00]), { binary: true });
    socket.send(delivery('m1'));
    const ack = await eventually('the ack for m1', async () => first.frames.find((f) => f.message_id === 'm1'));
    assert.deepEqual(ack, { type: 'ack', message_id: 'm1', attempt: 1, status: 'processed', result: { echoed: 'm1' } });
    await first.stop();

    const second = await fakeGateway(port);
    (await second.connected()).send(delivery('m2'));
    const again = await eventually('the ack for m2', async () => second.frames.find((f) => f.message_id === 'm2'));
    assert.equal(again.status, 'processed');
    await agent.drain(1_000);
    await second.stop();
  });
});
