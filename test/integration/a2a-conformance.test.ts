/**
 * The A2A face against the A2A v1.0 specification (docs/a2a.md, "Conformance"): the mandatory checks of the A2A
 * project's TCK (a2aproject/a2a-tck, tests/mandatory: JSON-RPC envelopes and error codes, GetTask, CancelTask,
 * ListTasks, the agent cards) ported as raw requests, and what a client does with them driven by the official Python
 * `a2a-sdk` (test/helpers/a2a_conformance.py; skipped, saying why, when the venv lacks it), over the JSON-RPC and the
 * HTTP+JSON (REST) bindings.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { newSigningSecret } from '../../rules/signing';
import { after, before, describe, it } from 'node:test';
import { request } from '../helpers/http';
import { sdkAgent } from '../helpers/mcp';
import { answersOf, InputRequiredError } from '../../sdk';
import { pythonModule, runPythonClient } from '../helpers/python';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

const { skip } = pythonModule('a2a.client', 'a2a-sdk');

let servers: TestServers;
let system: TestSystem;
let agentId: string;
let key: string;
/** The gateway's caller secret: push notifications to A2A clients are signed with it. */
const callerSecret = newSigningSecret();
/** The delivery keys the agent's `ask` capability was handed, with each delivery's turn and history roles. */
const askDeliveries: { key: string; turn: number; history: string[] }[] = [];
const stops: (() => Promise<unknown> | void)[] = [];

before(async () => {
  servers = await startTestServers();
  system = await startSystem(servers, { CALLER_WEBHOOK_SECRET: callerSecret });
  const worker = await sdkAgent(
    system.baseUrl,
    {
      name: `a2a-conformance-${process.pid}`,
      capabilities: [
        { name: 'refund', description: 'Refunds an order' },
        { name: 'slow', description: 'Takes its time' },
        { name: 'payout', description: 'Pays a supplier', acl: { scopes: ['payouts'] } },
        { name: 'audit', description: 'Audits the books', private: true },
        { name: 'ask', description: 'Refunds an order, asking which one when not told' },
        { name: 'trip', description: 'Books a trip, asking where from and when at once' },
      ],
    },
    async (d) => {
      if (d.capability === 'trip') {
        const answers = answersOf(d);
        if (!answers)
          throw InputRequiredError.several('Two things about the trip.', {
            origin: { message: 'From where?', schema: { type: 'object', required: ['city'] } },
            date: { message: 'When?' },
          });
        return { from: answers.origin?.params?.city, on: answers.date?.payload, turn: d.turn };
      }
      if (d.capability === 'ask') {
        askDeliveries.push({ key: d.delivery_key, turn: d.turn, history: (d.history ?? []).map((t) => t.role) });
        const orderId = (d.params as { order_id?: number }).order_id;
        if (orderId === undefined)
          throw new InputRequiredError('Which order should be refunded?', {
            type: 'object',
            properties: { order_id: { type: 'integer' } },
            required: ['order_id'],
          });
        return { refund_id: `r-${orderId}`, turn: d.turn };
      }
      if (d.capability === 'slow') await new Promise((resolve) => setTimeout(resolve, 120_000).unref());
      return { refund_id: `r-${(d.params as { order_id?: number }).order_id}` };
    },
    { inlineMs: 200 },
  );
  stops.push(worker.stop);
  agentId = worker.agentId;
  key = (await system.keys.create('default', { scopes: ['read', 'send'] }, 'a2a-conformance')).key;
});

after(async () => {
  for (const stop of stops.reverse()) await stop();
  await system?.stop();
  await servers?.stop();
});

const V1 = { 'a2a-version': '1.0' };
let ids = 0;

/** A raw JSON-RPC body to `/a2a`, A2A v1.0, with the key. */
function post(body: unknown, headers: Record<string, string> = {}) {
  return request('POST', `${system.baseUrl}/a2a`, body, { authorization: `Bearer ${key}`, ...V1, ...headers });
}

function call(method: string, params: object = {}) {
  return post({ jsonrpc: '2.0', id: `c-${++ids}`, method, params });
}

function send(messageId: string, data: object, extra: object = {}) {
  return call('SendMessage', {
    message: { messageId, role: 'ROLE_USER', parts: [{ data }], metadata: { skill: `${agentId}/refund` }, ...extra },
  });
}

describe('a2a conformance', () => {
  it('a2a conformance - JSON-RPC envelopes: parse error -32700, invalid request -32600, unknown method -32601, invalid params -32602', async () => {
    const parse = await request(
      'POST',
      `${system.baseUrl}/a2a`,
      '{"jsonrpc": "2.0", "method": "SendMessage", "params": {"foo": "bar"}',
      { authorization: `Bearer ${key}`, ...V1, 'content-type': 'application/json' },
    );
    assert.equal(parse.body.error.code, -32700);
    assert.equal(parse.body.id, null);

    const cases: [unknown, number, unknown][] = [
      [{ jsonrpc: 'aaa', method: 'SendMessage', params: {} }, -32600, null],
      [{ jsonrpc: '1.0', method: 'SendMessage', params: {}, id: 'v1' }, -32600, 'v1'],
      [{ jsonrpc: '2.0', params: {}, id: 'no-method' }, -32600, 'no-method'],
      [{ jsonrpc: '2.0', method: 'SendMessage', params: {}, id: { bad: 'type' } }, -32600, null],
      [[{ jsonrpc: '2.0', method: 'GetTask', params: { id: 'x' }, id: 1 }], -32600, null],
      ['"just a string"', -32600, null],
      [{ jsonrpc: '2.0', method: 'SendMessageXXX', id: '3', params: {} }, -32601, '3'],
      [{ jsonrpc: '2.0', method: 'SendMessage', id: '4', params: { '': 'not_a_dict' } }, -32602, '4'],
      [{ jsonrpc: '2.0', method: 'SendMessage', id: 5, params: { message: { parts: 'invalid' } } }, -32602, 5],
      [{ jsonrpc: '2.0', method: 'GetTask', id: 6, params: [1] }, -32602, 6],
    ];
    for (const [body, code, id] of cases) {
      const answer = await post(body);
      assert.equal(answer.status, 200, JSON.stringify(body));
      assert.equal(answer.body.jsonrpc, '2.0');
      assert.equal(answer.body.error.code, code, `${JSON.stringify(body)} → ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.id, id, JSON.stringify(body));
      assert.equal(typeof answer.body.error.message, 'string');
    }
  });

  it('a2a conformance - the A2A errors: TaskNotFound -32001, TaskNotCancelable -32002, UnsupportedOperation -32004, ContentTypeNotSupported -32005', async () => {
    assert.equal((await call('GetTask', { id: 'nonexistent-task-id' })).body.error.code, -32001);
    assert.equal((await call('CancelTask', { id: 'nonexistent-task-id' })).body.error.code, -32001);
    const done = await send(`conf-done-${process.pid}`, { order_id: 1 });
    assert.equal(done.body.result.task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(done.body));
    const taskId = done.body.result.task.id as string;
    assert.equal((await call('CancelTask', { id: taskId })).body.error.code, -32002);
    assert.equal(
      (await call('SubscribeToTask', { id: taskId })).body.error.code,
      -32004,
      'an ended task has nothing to stream',
    );
    const file = await call('SendMessage', {
      message: {
        messageId: `conf-file-${process.pid}`,
        role: 'ROLE_USER',
        parts: [{ url: 'https://example.com/x.pdf', mediaType: 'application/pdf' }],
      },
    });
    assert.equal(file.body.error.code, -32005);
    assert.equal(
      (await send(`conf-more-${process.pid}`, { order_id: 2 }, { taskId })).body.error.code,
      -32004,
      'an ended task takes no more messages',
    );
    assert.equal(
      (await send(`conf-lost-${process.pid}`, { order_id: 2 }, { taskId: 'no-such-task' })).body.error.code,
      -32001,
    );
    assert.equal((await call('GetExtendedAgentCard')).body.result.name, 'Agent-Reach');
  });

  it("a2a conformance - GetTask: the task by id, historyLength honoured (0 none, n the last n), the caller's contextId kept", async () => {
    const contextId = `conf-ctx-${process.pid}`;
    const sent = await send(`conf-hist-${process.pid}`, { order_id: 3 }, { contextId });
    assert.equal(sent.body.result.task.contextId, contextId, "the context the caller gave is the task's");
    assert.deepEqual(
      sent.body.result.task.history.map((m: { role: string }) => m.role),
      ['ROLE_USER'],
      'all history when historyLength is not given',
    );
    const id = sent.body.result.task.id as string;
    const one = (await call('GetTask', { id, historyLength: 1 })).body.result;
    assert.equal(one.id, id);
    assert.equal(one.history.length, 1);
    assert.deepEqual(one.history[0].parts[0].data, { order_id: 3 });
    assert.equal((await call('GetTask', { id, historyLength: 0 })).body.result.history, undefined);
    assert.equal((await call('GetTask', { id, historyLength: -1 })).body.error.code, -32602);
    assert.equal(
      (
        await call('SendMessage', {
          message: {
            messageId: `conf-odd-ctx-${process.pid}`,
            role: 'ROLE_USER',
            contextId: 'not a/usable id',
            parts: [{ text: 'x' }],
          },
        })
      ).body.error.code,
      -32602,
    );
  });

  it("a2a conformance - ListTasks: the key's tasks only, filters, page bounds and tokens checked (-32602), an empty page", async () => {
    const contextId = `conf-list-${process.pid}`;
    for (let i = 0; i < 3; i++) await send(`conf-list-${process.pid}-${i}`, { order_id: i }, { contextId });
    const all = (await call('ListTasks', { contextId })).body.result;
    assert.equal(all.totalSize, 3);
    assert.equal(all.pageSize, 3);
    assert.equal(all.nextPageToken, '');
    assert.ok(
      all.tasks.every(
        (t: { contextId: string; artifacts?: unknown }) => t.contextId === contextId && t.artifacts === undefined,
      ),
      'no artifacts unless asked',
    );
    const withArtifacts = (await call('ListTasks', { contextId, includeArtifacts: true, historyLength: 0 })).body
      .result;
    assert.ok(
      withArtifacts.tasks.every(
        (t: { artifacts: unknown[]; history?: unknown }) => t.artifacts.length === 1 && t.history === undefined,
      ),
    );
    const empty = (await call('ListTasks', { contextId: `empty-${process.pid}` })).body.result;
    assert.deepEqual(empty, { tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 });
    const otherTenant = (await system.keys.create('elsewhere', { scopes: ['read', 'send'] }, 'a2a-other')).key;
    const theirs = await post(
      { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: { contextId } },
      { authorization: `Bearer ${otherTenant}` },
    );
    assert.deepEqual(theirs.body.result.tasks, [], 'another tenant sees none of them');
    for (const params of [
      { pageSize: 0 },
      { pageSize: -1 },
      { pageSize: 101 },
      { status: 'INVALID_STATUS' },
      { historyLength: -1 },
      { statusTimestampAfter: '-1' },
      { pageToken: 'invalid-token-xyz' },
    ]) {
      assert.equal((await call('ListTasks', params)).body.error?.code, -32602, JSON.stringify(params));
    }
    const since = (
      await call('ListTasks', { contextId, statusTimestampAfter: new Date(Date.now() + 60_000).toISOString() })
    ).body.result;
    assert.equal(since.tasks.length, 0, 'none changed after a time to come');
  });

  it("a2a conformance - cards: the public agent card without a key (no ACL'd or private skill), the extended card with one", async () => {
    const card = await request(
      'GET',
      `${system.baseUrl}/a2a/agents/${agentId}/.well-known/agent-card.json`,
      undefined,
      { authorization: '' },
    );
    assert.equal(card.status, 200);
    assert.deepEqual(card.body.skills.map((s: { id: string }) => s.id).sort(), ['ask', 'refund', 'slow', 'trip']);
    assert.equal(card.body.capabilities.extendedAgentCard, true);
    const extended = await request(
      'POST',
      `${system.baseUrl}/a2a/agents/${agentId}`,
      { jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard', params: {} },
      { authorization: `Bearer ${key}`, ...V1 },
    );
    assert.deepEqual(
      extended.body.result.skills.map((s: { id: string }) => s.id).sort(),
      ['ask', 'audit', 'refund', 'slow', 'trip'],
      'private shows with a key; the ACL still applies',
    );
    const unknown = await request(
      'GET',
      `${system.baseUrl}/a2a/agents/agt_000000000000000000000000/.well-known/agent-card.json`,
      undefined,
      { authorization: '' },
    );
    assert.equal(unknown.status, 404);
  });

  it(
    'a2a conformance - the PyPI a2a-sdk client over JSON-RPC: ListTasks pages, filters, historyLength, context ids, a task taking no more messages',
    { skip },
    async () => {
      const report = await runPythonClient('a2a_conformance.py', {
        base_url: system.baseUrl,
        key,
        binding: 'JSONRPC',
        skill: `${agentId}/refund`,
        run: `py-jsonrpc-${process.pid}`,
      });
      assert.equal(report.sent.length, 3);
      for (const task of report.sent) {
        assert.equal(task.state, 'TASK_STATE_COMPLETED');
        assert.equal(task.context_id, `ctx-py-jsonrpc-${process.pid}`);
        assert.deepEqual(task.history_roles, ['ROLE_USER'], 'historyLength 1 on SendMessage');
      }
      assert.deepEqual(report.get_history.history_roles, ['ROLE_USER']);
      assert.deepEqual(report.get_plain.history_roles, ['ROLE_USER']);
      const listed = report.pages.flatMap((p: { ids: string[] }) => p.ids);
      assert.deepEqual(
        [...listed].sort(),
        report.sent.map((t: { id: string }) => t.id).sort(),
        'every task once over the pages',
      );
      assert.ok(report.pages.every((p: { total: number }) => p.total === 3));
      assert.equal(report.pages[0].size, 2);
      assert.equal(report.pages[0].has_next, true);
      assert.equal(report.pages.at(-1).has_next, false);
      assert.equal(report.completed.length, 3);
      assert.ok(
        report.completed.every(
          (t: { artifacts: number; history_roles: string[] }) => t.artifacts === 1 && t.history_roles.length === 1,
        ),
      );
      assert.equal(report.none_failed, 0);
      assert.ok(report.bad_page_size.error, JSON.stringify(report.bad_page_size));
      assert.ok(report.bad_token.error, JSON.stringify(report.bad_token));
      assert.equal(
        report.continue_ended.error.type,
        'UnsupportedOperationError',
        JSON.stringify(report.continue_ended),
      );
      assert.equal(report.continue_unknown.error.type, 'TaskNotFoundError', JSON.stringify(report.continue_unknown));
      assert.equal(
        report.continue_other_context.error.type,
        'InvalidParamsError',
        JSON.stringify(report.continue_other_context),
      );
      assert.equal(report.streamed.at(-1), 'TASK_STATE_COMPLETED', JSON.stringify(report.streamed));
      assert.equal(report.streamed[0], 'TASK_STATE_SUBMITTED', 'the stream begins with the task');
    },
  );

  it("a2a conformance - HTTP+JSON binding: the same handlers under <face>/rest, the spec's HTTP statuses for its errors", async () => {
    const rest = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      request(method, `${system.baseUrl}/a2a/rest${path}`, body, { authorization: `Bearer ${key}`, ...V1, ...headers });
    const card = (
      await request('GET', `${system.baseUrl}/.well-known/agent-card.json`, undefined, { authorization: '' })
    ).body;
    assert.deepEqual(
      card.supportedInterfaces.filter((i: { protocolBinding: string }) => i.protocolBinding === 'HTTP+JSON'),
      [
        { url: `${system.baseUrl}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        { url: `${system.baseUrl}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
      ],
    );
    const contextId = `conf-rest-${process.pid}`;
    const sent = await rest('POST', '/message:send', {
      message: {
        messageId: `conf-rest-${process.pid}`,
        role: 'ROLE_USER',
        contextId,
        parts: [{ data: { order_id: 8 } }],
        metadata: { skill: `${agentId}/refund` },
      },
    });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(sent.body.task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(sent.body.task.contextId, contextId);
    const id = sent.body.task.id as string;
    const read = await rest('GET', `/tasks/${id}?historyLength=1`);
    assert.equal(read.body.id, id);
    assert.equal(read.body.history.length, 1);
    const listed = await rest('GET', `/tasks?contextId=${contextId}&includeArtifacts=true`);
    assert.deepEqual(
      listed.body.tasks.map((t: { id: string }) => t.id),
      [id],
    );
    assert.equal(listed.body.totalSize, 1);
    const cases: [string, string, unknown, number, string][] = [
      ['GET', '/tasks/no-such-task', undefined, 404, 'NOT_FOUND'],
      ['POST', `/tasks/${id}:cancel`, {}, 409, 'FAILED_PRECONDITION'],
      [
        'POST',
        '/message:send',
        {
          message: {
            messageId: `conf-rest-file-${process.pid}`,
            role: 'ROLE_USER',
            parts: [{ url: 'https://example.com/x.pdf' }],
          },
        },
        415,
        'INVALID_ARGUMENT',
      ],
      ['GET', '/tasks?pageSize=0', undefined, 400, 'INVALID_ARGUMENT'],
      ['GET', '/tasks?pageToken=invalid-token-xyz', undefined, 400, 'INVALID_ARGUMENT'],
      ['POST', '/message:send', '{"message": ', 400, 'INVALID_ARGUMENT'],
      ['POST', `/tasks/${id}/pushNotificationConfigs`, { url: 'ftp://example.com/hook' }, 400, 'INVALID_ARGUMENT'],
      ['GET', `/tasks/${id}/pushNotificationConfigs/no-such-config`, undefined, 404, 'NOT_FOUND'],
    ];
    for (const [method, path, body, status, name] of cases) {
      const answer = await rest(
        method,
        path,
        body,
        typeof body === 'string' ? { 'content-type': 'application/json' } : {},
      );
      assert.equal(answer.status, status, `${method} ${path} → ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.error.status, name, `${method} ${path}`);
      assert.equal(answer.body.error.code, status);
    }
    const subscribed = await rest('GET', `/tasks/${id}:subscribe`);
    assert.equal(subscribed.status, 400, 'an ended task has nothing to stream');
    const noKey = await rest('GET', `/tasks/${id}`, undefined, { authorization: '' });
    assert.equal(noKey.status, 401);
    assert.equal(noKey.body.error.status, 'UNAUTHENTICATED');
    const readOnly = (await system.keys.create('default', { scopes: ['read'] }, 'a2a-rest-read')).key;
    assert.equal(
      (
        await rest(
          'POST',
          '/message:send',
          { message: { messageId: 'x', role: 'ROLE_USER', parts: [{ text: 'x' }] } },
          { authorization: `Bearer ${readOnly}` },
        )
      ).status,
      403,
    );
    assert.equal((await rest('GET', `/tasks/${id}`, undefined, { authorization: `Bearer ${readOnly}` })).status, 200);
    const own = await request(
      'POST',
      `${system.baseUrl}/a2a/agents/${agentId}/rest/message:send`,
      {
        message: {
          messageId: `conf-rest-own-${process.pid}`,
          role: 'ROLE_USER',
          parts: [{ data: { order_id: 6 } }],
          metadata: { skill: 'refund' },
        },
      },
      { authorization: `Bearer ${key}`, ...V1 },
    );
    assert.deepEqual(own.body.task.artifacts[0].parts[0].data, { refund_id: 'r-6' }, JSON.stringify(own.body));
    assert.equal(
      (
        await request('GET', `${system.baseUrl}/a2a/agents/agt_000000000000000000000000/rest/tasks`, undefined, {
          authorization: `Bearer ${key}`,
          ...V1,
        })
      ).status,
      404,
    );
  });

  it(
    'a2a conformance - the PyPI a2a-sdk client over HTTP+JSON: the same ListTasks, history and context checks',
    { skip },
    async () => {
      const report = await runPythonClient('a2a_conformance.py', {
        base_url: system.baseUrl,
        key,
        binding: 'HTTP+JSON',
        skill: `${agentId}/refund`,
        run: `py-rest-${process.pid}`,
      });
      assert.ok(
        report.sent.every(
          (t: { state: string; context_id: string }) =>
            t.state === 'TASK_STATE_COMPLETED' && t.context_id === `ctx-py-rest-${process.pid}`,
        ),
        JSON.stringify(report.sent),
      );
      assert.deepEqual(report.get_history.history_roles, ['ROLE_USER']);
      const listed = report.pages.flatMap((p: { ids: string[] }) => p.ids);
      assert.deepEqual([...listed].sort(), report.sent.map((t: { id: string }) => t.id).sort());
      assert.equal(report.pages[0].size, 2);
      assert.equal(report.completed.length, 3);
      assert.equal(report.none_failed, 0);
      assert.ok(
        report.bad_page_size.error && report.bad_token.error,
        JSON.stringify([report.bad_page_size, report.bad_token]),
      );
      assert.ok(report.continue_ended.error, JSON.stringify(report.continue_ended));
      assert.ok(report.continue_unknown.error, JSON.stringify(report.continue_unknown));
      assert.equal(report.streamed.at(-1), 'TASK_STATE_COMPLETED', JSON.stringify(report.streamed));
      assert.ok(report.streamed.includes('artifact'), JSON.stringify(report.streamed));
    },
  );

  it('a2a conformance - a task sent through one api replica is read, listed and cancelled through another once the first has stopped', async () => {
    const replica = await system.startReplica();
    const contextId = `conf-restart-${process.pid}`;
    const sent = await request(
      'POST',
      `${replica.baseUrl}/a2a`,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: {
          message: {
            messageId: `conf-restart-${process.pid}`,
            role: 'ROLE_USER',
            contextId,
            parts: [{ data: {} }],
            metadata: { skill: `${agentId}/slow` },
          },
          configuration: { returnImmediately: true },
        },
      },
      { authorization: `Bearer ${key}`, ...V1 },
    );
    const id = sent.body.result.task.id as string;
    await replica.stop();
    const read = (await call('GetTask', { id })).body.result;
    assert.ok(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'].includes(read.status.state), read.status.state);
    assert.equal(read.contextId, contextId);
    const listed = (
      await request('GET', `${system.baseUrl}/a2a/rest/tasks?contextId=${contextId}`, undefined, {
        authorization: `Bearer ${key}`,
        ...V1,
      })
    ).body;
    assert.deepEqual(
      listed.tasks.map((t: { id: string }) => t.id),
      [id],
    );
    const cancelled = await request(
      'POST',
      `${system.baseUrl}/a2a/rest/tasks/${id}:cancel`,
      {},
      { authorization: `Bearer ${key}`, ...V1 },
    );
    assert.equal(cancelled.body.status.state, 'TASK_STATE_CANCELED', JSON.stringify(cancelled.body));
  });

  it(
    'a2a conformance - multi-turn with the PyPI a2a-sdk client (JSON-RPC and HTTP+JSON): the task goes input-required, the next message with its taskId completes it, the agent handles each turn once',
    { skip },
    async () => {
      for (const binding of ['JSONRPC', 'HTTP+JSON']) {
        const run = `py-turns-${binding === 'JSONRPC' ? 'rpc' : 'rest'}-${process.pid}`;
        const before = askDeliveries.length;
        const report = await runPythonClient('a2a_multiturn.py', {
          base_url: system.baseUrl,
          key,
          binding,
          skill: `${agentId}/ask`,
          run,
        });
        const { asked, answered, repeated, read, after_end } = report;
        assert.equal(asked.state, 'TASK_STATE_INPUT_REQUIRED', JSON.stringify(asked));
        assert.equal(asked.question[0], 'Which order should be refunded?');
        assert.deepEqual(asked.question[1].schema.required, ['order_id'], 'the schema of what the agent wants');
        assert.equal(answered.id, asked.id, 'the same task');
        assert.equal(answered.context_id, `ctx-${run}`);
        assert.equal(answered.state, 'TASK_STATE_COMPLETED', JSON.stringify(answered));
        assert.deepEqual(answered.artifacts, [{ refund_id: 'r-5', turn: 2 }]);
        assert.equal(
          repeated.ok?.state,
          'TASK_STATE_COMPLETED',
          `a repeat of the reply answers the task: ${JSON.stringify(repeated)}`,
        );
        assert.deepEqual(
          read.history.map(([role]: string[]) => role),
          ['ROLE_USER', 'ROLE_AGENT', 'ROLE_USER'],
          JSON.stringify(read.history),
        );
        assert.equal(read.history[2][1], `${run}-reply`, "the reply keeps the client's message id");
        assert.equal(after_end.error?.type, 'UnsupportedOperationError', JSON.stringify(after_end));
        const mine = askDeliveries.slice(before);
        assert.deepEqual(
          mine.map((d) => d.turn),
          [1, 2],
          `each turn handled once: ${JSON.stringify(mine)}`,
        );
        assert.equal(mine[1]?.key, `${mine[0]?.key}:turn-2`, 'the follow-up has its own delivery key');
        assert.deepEqual(mine[1]?.history, ['caller', 'agent', 'caller'], 'the follow-up carries the conversation');
      }
    },
  );

  it('a2a conformance - multi-turn on /v1: GET shows input_required and the question, POST /v1/messages/:id/reply continues it, a second reply is 409', async () => {
    const auth = { authorization: `Bearer ${key}` };
    const sent = await request(
      'POST',
      `${system.baseUrl}/v1/messages`,
      { message_id: `v1-turns-${process.pid}`, target: { agent_id: agentId, capability: 'ask' }, intent: 'refund' },
      auth,
    );
    assert.equal(sent.status, 202, JSON.stringify(sent.body));
    const id = sent.body.message_id as string;
    let waiting = sent.body;
    for (let i = 0; i < 100 && waiting.state !== 'input_required'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      waiting = (await request('GET', `${system.baseUrl}/v1/messages/${id}`, undefined, auth)).body;
    }
    assert.equal(waiting.state, 'input_required', JSON.stringify(waiting));
    assert.equal(waiting.input_required.message, 'Which order should be refunded?');
    assert.deepEqual(
      waiting.turns.map((t: { role: string }) => t.role),
      ['agent'],
    );
    const bad = await request('POST', `${system.baseUrl}/v1/messages/${id}/reply`, {}, auth);
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    const misfit = await request(
      'POST',
      `${system.baseUrl}/v1/messages/${id}/reply`,
      { params: { order_id: 'eleven' } },
      auth,
    );
    assert.equal(misfit.status, 400, 'params that do not fit the schema of the question are refused at the door');
    assert.deepEqual(
      [misfit.body.error.code, misfit.body.error.details.map((d: { location: string }) => d.location)],
      ['invalid_request', ['params.order_id']],
    );
    const still = (await request('GET', `${system.baseUrl}/v1/messages/${id}`, undefined, auth)).body;
    assert.deepEqual([still.state, still.turns.length], ['input_required', 1], 'nothing was sent to the agent');
    const replied = await request(
      'POST',
      `${system.baseUrl}/v1/messages/${id}/reply`,
      { params: { order_id: 11 } },
      auth,
    );
    assert.equal(replied.status, 202, JSON.stringify(replied.body));
    let ended = replied.body;
    for (let i = 0; i < 100 && ended.state !== 'processed'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      ended = (await request('GET', `${system.baseUrl}/v1/messages/${id}`, undefined, auth)).body;
    }
    assert.equal(ended.state, 'processed', JSON.stringify(ended));
    assert.deepEqual(ended.result, { refund_id: 'r-11', turn: 2 });
    assert.equal(ended.attempts.at(-1).turn, 2);
    const again = await request(
      'POST',
      `${system.baseUrl}/v1/messages/${id}/reply`,
      { params: { order_id: 12 } },
      auth,
    );
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'not_waiting_for_input');
  });

  it('a2a conformance - several questions at once: answered in two messages naming the task, by data fields per question key', async () => {
    const started = await call('SendMessage', {
      message: {
        messageId: `trip-${process.pid}`,
        role: 'ROLE_USER',
        parts: [{ text: 'a trip' }],
        metadata: { skill: `${agentId}/trip` },
      },
    });
    const task = started.body.result.task;
    assert.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED', JSON.stringify(started.body));
    const asked = (t: { status: { message: { parts: { data?: { questions?: object } }[] } } }) =>
      Object.keys(t.status.message.parts.find((p) => p.data?.questions)?.data?.questions ?? {});
    assert.deepEqual(asked(task), ['origin', 'date'], 'the open questions, in the status message');
    const reply = (n: string, data: object) =>
      call('SendMessage', {
        message: { messageId: `trip-${process.pid}-${n}`, role: 'ROLE_USER', taskId: task.id, parts: [{ data }] },
      });
    const none = await reply('none', { nope: 1 });
    assert.equal(none.body.error?.code, -32602, 'a reply answering no open question is refused');
    const first = await reply('first', { origin: { city: 'Lyon' } });
    const partial = first.body.result.task;
    assert.equal(partial.status.state, 'TASK_STATE_INPUT_REQUIRED', JSON.stringify(first.body));
    assert.deepEqual(asked(partial), ['date'], 'only the open question remains');
    const second = await reply('second', { date: 'Monday' });
    let done = second.body.result.task;
    for (let i = 0; i < 100 && done.status.state !== 'TASK_STATE_COMPLETED'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      done = (await call('GetTask', { id: task.id })).body.result;
    }
    assert.equal(done.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(done));
    assert.deepEqual(done.artifacts[0].parts[0].data, { from: 'Lyon', on: 'Monday', turn: 2 });
  });

  it('a2a conformance - push notification configs (§3.1.7–3.1.10) over JSON-RPC and HTTP+JSON: created, read, listed, deleted, bounded, tenant-scoped, and each task state change posted signed to the webhook', async () => {
    const received: { headers: IncomingHttpHeaders; body: string }[] = [];
    const hook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    stops.push(() => new Promise((resolve) => hook.close(resolve)));
    const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    const card = (
      await request('GET', `${system.baseUrl}/.well-known/agent-card.json`, undefined, { authorization: '' })
    ).body;
    assert.equal(
      card.capabilities.pushNotifications,
      true,
      'the card says so: the gateway signs with its caller secret',
    );

    const asked = (
      await call('SendMessage', {
        message: {
          messageId: `conf-push-${process.pid}`,
          role: 'ROLE_USER',
          parts: [{ text: 'refund' }],
          metadata: { skill: `${agentId}/ask` },
        },
      })
    ).body.result.task;
    assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED', JSON.stringify(asked));
    const taskId = asked.id as string;
    const created = await call('CreateTaskPushNotificationConfig', { taskId, id: 'hook-1', url, token: 'tok-1' });
    assert.deepEqual(created.body.result, { id: 'hook-1', taskId, url, token: 'tok-1' }, JSON.stringify(created.body));
    assert.deepEqual(
      (await call('GetTaskPushNotificationConfig', { taskId, id: 'hook-1' })).body.result,
      created.body.result,
    );
    assert.equal((await call('GetTaskPushNotificationConfig', { taskId, id: 'nope' })).body.error.code, -32001);
    assert.equal(
      (await call('CreateTaskPushNotificationConfig', { taskId: 'no-such-task', url })).body.error.code,
      -32001,
    );
    assert.equal(
      (await call('CreateTaskPushNotificationConfig', { taskId, url: 'not a url' })).body.error.code,
      -32602,
    );
    const metadata = (await call('CreateTaskPushNotificationConfig', { taskId, url: 'http://169.254.169.254/latest' }))
      .body.error;
    assert.equal(metadata.code, -32602, 'the endpoint policy of reply_to: no cloud metadata address');
    assert.match(JSON.stringify(metadata.data), /endpoint_not_allowed/);
    const otherTenant = (await system.keys.create('elsewhere', { scopes: ['read', 'send'] }, 'a2a-push-other')).key;
    const theirs = await post(
      { jsonrpc: '2.0', id: 1, method: 'ListTaskPushNotificationConfigs', params: { taskId } },
      { authorization: `Bearer ${otherTenant}` },
    );
    assert.equal(theirs.body.error.code, -32001, "another tenant's key sees no such task");
    const readOnly = (await system.keys.create('default', { scopes: ['read'] }, 'a2a-push-read')).key;
    assert.equal(
      (
        await post(
          { jsonrpc: '2.0', id: 1, method: 'CreateTaskPushNotificationConfig', params: { taskId, url } },
          { authorization: `Bearer ${readOnly}` },
        )
      ).status,
      403,
      'creating needs the send scope',
    );

    // HTTP+JSON: the same configs.
    const rest = (method: string, path: string, body?: unknown) =>
      request(method, `${system.baseUrl}/a2a/rest${path}`, body, { authorization: `Bearer ${key}`, ...V1 });
    const made = await rest('POST', `/tasks/${taskId}/pushNotificationConfigs`, { id: 'hook-2', url });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.deepEqual((await rest('GET', `/tasks/${taskId}/pushNotificationConfigs/hook-2`)).body, {
      id: 'hook-2',
      taskId,
      url,
    });
    assert.deepEqual(
      (await rest('GET', `/tasks/${taskId}/pushNotificationConfigs`)).body.configs.map((c: { id: string }) => c.id),
      ['hook-1', 'hook-2'],
    );
    assert.equal((await rest('DELETE', `/tasks/${taskId}/pushNotificationConfigs/hook-2`)).status, 204);
    assert.deepEqual(
      (await call('ListTaskPushNotificationConfigs', { taskId })).body.result.configs.map((c: { id: string }) => c.id),
      ['hook-1'],
    );
    for (let i = 0; i < 9; i++)
      assert.ok(
        (await call('CreateTaskPushNotificationConfig', { taskId, id: `spare-${i}`, url: `${url}?spare=${i}` })).body
          .result,
      );
    const eleventh = (await call('CreateTaskPushNotificationConfig', { taskId, id: 'one-too-many', url })).body.error;
    assert.equal(eleventh.code, -32602, 'at most 10 per task');
    assert.match(JSON.stringify(eleventh.data), /too_many_push_configs/);
    for (let i = 0; i < 9; i++) await call('DeleteTaskPushNotificationConfig', { taskId, id: `spare-${i}` });

    // The state changes reach the webhook: input-required now, completed after the reply.
    const posted = () =>
      received
        .filter((r) => r.headers['x-a2a-notification-token'] === 'tok-1')
        .map((r) => JSON.parse(r.body).task.status.state as string);
    for (let i = 0; i < 100 && !posted().includes('TASK_STATE_INPUT_REQUIRED'); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(posted()[0], 'TASK_STATE_INPUT_REQUIRED', JSON.stringify(posted()));
    const replied = await call('SendMessage', {
      message: {
        messageId: `conf-push-reply-${process.pid}`,
        role: 'ROLE_USER',
        taskId,
        parts: [{ data: { order_id: 21 } }],
      },
    });
    assert.equal(replied.body.result.task.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(replied.body));
    for (let i = 0; i < 100 && !posted().includes('TASK_STATE_COMPLETED'); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(posted().at(-1), 'TASK_STATE_COMPLETED', JSON.stringify(posted()));
    assert.equal(new Set(posted()).size, posted().length, 'each change posted once');
    const last = received.filter((r) => r.headers['x-a2a-notification-token'] === 'tok-1').at(-1)!;
    const verified = new Webhook(callerSecret).verify(last.body, last.headers as Record<string, string>) as {
      task: { id: string; artifacts: { parts: { data: unknown }[] }[] };
    };
    assert.equal(verified.task.id, taskId, 'signed with the caller secret, as reply_to is');
    assert.deepEqual(verified.task.artifacts[0]!.parts[0]!.data, { refund_id: 'r-21', turn: 2 });
    for (
      let i = 0;
      i < 50 && (await call('ListTaskPushNotificationConfigs', { taskId })).body.result.configs?.length;
      i++
    )
      await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(
      (await call('ListTaskPushNotificationConfigs', { taskId })).body.result.configs ?? [],
      [],
      "an ended task's configs go once its end is posted",
    );
  });
});
