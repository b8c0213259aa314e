/**
 * The WebSocket channel with two api replicas: the agent's socket is held by replica B, the message is sent
 * through replica A, and the delivery still reaches the socket (B's own task queue).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { MAX_FRAME_BYTES } from '../../api/ws/socket-hub';
import { eventually } from '../helpers/eventually';
import { registerAgent, request } from '../helpers/http';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type ApiReplica, type TestSystem } from '../helpers/system';

let servers: TestServers;
let system: TestSystem;
let replicaB: ApiReplica;

interface SocketAgent {
  socket: WebSocket;
  frames: Record<string, unknown>[];
  close(): void;
}

/** A WebSocket agent that answers every delivery with `answer(frame)` frames. */
async function connectAgent(
  baseUrl: string,
  agentId: string,
  secret: string,
  answer: (delivery: Record<string, unknown>) => Record<string, unknown>[],
): Promise<SocketAgent> {
  const socket = new WebSocket(`${baseUrl.replace('http', 'ws')}/v1/agents/${agentId}/ws?instance_id=ws1`, {
    headers: { authorization: `Bearer ${secret}` },
  });
  const frames: Record<string, unknown>[] = [];
  socket.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as Record<string, unknown>;
    frames.push(frame);
    if (frame.type === 'delivery') for (const reply of answer(frame)) socket.send(JSON.stringify(reply));
  });
  await eventually('the ready frame', async () => (frames.some((f) => f.type === 'ready') ? true : undefined));
  return { socket, frames, close: () => socket.close() };
}

before(async () => {
  servers = await startTestServers();
  system = await startSystem(servers);
  replicaB = await system.startReplica();
});

after(async () => {
  await system?.stop();
  await servers?.stop();
});

async function wsAgent() {
  return registerAgent(system.baseUrl, 'http://127.0.0.1:9/unused', {
    endpoint: undefined,
    instances: [{ instance_id: 'ws1', transport: 'websocket' }],
  });
}

async function processed(messageId: string) {
  return eventually(`message ${messageId} to end`, async () => {
    const response = await request('GET', `${system.baseUrl}/v1/messages/${messageId}`);
    return ['processed', 'failed'].includes(response.body?.state) ? response.body : undefined;
  });
}

describe('websocket', () => {
  it('websocket - a message sent through replica A reaches the socket held by replica B; receipt over the socket', async () => {
    const registered = await wsAgent();
    const agent = await connectAgent(replicaB.baseUrl, registered.agent_id, registered.secret, (d) => [
      { type: 'ack', message_id: d.message_id, attempt: d.attempt, status: 'accepted' },
      { type: 'receipt', message_id: d.message_id, status: 'processed', result: { via: 'socket' } },
    ]);
    try {
      const messageId = `ws-${Date.now()}`;
      const sent = await request('POST', `${system.baseUrl}/v1/messages`, {
        message_id: messageId,
        target: { agent_id: registered.agent_id, capability: 'echo' },
        payload: { hello: 'socket' },
      });
      assert.equal(sent.status, 202);
      const status = await processed(messageId);
      assert.equal(status.state, 'processed');
      assert.deepEqual(status.result, { via: 'socket' });
      assert.equal(status.attempts[0].outcome, 'accepted');
      const delivery = agent.frames.find((f) => f.type === 'delivery')!;
      assert.deepEqual(delivery.payload, { hello: 'socket' });
      assert.equal(delivery.message_id, messageId);
      const receiptResult = await eventually('the receipt result', async () =>
        agent.frames.find((f) => f.type === 'receipt_result'),
      );
      assert.equal(receiptResult.kind, 'recorded');
    } finally {
      agent.close();
    }
  });

  it('websocket - an inline processed ack ends the message; the connection counts as a heartbeat', async () => {
    const registered = await wsAgent();
    const agent = await connectAgent(replicaB.baseUrl, registered.agent_id, registered.secret, (d) => [
      { type: 'ack', message_id: d.message_id, attempt: d.attempt, status: 'processed', result: 42 },
    ]);
    try {
      const read = await request('GET', `${system.baseUrl}/v1/agents/${registered.agent_id}`);
      assert.equal(read.body.instances[0].online, true);
      const stored = await system.catalogue.models.instances.findById(`${registered.agent_id}/ws1`).lean();
      assert.match(String(stored?.ws_task_queue), /-ws-/);
      const messageId = `ws-inline-${Date.now()}`;
      await request('POST', `${system.baseUrl}/v1/messages`, {
        message_id: messageId,
        target: { agent_id: registered.agent_id, capability: 'echo' },
      });
      const status = await processed(messageId);
      assert.equal(status.result, 42);
    } finally {
      agent.close();
    }
  });

  it('websocket - multi-turn: an input_required ack makes the message wait; the reply comes as turn 2 with its own delivery key and the history; its receipt names the turn', async () => {
    const registered = await wsAgent();
    const agent = await connectAgent(replicaB.baseUrl, registered.agent_id, registered.secret, (d) =>
      d.turn === 1
        ? [
            {
              type: 'ack',
              message_id: d.message_id,
              attempt: d.attempt,
              status: 'input_required',
              input: { message: 'Which order?' },
            },
          ]
        : [
            { type: 'ack', message_id: d.message_id, attempt: d.attempt, status: 'accepted' },
            {
              type: 'receipt',
              message_id: d.message_id,
              turn: 1,
              status: 'processed',
              result: 'a late repeat of turn 1: not applied',
            },
            {
              type: 'receipt',
              message_id: d.message_id,
              turn: d.turn,
              status: 'processed',
              result: { order: (d.params as { order_id: number }).order_id },
            },
          ],
    );
    try {
      const messageId = `ws-turns-${Date.now()}`;
      await request('POST', `${system.baseUrl}/v1/messages`, {
        message_id: messageId,
        target: { agent_id: registered.agent_id, capability: 'echo' },
        intent: 'refund',
      });
      const waiting = await eventually('the message to wait for input', async () => {
        const response = await request('GET', `${system.baseUrl}/v1/messages/${messageId}`);
        return response.body?.state === 'input_required' ? response.body : undefined;
      });
      assert.equal(waiting.input_required.message, 'Which order?');
      assert.equal(
        (await request('POST', `${system.baseUrl}/v1/messages/${messageId}/reply`, { params: { order_id: 9 } })).status,
        202,
      );
      const status = await processed(messageId);
      assert.deepEqual(status.result, { order: 9 }, 'the receipt of turn 2, not the late one of turn 1');
      const deliveries = agent.frames.filter((f) => f.type === 'delivery');
      assert.deepEqual(
        deliveries.map((f) => [f.turn, f.delivery_key]),
        [
          [1, messageId],
          [2, `${messageId}:turn-2`],
        ],
      );
      assert.deepEqual(
        (deliveries[1]!.history as { role: string }[]).map((t) => t.role),
        ['caller', 'agent', 'caller'],
      );
    } finally {
      agent.close();
    }
  });

  it('websocket - a wrong secret or a malformed instance id is refused at the upgrade', async () => {
    const registered = await wsAgent();
    const attempt = (path: string, secret: string) =>
      new Promise<number>((resolve) => {
        const socket = new WebSocket(`${replicaB.baseUrl.replace('http', 'ws')}${path}`, {
          headers: { authorization: `Bearer ${secret}` },
        });
        socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        socket.on('open', () => {
          socket.close();
          resolve(101);
        });
        socket.on('error', () => undefined);
      });
    assert.equal(await attempt(`/v1/agents/${registered.agent_id}/ws?instance_id=ws1`, 'ars_wrong'), 401);
    assert.equal(await attempt(`/v1/agents/${registered.agent_id}/ws?instance_id=bad%20id`, registered.secret), 400);
    assert.equal(await attempt('/v1/agents/agt_000000000000000000000000/ws?instance_id=ws1', registered.secret), 404);
  });

  it('websocket - with the socket gone the delivery is retried, and goes out once the agent reconnects', async () => {
    const registered = await wsAgent();
    const first = await connectAgent(replicaB.baseUrl, registered.agent_id, registered.secret, () => []);
    first.close();
    await eventually('the socket to close', async () =>
      first.socket.readyState === WebSocket.CLOSED ? true : undefined,
    );
    const messageId = `ws-reconnect-${Date.now()}`;
    await request('POST', `${system.baseUrl}/v1/messages`, {
      message_id: messageId,
      target: { agent_id: registered.agent_id, capability: 'echo' },
    });
    await eventually('a failed attempt', async () => {
      const status = await request('GET', `${system.baseUrl}/v1/messages/${messageId}`);
      return status.body.attempts.some((a: { outcome: string }) => a.outcome === 'transient_error') ? true : undefined;
    });
    const second = await connectAgent(system.baseUrl, registered.agent_id, registered.secret, (d) => [
      { type: 'ack', message_id: d.message_id, attempt: d.attempt, status: 'processed', result: 'back' },
    ]);
    try {
      const status = await processed(messageId);
      assert.equal(status.state, 'processed');
      assert.equal(status.result, 'back');
    } finally {
      second.close();
    }
  });

  it('websocket - invalid UTF-8 and oversized frames close only their own sockets; the api and other agents go on', async () => {
    const hostile = await wsAgent();
    const other = await wsAgent();
    const agent = await connectAgent(replicaB.baseUrl, other.agent_id, other.secret, (d) => [
      { type: 'ack', message_id: d.message_id, attempt: d.attempt, status: 'processed', result: 'still here' },
    ]);
    try {
      for (const frame of [Buffer.from([0x7b, 0xc3, 0x28, 0x7d]), Buffer.alloc(MAX_FRAME_BYTES + 1, 0x20)]) {
        const socket = new WebSocket(
          `${replicaB.baseUrl.replace('http', 'ws')}/v1/agents/${hostile.agent_id}/ws?instance_id=ws1`,
          {
            headers: { authorization: `Bearer ${hostile.secret}` },
          },
        );
        socket.on('error', () => undefined);
        const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
        await new Promise((resolve) => socket.once('message', resolve)); // the ready frame
        socket.send(frame, { binary: false });
        assert.equal(await closed, frame.length > MAX_FRAME_BYTES ? 1009 : 1007);
        const health = await request('GET', `${replicaB.baseUrl}/readyz`);
        assert.equal(health.status, 200);
      }
      const messageId = `ws-after-hostile-${Date.now()}`;
      await request('POST', `${system.baseUrl}/v1/messages`, {
        message_id: messageId,
        target: { agent_id: other.agent_id, capability: 'echo' },
      });
      const status = await processed(messageId);
      assert.equal(status.result, 'still here');
    } finally {
      agent.close();
    }
  });
});
