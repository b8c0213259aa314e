/**
 * A message started through either caller face survives an api restart and is still readable through the same
 * face: the api runs as a real process (`api/main.ts`, as production runs it), a task is started through MCP
 * (2026-07-28, the Tasks extension) and one through A2A (SendMessage, returning at once), the process is killed
 * (SIGKILL: no shutdown of any kind) and started again on the same port, and both are read there to their end —
 * `tasks/get` and A2A `GetTask`. The worker and the agent live in the test process (startSystem); the agent holds
 * both messages until the api is back.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../helpers/eventually';
import { request, TEST_API_KEY } from '../helpers/http';
import { sdkAgent } from '../helpers/mcp';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';
import { configKeyEntry } from '../../rules/config-keys';
import { freePort } from '../../supervisor/dev-servers';

const ROOT = join(__dirname, '../..');
const AGENT = `api-restart-${process.pid}`;
const TASKS = 'io.modelcontextprotocol/tasks';

let servers: TestServers;
let system: TestSystem;
let key: string;
let agentId: string;
let release!: () => void;
const released = new Promise<void>((resolve) => (release = resolve));
const stops: (() => Promise<unknown> | void)[] = [];
/** The message ids the agent holds. */
const held: string[] = [];

/** The api as its own process (one process: node with tsx's loader), on `port`, sharing the system's Temporal and database. */
async function startApiProcess(port: number): Promise<ChildProcess> {
  const { config } = system;
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      API_HOST: '127.0.0.1',
      API_PORT: String(port),
      TEMPORAL_ADDRESS: config.TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: config.TEMPORAL_TASK_QUEUE,
      MONGODB_URI: config.MONGODB_URI,
      API_KEYS: configKeyEntry('default', ['admin', 'metrics'], TEST_API_KEY),
      ROUTER_PROVIDER: 'lexical',
      ROUTER_JUDGE: 'off',
      ENDPOINT_ALLOW_LOOPBACK: 'true',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) =>
      reject(new Error(`the api exited (${code ?? signal}) before it was ready:\n${stderr}`)),
    ),
  );
  const ready = eventually(
    'the api process to be ready',
    async () => {
      const answer = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      return answer?.status === 200 ? true : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 250 },
  );
  await Promise.race([ready, exited]);
  return child;
}

/** Kills the process outright and waits until it is gone. */
async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await gone;
}

/** One 2026-07-28 request to the MCP agent face of `baseUrl`, declaring the Tasks extension. */
async function mcp(baseUrl: string, method: string, params: Record<string, unknown>, name: string) {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'api-restart-test', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
  };
  const response = await fetch(`${baseUrl}/mcp?agent=${AGENT}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      'mcp-name': name,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }),
  });
  const text = await response.text();
  const json = response.headers.get('content-type')?.includes('text/event-stream')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .at(-1)!
        .slice(5)
    : text;
  return JSON.parse(json) as { result?: Record<string, any>; error?: { code: number; message: string } };
}

/** One A2A JSON-RPC request to the gateway's face at `baseUrl`. */
async function a2a(baseUrl: string, method: string, params: object) {
  const answer = await request(
    'POST',
    `${baseUrl}/a2a`,
    { jsonrpc: '2.0', id: 1, method, params },
    { authorization: `Bearer ${key}`, 'a2a-version': '1.0' },
  );
  return answer.body as { result?: any; error?: { code: number; message: string } };
}

before(async () => {
  servers = await startTestServers();
  system = await startSystem(servers);
  key = (await system.keys.create('default', { scopes: ['read', 'send'] }, 'api-restart')).key;
  const worker = await sdkAgent(
    system.baseUrl,
    {
      name: AGENT,
      capabilities: [{ name: 'hold', description: 'Holds its message until the test lets it go' }],
    },
    async (d) => {
      held.push(d.message_id);
      await released;
      return { content: [{ type: 'text', text: `held ${d.message_id}` }] };
    },
    { inlineMs: 100 },
  );
  stops.push(worker.stop);
  agentId = worker.agentId;
});

after(async () => {
  release();
  for (const stop of stops.reverse()) await stop();
  await system?.stop();
  await servers?.stop();
});

describe('api restart', () => {
  it('api restart - an MCP task and an A2A task started through an api process are read through the same faces after it is killed and started again', async () => {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    let api = await startApiProcess(port);
    stops.push(() => kill(api));

    const started = await mcp(baseUrl, 'tools/call', { name: 'hold', arguments: {} }, 'hold');
    assert.equal(started.result?.resultType, 'task', JSON.stringify(started));
    const taskId = started.result!.taskId as string;
    const sent = await a2a(baseUrl, 'SendMessage', {
      message: {
        messageId: `a2a-restart-${process.pid}`,
        role: 'ROLE_USER',
        parts: [{ text: 'hold it' }],
        metadata: { skill: `${agentId}/hold` },
      },
      configuration: { returnImmediately: true },
    });
    const a2aTaskId = sent.result?.task?.id as string;
    assert.ok(a2aTaskId, JSON.stringify(sent));
    // Both delivered and held by the agent before the kill: in flight, not merely accepted.
    await eventually('both messages at the agent', async () => (held.length === 2 ? held : undefined), {
      timeoutMs: 60_000,
    });
    assert.ok(held.includes(taskId));

    await kill(api);
    await assert.rejects(fetch(`${baseUrl}/healthz`), 'the api is gone');
    api = await startApiProcess(port);

    const waiting = await mcp(baseUrl, 'tasks/get', { taskId }, taskId);
    assert.equal(waiting.result?.status, 'working', JSON.stringify(waiting));
    const a2aWaiting = await a2a(baseUrl, 'GetTask', { id: a2aTaskId });
    assert.equal(a2aWaiting.result?.status?.state, 'TASK_STATE_WORKING', JSON.stringify(a2aWaiting));

    release();
    const done = await eventually(
      'the MCP task to complete',
      async () => {
        const read = await mcp(baseUrl, 'tasks/get', { taskId }, taskId);
        return read.result?.status === 'completed' ? read.result : undefined;
      },
      { timeoutMs: 60_000 },
    );
    assert.deepEqual(done.result.content, [{ type: 'text', text: `held ${taskId}` }]);
    const a2aDone = await eventually(
      'the A2A task to complete',
      async () => {
        const read = await a2a(baseUrl, 'GetTask', { id: a2aTaskId });
        return read.result?.status?.state === 'TASK_STATE_COMPLETED' ? read.result : undefined;
      },
      { timeoutMs: 60_000 },
    );
    assert.equal(a2aDone.id, a2aTaskId);
    assert.ok(JSON.stringify(a2aDone.artifacts).includes('held a2a-restart-'), JSON.stringify(a2aDone.artifacts));
  });
});
