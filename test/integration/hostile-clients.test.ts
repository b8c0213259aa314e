/**
 * Hostile clients against one api replica, all at once: WebSocket frames with invalid UTF-8, over the size limit,
 * binary, malformed and not objects, a half-open socket that never answers pings, and floods of bad HTTP bodies
 * (malformed, oversized, an unsupported charset, invalid UTF-8, cut short, not HTTP at all). Throughout, health
 * answers 200, and afterwards another agent's delivery goes on over its own socket.
 */
import assert from 'node:assert/strict';
import { connect as tcpConnect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { MAX_FRAME_BYTES } from '../../api/ws/socket-hub';
import { eventually } from '../helpers/eventually';
import { registerAgent, request } from '../helpers/http';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

let servers: TestServers;
let system: TestSystem;

before(async () => {
  servers = await startTestServers();
  system = await startSystem(servers, { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' });
});

after(async () => {
  await system?.stop();
  await servers?.stop();
});

async function wsAgent(name: string) {
  return registerAgent(system.baseUrl, 'http://127.0.0.1:9/unused', {
    name,
    endpoint: undefined,
    instances: [{ instance_id: 'ws1', transport: 'websocket' }],
  });
}

/** An open socket of `agent`, past its ready frame; `autoPong: false` makes it half-open (it never answers a ping). */
async function openSocket(agent: { agent_id: string; secret: string }, options: { autoPong?: boolean } = {}) {
  const socket = new WebSocket(
    `${system.baseUrl.replace('http', 'ws')}/v1/agents/${agent.agent_id}/ws?instance_id=ws1`,
    {
      headers: { authorization: `Bearer ${agent.secret}` },
      autoPong: options.autoPong ?? true,
    },
  );
  socket.on('error', () => undefined);
  const frames: Record<string, unknown>[] = [];
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  socket.on('message', (data) => frames.push(JSON.parse(data.toString()) as Record<string, unknown>));
  await eventually('the ready frame', async () => (frames.some((f) => f.type === 'ready') ? true : undefined));
  return { socket, frames, closed };
}

/** Sends raw bytes over TCP and ends; resolves when the server closes or resets the connection. */
function raw(bytes: string): Promise<void> {
  const { hostname, port } = new URL(system.baseUrl);
  return new Promise((resolve) => {
    const socket = tcpConnect(Number(port), hostname, () => socket.end(bytes));
    socket.resume();
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
  });
}

/** One round of bad HTTP bodies; every answer that comes is a 4xx (the cut-short and garbage ones get none or a 400). */
async function badBodies(): Promise<number[]> {
  const post = (path: string, body: string | Buffer, contentType = 'application/json') =>
    fetch(`${system.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: 'Bearer rk_7e57ab1e0001_' + 'T'.repeat(43) },
      body,
    }).then(async (r) => {
      await r.arrayBuffer();
      return r.status;
    });
  const statuses = await Promise.all([
    post('/v1/messages', '{"target": {'),
    post('/v1/agents', `{"name":"${'x'.repeat(system.config.MAX_BODY_BYTES)}"}`),
    post('/v1/route', '{}', 'application/json; charset=utf-7'),
    post('/v1/keys', Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])),
    post('/v1/callback', '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]'),
    post('/v1/messages', 'null'),
  ]);
  await Promise.all([
    raw(
      'POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"half":',
    ),
    raw('NOT HTTP AT ALL\r\n\r\n'),
    raw('GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n'),
  ]);
  return statuses;
}

describe('hostile clients', () => {
  it(
    'hostile clients - bad frames, a half-open socket and floods of bad bodies: health stays 200 and another agent is served',
    { timeout: 120_000 },
    async () => {
      const hostile = await wsAgent('hostile');
      const other = await wsAgent('bystander');
      const bystander = await openSocket(other);
      bystander.socket.on('message', (data) => {
        const frame = JSON.parse(data.toString()) as { type: string; message_id: string; attempt: number };
        if (frame.type === 'delivery')
          bystander.socket.send(
            JSON.stringify({
              type: 'ack',
              message_id: frame.message_id,
              attempt: frame.attempt,
              status: 'processed',
              result: 'still here',
            }),
          );
      });
      const healthy = async () => assert.equal((await request('GET', `${system.baseUrl}/healthz`)).status, 200);

      // A half-open socket first: it stays connected while the rest goes on, and the hub drops it in the end.
      const halfOpen = await openSocket(await wsAgent('half-open'), { autoPong: false });

      for (const frame of [Buffer.from([0x7b, 0xc3, 0x28, 0x7d]), Buffer.alloc(MAX_FRAME_BYTES + 1, 0x20)]) {
        const socket = await openSocket(hostile);
        socket.socket.send(frame, { binary: false });
        assert.equal(await socket.closed, frame.length > MAX_FRAME_BYTES ? 1009 : 1007);
        await healthy();
      }
      const malformed = await openSocket(hostile);
      malformed.socket.send(Buffer.from([0x00, 0xff, 0x10]), { binary: true });
      for (const text of [
        '{not json',
        'null',
        '[]',
        '"a string"',
        '{"type":"receipt"}',
        '{"type":"ack","message_id":"never-sent","attempt":1,"status":"processed"}',
      ])
        malformed.socket.send(text);
      await eventually('an error frame for each bad frame', async () =>
        malformed.frames.filter((f) => f.type === 'error').length >= 6 ? true : undefined,
      );
      assert.equal(malformed.socket.readyState, WebSocket.OPEN);
      malformed.socket.close();
      await healthy();

      for (let round = 0; round < 20; round++) {
        const statuses = await badBodies();
        for (const status of statuses) assert.ok(status >= 400 && status < 500, `a bad body answered ${status}`);
        await healthy();
      }

      const messageId = `after-hostile-${Date.now()}`;
      const sent = await request('POST', `${system.baseUrl}/v1/messages`, {
        message_id: messageId,
        target: { agent_id: other.agent_id, capability: 'echo' },
      });
      assert.equal(sent.status, 202);
      const status = await eventually('the bystander processed its message', async () => {
        const response = await request('GET', `${system.baseUrl}/v1/messages/${messageId}`);
        return response.body?.state === 'processed' ? response.body : undefined;
      });
      assert.equal(status.result, 'still here');

      // Two heartbeat intervals without a pong: the half-open socket is terminated (1006 on this side).
      assert.equal(await halfOpen.closed, 1006);
      await healthy();
      bystander.socket.close();
    },
  );
});
