/**
 * The Tasks extension of MCP 2026-07-28 on the real gateway (api/mcp/tasks.ts): a capability called by a client that
 * declared the extension is a task, its message; the task outlives the api replica that started it (read, and
 * cancelled, through another once the first has stopped), since it is the message's Temporal workflow. Spoken as
 * JSON-RPC over HTTP, as the revision's wire has it: no released client speaks SEP-2663 tasks yet.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { answersOf, InputRequiredError, type Delivery } from '../../sdk';
import { eventually } from '../helpers/eventually';
import { sdkAgent } from '../helpers/mcp';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

const AGENT = `mcp-tasks-${process.pid}`;
const TASKS = 'io.modelcontextprotocol/tasks';
const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

let servers: TestServers;
let system: TestSystem;
let key: string;
let worker: { stop(): Promise<void> };

/** One 2026-07-28 request to `/mcp?agent=…` of `baseUrl`: its JSON-RPC answer (the response is JSON or one SSE event). */
async function rpc(
  baseUrl: string,
  method: string,
  params: Record<string, unknown>,
  { tasks = true, name }: { tasks?: boolean; name?: string } = {},
) {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'mcp-tasks-test', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { [TASKS]: {} } } : {},
  };
  const response = await fetch(`${baseUrl}/mcp?agent=${AGENT}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name === undefined ? {} : { 'mcp-name': name }),
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
  return JSON.parse(json) as { result?: Record<string, any>; error?: { code: number; message: string; data?: any } };
}

const callTool = (baseUrl: string, name: string, args: Record<string, unknown>, options: { tasks?: boolean } = {}) =>
  rpc(baseUrl, 'tools/call', { name, arguments: args }, { ...options, name });
const getTask = (baseUrl: string, taskId: string, options: { tasks?: boolean } = {}) =>
  rpc(baseUrl, 'tasks/get', { taskId }, { ...options, name: taskId });

const TRIP_QUESTIONS = {
  origin: {
    message: 'From where?',
    schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  date: { message: 'When?', schema: { type: 'object', properties: { day: { type: 'string' } }, required: ['day'] } },
};

/** Asks two questions at once; the next turn tells what it got, by key, and the params merged. */
function trip(d: Delivery) {
  const answers = answersOf(d);
  if (!answers) throw InputRequiredError.several('Two things about the trip.', TRIP_QUESTIONS);
  const said = `trip from ${String(answers.origin?.params?.city)} on ${String(answers.date?.params?.day)}`;
  return { content: [{ type: 'text', text: `${said} (turn ${d.turn}, params ${JSON.stringify(d.params)})` }] };
}

before(async () => {
  servers = await startTestServers();
  system = await startSystem(servers);
  key = (await system.keys.create('default', { scopes: ['read', 'send', 'register'] }, 'mcp-tasks')).key;
  worker = await sdkAgent(
    system.baseUrl,
    {
      name: AGENT,
      capabilities: [
        {
          name: 'slow',
          description: 'Works a while',
          parameters: { type: 'object', properties: { ms: { type: 'number' } } },
        },
        { name: 'greet', description: 'Greets at once', tags: ['mcp:task=forbidden'] },
        { name: 'batch', description: 'Only as a task', tags: ['mcp:task=required'] },
        { name: 'ask', description: 'Asks the caller for a city first' },
        { name: 'trip', description: 'Asks the caller where from and when, at once' },
      ],
    },
    async (d) => {
      if (d.capability === 'trip') return trip(d);
      if (d.capability === 'ask') {
        if (d.turn === undefined || d.turn < 2)
          throw new InputRequiredError('Which city?', {
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
          });
        return { content: [{ type: 'text', text: `weather for ${String(d.params.city)}` }] };
      }
      await idle(Number(d.params.ms ?? 0));
      return d.capability === 'greet'
        ? { content: [{ type: 'text', text: 'Hello!' }] }
        : { content: [{ type: 'text', text: `done ${d.capability}` }] };
    },
    { apiKey: key },
  );
});

after(async () => {
  await worker?.stop();
  await system?.stop();
  await servers?.stop();
});

describe('mcp tasks', () => {
  it('mcp tasks - a task started through one api replica is read and cancelled through another once the first has stopped', async () => {
    const replica = await system.startReplica();
    const created = (await callTool(replica.baseUrl, 'slow', { ms: 3_000 })).result!;
    assert.equal(created.resultType, 'task');
    assert.equal(created.status, 'working');
    assert.ok(Number.isInteger(created.ttlMs) && Number.isInteger(created.pollIntervalMs), JSON.stringify(created));
    const doomed = (await callTool(replica.baseUrl, 'slow', { ms: 60_000 })).result!;
    assert.equal((await getTask(replica.baseUrl, created.taskId)).result!.taskId, created.taskId, 'readable at once');
    await replica.stop();

    const read = (await getTask(system.baseUrl, created.taskId)).result!;
    assert.ok(['working', 'completed'].includes(read.status), read.status);
    const done = await eventually(
      'the task completed',
      async () => {
        const task = (await getTask(system.baseUrl, created.taskId)).result!;
        return task.status === 'completed' ? task : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    assert.deepEqual(done.result.content, [{ type: 'text', text: 'done slow' }], "the agent's result, inlined");
    assert.equal(done.result._meta['agent-reach/message_id'], created.taskId, 'a task is its message');

    const ack = (await rpc(system.baseUrl, 'tasks/cancel', { taskId: doomed.taskId }, { name: doomed.taskId })).result!;
    assert.equal(ack.resultType, 'complete');
    assert.equal('status' in ack || 'taskId' in ack, false, 'an empty acknowledgement');
    const cancelled = await eventually(
      'the task cancelled',
      async () => {
        const task = (await getTask(system.baseUrl, doomed.taskId)).result!;
        return task.status === 'cancelled' ? task : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    assert.equal(cancelled.result, undefined);
    const status = await fetch(`${system.baseUrl}/v1/messages/${doomed.taskId}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(((await status.json()) as { state: string }).state, 'cancelled', 'the message itself was cancelled');
  });

  it('mcp tasks - a task whose agent asks the caller waits in input_required, and tasks/update is the reply', async () => {
    const created = (await callTool(system.baseUrl, 'ask', {})).result!;
    const waiting = await eventually(
      'the task waits for input',
      async () => {
        const task = (await getTask(system.baseUrl, created.taskId)).result!;
        return task.status === 'input_required' ? task : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    assert.deepEqual(waiting.inputRequests, {
      reply: {
        method: 'elicitation/create',
        params: {
          message: 'Which city?',
          requestedSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    });
    assert.equal('requestState' in waiting, false);
    const ack = (
      await rpc(
        system.baseUrl,
        'tasks/update',
        { taskId: created.taskId, inputResponses: { reply: { action: 'accept', content: { city: 'Lyon' } } } },
        { name: created.taskId },
      )
    ).result!;
    assert.equal(ack.resultType, 'complete');
    const done = await eventually(
      'the task completed',
      async () => {
        const task = (await getTask(system.baseUrl, created.taskId)).result!;
        return task.status === 'completed' ? task : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    assert.deepEqual(
      done.result.content,
      [{ type: 'text', text: 'weather for Lyon' }],
      'the reply reached the agent as its next turn',
    );
  });

  it('mcp tasks - two questions at once: answered one by tasks/update, one by REST, the agent gets both in one turn', async () => {
    const created = (await callTool(system.baseUrl, 'trip', {})).result!;
    const id = created.taskId as string;
    const waiting = await eventually(
      'the task waits for input',
      async () => {
        const task = (await getTask(system.baseUrl, id)).result!;
        return task.status === 'input_required' ? task : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    assert.deepEqual(Object.keys(waiting.inputRequests), ['origin', 'date'], 'one input request per question');
    assert.deepEqual(waiting.inputRequests.date.params, {
      message: 'When?',
      requestedSchema: TRIP_QUESTIONS.date.schema,
    });
    const update = (inputResponses: Record<string, unknown>) =>
      rpc(system.baseUrl, 'tasks/update', { taskId: id, inputResponses }, { name: id });
    const ack = await update({
      origin: { action: 'accept', content: { city: 'Lyon' } },
      bogus: { action: 'accept', content: {} },
    });
    assert.equal(ack.result?.resultType, 'complete', 'acknowledged; the unknown key is ignored');
    assert.equal('status' in ack.result! || 'inputRequests' in ack.result!, false, 'an empty acknowledgement');
    const partial = (await getTask(system.baseUrl, id)).result!;
    assert.equal(partial.status, 'input_required', 'still waiting for the other answer');
    assert.deepEqual(Object.keys(partial.inputRequests), ['date'], 'only the open question remains');

    const rest = (method: string, path: string, body?: unknown) =>
      fetch(`${system.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, any> }));
    const status = await rest('GET', `/v1/messages/${id}`);
    assert.equal(status.body.state, 'input_required');
    assert.deepEqual(Object.keys(status.body.input_required.questions), ['date'], 'the status shows what remains');
    assert.deepEqual(Object.keys(status.body.turns.at(-1).questions), ['origin', 'date'], 'the question as asked');

    const answered = await rest('POST', `/v1/messages/${id}/reply`, {
      answers: { origin: { params: { city: 'Nice' } } },
    });
    assert.equal(answered.status, 400, 'an answered question is no longer open');
    assert.equal(answered.body.error.code, 'invalid_request');
    assert.equal(answered.body.error.details[0].location, 'answers.origin');
    const misfit = await rest('POST', `/v1/messages/${id}/reply`, { answers: { date: { params: { day: 5 } } } });
    assert.equal(misfit.status, 400, 'params that do not fit the question');
    assert.equal(misfit.body.error.details[0].location, 'answers.date.params.day');
    const words = await rest('POST', `/v1/messages/${id}/reply`, { params: { day: 'Monday' } });
    assert.equal(words.status, 400, 'several questions are answered by key');
    assert.equal(words.body.error.details[0].location, 'answers');
    const last = await rest('POST', `/v1/messages/${id}/reply`, { answers: { date: { params: { day: 'Monday' } } } });
    assert.equal(last.status, 202);

    const done = await eventually(
      'the task completed',
      async () => {
        const task = (await getTask(system.baseUrl, id)).result!;
        return task.status === 'completed' ? task : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    assert.deepEqual(done.result.content, [
      { type: 'text', text: 'trip from Lyon on Monday (turn 2, params {"city":"Lyon","day":"Monday"})' },
    ]);
    const ended = await rest('GET', `/v1/messages/${id}`);
    assert.deepEqual(
      ended.body.turns.map((t: { role: string }) => t.role),
      ['agent', 'caller'],
      'one question round, one combined answer',
    );
    assert.deepEqual(ended.body.turns[1].answers, {
      origin: { params: { city: 'Lyon' } },
      date: { params: { day: 'Monday' } },
    });
  });

  it('mcp tasks - only a client that declared the extension gets tasks; a sync-only tool never is one', async () => {
    const sync = (await callTool(system.baseUrl, 'slow', { ms: 0 }, { tasks: false })).result!;
    assert.equal(sync.resultType, 'complete');
    assert.deepEqual(sync.content, [{ type: 'text', text: 'done slow' }]);
    const greeted = (await callTool(system.baseUrl, 'greet', {})).result!;
    assert.equal(greeted.resultType, 'complete', 'mcp:task=forbidden');
    const refused = await callTool(system.baseUrl, 'batch', {}, { tasks: false });
    assert.equal(refused.error?.code, -32021, 'mcp:task=required, extension not declared');
    assert.deepEqual(refused.error?.data?.requiredCapabilities, { extensions: { [TASKS]: {} } });
    const gated = await getTask(system.baseUrl, 'whatever', { tasks: false });
    assert.equal(gated.error?.code, -32021);
    const unknown = await getTask(system.baseUrl, 'no-such-message');
    assert.equal(unknown.error?.code, -32602);
    const removed = await rpc(
      system.baseUrl,
      'tasks/result',
      { taskId: 'no-such-message' },
      { name: 'no-such-message' },
    );
    assert.equal(removed.error?.code, -32601, 'tasks/result is gone in SEP-2663');
  });
});
