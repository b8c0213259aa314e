import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gatewayCard, publicAgentCard, publicGatewayCard } from '../../api/a2a/cards';
import { envelopeProblem } from '../../api/a2a/face';
import { cursorOf, DEFAULT_PAGE_SIZE, listingOf, MAX_PAGE_SIZE, pageTokenOf } from '../../api/a2a/list-tasks';
import { Message, Task } from '../../api/a2a/sdk';
import { reachIdOf, sendBodyOf, targetOf, traceIdOfContext } from '../../api/a2a/send';
import { historyOf, TASK_STATE_OF, taskOf } from '../../api/a2a/task';
import { messagePageQuery } from '../../messages/list';
import { cardFields } from '../../catalogue/card';
import { MESSAGE_STATES, type MessageStatus } from '../../messages/message';
import type { AgentDoc } from '../../store/agents';

type Sdk = typeof import('@a2a-js/sdk', { with: { 'resolution-mode': 'import' } });
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ListTasksRequest } = require('@a2a-js/sdk') as Sdk;

function status(overrides: Partial<MessageStatus>): MessageStatus {
  return {
    message_id: 'm-1',
    trace_id: '0af7651916cd43dd8448eb211c80319c',
    tenant: 'default',
    state: 'accepted',
    target: { agent_id: 'agt_1', capability: 'refund' },
    attempts: [],
    accepted_at: '2026-12-01T10:00:00.000Z',
    updated_at: '2026-12-01T10:00:01.000Z',
    ...overrides,
  };
}

/** A SendMessage request as the SDK's JSON-RPC transport hands it over (v1.0 JSON parsed by the SDK). */
function request(message: Record<string, unknown>, metadata?: Record<string, unknown>) {
  return {
    tenant: '',
    configuration: undefined,
    metadata,
    message: Message.fromJSON({ messageId: 'a2a-1', role: 'ROLE_USER', ...message }),
  };
}

function agent(name: string, capabilities: Parameters<typeof cardFields>[0]['capabilities'], id = 'agt_1'): AgentDoc {
  return {
    _id: id,
    tenant: 'default',
    revision: 1,
    secret_hash: 'x',
    created_at: new Date(),
    updated_at: new Date(),
    ...cardFields({ name, capabilities }),
  };
}

describe('a2a face', () => {
  it('a2a face - every message state has an A2A task state: accepted..delivering submitted, delivered working, then the ends', () => {
    assert.deepEqual(Object.keys(TASK_STATE_OF).sort(), [...MESSAGE_STATES].sort());
    assert.equal(TASK_STATE_OF.delivering, 'TASK_STATE_SUBMITTED');
    assert.equal(TASK_STATE_OF.delivered, 'TASK_STATE_WORKING');
    assert.equal(TASK_STATE_OF.processed, 'TASK_STATE_COMPLETED');
    assert.equal(TASK_STATE_OF.expired, 'TASK_STATE_FAILED');
    assert.equal(TASK_STATE_OF.rejected, 'TASK_STATE_REJECTED');
    assert.equal(TASK_STATE_OF.cancelled, 'TASK_STATE_CANCELED');
  });

  it('a2a face - a processed message is a completed task whose artifact is the result (text as text, else data)', () => {
    const task = taskOf(status({ state: 'processed', result: { refund_id: 'r-1' } }));
    assert.equal(task.id, 'm-1');
    assert.deepEqual(task.artifacts, [
      { artifactId: 'result', name: 'result', parts: [{ data: { refund_id: 'r-1' }, mediaType: 'application/json' }] },
    ]);
    const text = taskOf(status({ state: 'processed', result: 'done' }));
    assert.deepEqual((text.artifacts as { parts: unknown[] }[])[0]!.parts, [{ text: 'done', mediaType: 'text/plain' }]);
    assert.ok(!('artifacts' in taskOf(status({ state: 'processed' }))), 'no result, no artifact');
    // The SDK's own codec reads it back unchanged.
    assert.deepEqual(Task.toJSON(Task.fromJSON(task)), task);
  });

  it('a2a face - a rejected message says why in its status message and metadata (input_required names what is missing)', () => {
    const reason = { code: 'input_required' as const, message: 'refund needs order_id', missing: ['order_id'] };
    const task = taskOf(status({ state: 'rejected', target: { agent_id: 'agt_1', capability: '' }, reason }));
    const taskStatus = task.status as { state: string; message: { parts: Record<string, unknown>[] } };
    assert.equal(taskStatus.state, 'TASK_STATE_REJECTED');
    assert.deepEqual(taskStatus.message.parts, [
      { text: 'refund needs order_id', mediaType: 'text/plain' },
      { data: reason, mediaType: 'application/json' },
    ]);
    assert.deepEqual(task.metadata, { state: 'rejected', trace_id: '0af7651916cd43dd8448eb211c80319c', reason });
    assert.deepEqual(Task.toJSON(Task.fromJSON(task)), task);
  });

  it("a2a face - a failed message carries the agent's error", () => {
    const task = taskOf(
      status({
        state: 'failed',
        reason: { code: 'agent_failed', message: 'closed' },
        error: { code: 'ledger_closed', message: 'closed' },
      }),
    );
    const parts = (task.status as { message: { parts: { data?: unknown }[] } }).message.parts;
    assert.deepEqual(parts[1]!.data, {
      code: 'agent_failed',
      message: 'closed',
      error: { code: 'ledger_closed', message: 'closed' },
    });
  });

  it('a2a face - text parts are the intent, object data parts the params, other data the payload, the context the session', () => {
    const body = sendBodyOf(
      request({
        contextId: 'ctx-1',
        parts: [{ text: 'refund order' }, { text: '1042' }, { data: { order_id: 1042 } }, { data: [1, 2] }],
      }),
      {},
    );
    assert.deepEqual(body, {
      message_id: 'a2a-1',
      intent: 'refund order\n1042',
      params: { order_id: 1042 },
      payload: [1, 2],
      session_id: 'ctx-1',
    });
  });

  it('a2a face - the skill is named in the message metadata (or the request metadata): agent/capability, or agent_id and capability', () => {
    assert.deepEqual(sendBodyOf(request({ parts: [{ data: {} }], metadata: { skill: 'agt_1/refund' } }), {}).target, {
      agent_id: 'agt_1',
      capability: 'refund',
    });
    assert.deepEqual(
      sendBodyOf(request({ parts: [{ data: {} }] }, { agent_id: 'agt_1', capability: 'refund' }), {}).target,
      { agent_id: 'agt_1', capability: 'refund' },
    );
    assert.deepEqual(
      sendBodyOf(request({ parts: [{ text: 'hi' }], metadata: { skill: 'route' } }), {}).target,
      undefined,
    );
    assert.deepEqual(
      targetOf({ agent_id: 'agt_1' }, {}),
      { agent_id: 'agt_1' },
      'an agent without a capability: routed among its capabilities',
    );
    assert.throws(() => targetOf({ skill: 'refund' }, {}), { name: 'RequestMalformedError' });
    assert.throws(() => targetOf({ skill: 5 }, {}), { name: 'RequestMalformedError' });
    assert.throws(() => targetOf({ capability: 'refund' }, {}), { name: 'RequestMalformedError' });
  });

  it("a2a face - at an agent's face, skills are its own ids and the agent is the target", () => {
    const scope = { agent: agent('pay', [{ name: 'refund' }]) };
    assert.deepEqual(targetOf({ skill: 'refund' }, scope), { agent_id: 'agt_1', capability: 'refund' });
    assert.deepEqual(targetOf({}, scope), { agent_id: 'agt_1' });
    assert.throws(() => targetOf({ skill: 'nope' }, scope), { name: 'RequestMalformedError' });
    assert.throws(() => targetOf({ agent_id: 'agt_2' }, scope), { name: 'RequestMalformedError' });
  });

  it('a2a face - refusals: no text and no skill, a file part, a context id we cannot keep as it is', () => {
    assert.throws(() => sendBodyOf(request({ parts: [{ data: { a: 1 } }] }), {}), { name: 'RequestMalformedError' });
    assert.throws(
      () => sendBodyOf(request({ parts: [{ url: 'https://x/y.pdf', mediaType: 'application/pdf' }] }), {}),
      { name: 'ContentTypeNotSupportedError' },
    );
    assert.throws(() => sendBodyOf(request({ contextId: 'a/b c', parts: [{ text: 'more' }] }), {}), {
      name: 'RequestMalformedError',
    });
    assert.equal(sendBodyOf(request({ contextId: 'ctx-1', parts: [{ text: 'more' }] }), {}).session_id, 'ctx-1');
    assert.throws(
      () => sendBodyOf({ tenant: '', configuration: undefined, metadata: undefined, message: undefined }, {}),
      { name: 'RequestMalformedError' },
    );
  });

  it('a2a face - an A2A id that is not one of ours becomes a stable digest', () => {
    assert.equal(reachIdOf('3f2c-uuid'), '3f2c-uuid');
    assert.equal(reachIdOf('a/b c'), reachIdOf('a/b c'));
    assert.match(reachIdOf('a/b c'), /^a2a-[0-9a-f]{40}$/);
    assert.notEqual(reachIdOf('a/b c'), reachIdOf('a/b d'));
  });

  it("a2a face - the gateway's card: public with the route skill; with a key, every capability the key may reach", () => {
    const pub = publicGatewayCard('https://reach.example.com');
    assert.deepEqual(
      (pub.skills as { id: string }[]).map((s) => s.id),
      ['route'],
    );
    assert.equal((pub.capabilities as { extendedAgentCard: boolean }).extendedAgentCard, true);
    const agents = [
      agent('pay', [{ name: 'refund' }, { name: 'payout', acl: { scopes: ['payouts'] } }]),
      agent('ship', [{ name: 'track' }], 'agt_2'),
    ];
    const card = gatewayCard('https://reach.example.com', agents, {
      tenant: 'default',
      key_id: '000000000001',
      scopes: ['send'],
    });
    assert.deepEqual(
      card.skills.map((s) => (s as { id: string }).id),
      ['route', 'plan_and_run', 'agt_1/refund', 'agt_2/track'],
    );
    assert.equal((card.skills[2] as { name: string }).name, 'pay: refund');
    const payer = gatewayCard('https://reach.example.com', agents, {
      tenant: 'default',
      key_id: '000000000001',
      scopes: ['send', 'payouts'],
    });
    assert.ok(payer.skills.some((s) => (s as { id: string }).id === 'agt_1/payout'));
  });

  it('a2a face - JSON-RPC envelopes: what is no request object is named (Invalid Request), a valid one passes', () => {
    assert.equal(envelopeProblem({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: {} }), undefined);
    assert.equal(envelopeProblem({ jsonrpc: '2.0', method: 'GetTask' }), undefined, 'a notification has no id');
    assert.equal(envelopeProblem({ jsonrpc: '2.0', id: null, method: 'GetTask' }), undefined);
    for (const bad of [
      [],
      'x',
      7,
      null,
      { jsonrpc: '1.0', id: 1, method: 'GetTask' },
      { id: 1, method: 'GetTask' },
      { jsonrpc: '2.0', id: 1 },
      { jsonrpc: '2.0', id: 1, method: '' },
      { jsonrpc: '2.0', id: 1, method: 5 },
      { jsonrpc: '2.0', id: { bad: 1 }, method: 'GetTask' },
      { jsonrpc: '2.0', id: 1.5, method: 'GetTask' },
    ]) {
      assert.ok(envelopeProblem(bad), JSON.stringify(bad));
    }
  });

  it("a2a face - a task's context: the caller's (its session), else the trace; history cut from the end", () => {
    const ended = status({ state: 'rejected', reason: { code: 'no_route', message: 'nothing fits' } });
    assert.equal(taskOf(ended).contextId, ended.trace_id);
    const inContext = status({ ...ended, session_id: 'ctx-1' });
    assert.equal(taskOf(inContext).contextId, 'ctx-1');
    assert.equal(taskOf(inContext).history, undefined, 'no history unless asked');
    const history = historyOf(inContext, { intent: 'refund order 5', params: { order_id: 5 } });
    assert.deepEqual(
      history.map((m) => m.role),
      ['ROLE_USER', 'ROLE_AGENT'],
    );
    assert.deepEqual(history[0]!.parts, [
      { text: 'refund order 5', mediaType: 'text/plain' },
      { data: { order_id: 5 }, mediaType: 'application/json' },
    ]);
    assert.ok(history.every((m) => m.contextId === 'ctx-1' && m.taskId === 'm-1'));
    const task = Task.fromJSON(taskOf(inContext, { history: history.slice(-1) }));
    assert.equal(task.history.length, 1);
    assert.equal(task.history[0]!.messageId, 'm-1:rejected');
    const done = status({ state: 'processed', result: { ok: true } });
    assert.equal(
      taskOf(done, { artifacts: false }).artifacts,
      undefined,
      'ListTasks leaves artifacts out unless asked',
    );
    assert.equal((taskOf(done).artifacts as unknown[]).length, 1);
  });

  it('a2a face - a task waiting for input: state input-required, the question as its status message, the conversation as its history', () => {
    const input = { message: 'Which order?', schema: { type: 'object', required: ['order_id'] } };
    const turns = [
      { role: 'agent' as const, message: 'Which order?', at: '2026-12-01T10:00:01Z' },
      { role: 'caller' as const, params: { order_id: 5 }, a2a_message_id: 'reply-1', at: '2026-12-01T10:00:02Z' },
      { role: 'agent' as const, ...input, at: '2026-12-01T10:00:03Z' },
    ];
    const waiting = status({ state: 'input_required', input_required: input, turns, session_id: 'ctx-1' });
    const task = Task.fromJSON(taskOf(waiting, { history: historyOf(waiting, { intent: 'refund my order' }) }));
    assert.equal(
      Task.toJSON(task) && (Task.toJSON(task) as { status: { state: string } }).status.state,
      'TASK_STATE_INPUT_REQUIRED',
    );
    const json = taskOf(waiting) as {
      status: { message: { role: string; parts: { text?: string; data?: unknown }[] } };
    };
    assert.equal(json.status.message.role, 'ROLE_AGENT');
    assert.equal(json.status.message.parts[0]!.text, 'Which order?');
    assert.deepEqual(json.status.message.parts[1]!.data, { schema: input.schema });
    assert.deepEqual(
      task.history.map((m) => m.messageId),
      ['m-1', 'm-1:turn-message-1', 'reply-1', 'm-1:turn-message-3'],
      'the question is in the history once',
    );
  });

  it('a2a face - the trace of a context: a trace id stays itself, any other context id a digest within the tenant', () => {
    assert.equal(traceIdOfContext('t1', '0af7651916cd43dd8448eb211c80319c'), '0af7651916cd43dd8448eb211c80319c');
    assert.match(traceIdOfContext('t1', 'ctx-1'), /^[0-9a-f]{32}$/);
    assert.equal(traceIdOfContext('t1', 'ctx-1'), traceIdOfContext('t1', 'ctx-1'));
    assert.notEqual(traceIdOfContext('t1', 'ctx-1'), traceIdOfContext('t2', 'ctx-1'));
    assert.notEqual(traceIdOfContext('t1', '00000000000000000000000000000000'), '00000000000000000000000000000000');
  });

  it('a2a face - ListTasks: filters as a visibility query, bounds checked, page tokens only for the query they came with', () => {
    const list = (params: Record<string, unknown>, agentId?: string) =>
      listingOf(ListTasksRequest.fromJSON(params), 't1', agentId);
    const plain = list({});
    assert.equal(plain.pageSize, DEFAULT_PAGE_SIZE);
    assert.equal(plain.includeArtifacts, false);
    assert.equal(messagePageQuery('t1', plain.filter), "ReachTenant = 't1'");
    const working = list(
      {
        status: 'TASK_STATE_WORKING',
        contextId: 'ctx-1',
        pageSize: 2,
        historyLength: 3,
        includeArtifacts: true,
        statusTimestampAfter: '2026-12-01T10:00:00Z',
      },
      'agt_1',
    );
    assert.equal(working.state, 'TASK_STATE_WORKING');
    assert.equal(working.contextId, 'ctx-1');
    assert.equal(working.historyLength, 3);
    assert.equal(
      messagePageQuery('t1', working.filter),
      `ReachTenant = 't1' AND ExecutionStatus = 'Running' AND ReachAgent = 'agt_1' AND ReachTraceId = '${traceIdOfContext('t1', 'ctx-1')}' AND (ExecutionStatus = 'Running' OR CloseTime >= '2026-12-01T10:00:00.000Z')`,
    );
    assert.equal(
      messagePageQuery('t1', list({ status: 'TASK_STATE_FAILED' }).filter),
      "ReachTenant = 't1' AND ReachState IN ('failed', 'expired')",
    );
    assert.equal(
      messagePageQuery('t1', list({ status: 'TASK_STATE_INPUT_REQUIRED' }).filter),
      "ReachTenant = 't1' AND ReachState IN ('input_required') AND ExecutionStatus = 'Running'",
      'a task waiting for input',
    );
    assert.equal(list({ status: 'TASK_STATE_AUTH_REQUIRED' }).none, true, 'no task here waits for authorisation');
    for (const bad of [
      { pageSize: 0 },
      { pageSize: -1 },
      { pageSize: MAX_PAGE_SIZE + 1 },
      { pageSize: 1.5 },
      { status: 'INVALID_STATUS' },
      { historyLength: -1 },
      { statusTimestampAfter: '-1' },
      { statusTimestampAfter: '2026-13-45T00:00:00Z' },
      { contextId: 'a b' },
    ]) {
      assert.throws(() => list(bad), { name: 'RequestMalformedError' }, JSON.stringify(bad));
    }
    const query = messagePageQuery('t1', plain.filter);
    const keys = ['k'.repeat(43), 'old'.repeat(15)];
    const token = pageTokenOf(new Uint8Array([1, 2, 3]), query, keys[0]);
    assert.deepEqual([...cursorOf(token, query, keys)!], [1, 2, 3]);
    assert.deepEqual([...cursorOf(token, query, [keys[1]!, keys[0]!])!], [1, 2, 3], 'after a rotation too');
    assert.equal(pageTokenOf(new Uint8Array(), query, keys[0]), '', 'the last page has an empty token');
    assert.equal(cursorOf('', query, keys), undefined);
    assert.throws(
      () => cursorOf(token, messagePageQuery('t2', plain.filter), keys),
      { name: 'RequestMalformedError' },
      'another query',
    );
    // A cursor the caller made up, with the right query digest but no MAC of ours, never reaches Temporal.
    const madeUp = pageTokenOf(new Uint8Array([9, 9, 9]), query);
    assert.throws(() => cursorOf(madeUp, query, keys), { name: 'RequestMalformedError' }, 'made up');
    assert.throws(() => cursorOf(token, query, [keys[1]!]), { name: 'RequestMalformedError' }, 'a key not ours');
    for (const bad of ['invalid-token-xyz', 'a b', 'x'.repeat(5000), Buffer.from('{"q":1}').toString('base64url')])
      assert.throws(() => cursorOf(bad, query, keys), { name: 'RequestMalformedError' });
  });

  it("a2a face - an agent's public card: the capabilities every caller may reach, without those marked private", () => {
    const pay = agent('pay', [
      { name: 'refund' },
      { name: 'payout', acl: { scopes: ['payouts'] } },
      { name: 'audit', private: true },
    ]);
    const card = publicAgentCard(pay, 'https://reach.example.com');
    assert.deepEqual(
      (card.skills as { id: string }[]).map((s) => s.id),
      ['refund'],
    );
    assert.equal(
      (card.capabilities as { extendedAgentCard: boolean }).extendedAgentCard,
      true,
      'the rest is on the extended card',
    );
    assert.deepEqual(
      (card.supportedInterfaces as { url: string }[])[0]!.url,
      'https://reach.example.com/a2a/agents/agt_1',
    );
    const hidden = agent('vault', [{ name: 'open', private: true }]);
    assert.deepEqual(
      (publicAgentCard(hidden, 'https://reach.example.com').skills as { id: string }[]).map((s) => s.id),
      ['route'],
      'a card keeps a skill: routing by intent',
    );
    assert.deepEqual(
      targetOf({ skill: 'route' }, { agent: hidden }),
      { agent_id: 'agt_1' },
      "which the agent's face takes",
    );
  });
});
