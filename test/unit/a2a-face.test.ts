import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gatewayCard, publicGatewayCard } from '../../api/a2a/cards';
import { Message, Task } from '../../api/a2a/sdk';
import { reachIdOf, sendBodyOf, targetOf } from '../../api/a2a/send';
import { TASK_STATE_OF, taskOf } from '../../api/a2a/task';
import { cardFields } from '../../catalogue/card';
import { MESSAGE_STATES, type MessageStatus } from '../../messages/message';
import type { AgentDoc } from '../../store/agents';

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
  return { tenant: '', configuration: undefined, metadata, message: Message.fromJSON({ messageId: 'a2a-1', role: 'ROLE_USER', ...message }) };
}

function agent(name: string, capabilities: Parameters<typeof cardFields>[0]['capabilities'], id = 'agt_1'): AgentDoc {
  return { _id: id, tenant: 'default', revision: 1, secret_hash: 'x', created_at: new Date(), updated_at: new Date(), ...cardFields({ name, capabilities }) };
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
    assert.deepEqual(task.artifacts, [{ artifactId: 'result', name: 'result', parts: [{ data: { refund_id: 'r-1' }, mediaType: 'application/json' }] }]);
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
    assert.deepEqual(taskStatus.message.parts, [{ text: 'refund needs order_id', mediaType: 'text/plain' }, { data: reason, mediaType: 'application/json' }]);
    assert.deepEqual(task.metadata, { state: 'rejected', trace_id: '0af7651916cd43dd8448eb211c80319c', reason });
    assert.deepEqual(Task.toJSON(Task.fromJSON(task)), task);
  });

  it("a2a face - a failed message carries the agent's error", () => {
    const task = taskOf(status({ state: 'failed', reason: { code: 'agent_failed', message: 'closed' }, error: { code: 'ledger_closed', message: 'closed' } }));
    const parts = (task.status as { message: { parts: { data?: unknown }[] } }).message.parts;
    assert.deepEqual(parts[1]!.data, { code: 'agent_failed', message: 'closed', error: { code: 'ledger_closed', message: 'closed' } });
  });

  it('a2a face - text parts are the intent, object data parts the params, other data the payload, the context the session', () => {
    const body = sendBodyOf(request({ contextId: 'ctx-1', parts: [{ text: 'refund order' }, { text: '1042' }, { data: { order_id: 1042 } }, { data: [1, 2] }] }), {});
    assert.deepEqual(body, { message_id: 'a2a-1', intent: 'refund order\n1042', params: { order_id: 1042 }, payload: [1, 2], session_id: 'ctx-1' });
  });

  it('a2a face - the skill is named in the message metadata (or the request metadata): agent/capability, or agent_id and capability', () => {
    assert.deepEqual(sendBodyOf(request({ parts: [{ data: {} }], metadata: { skill: 'agt_1/refund' } }), {}).target, { agent_id: 'agt_1', capability: 'refund' });
    assert.deepEqual(sendBodyOf(request({ parts: [{ data: {} }] }, { agent_id: 'agt_1', capability: 'refund' }), {}).target, { agent_id: 'agt_1', capability: 'refund' });
    assert.deepEqual(sendBodyOf(request({ parts: [{ text: 'hi' }], metadata: { skill: 'route' } }), {}).target, undefined);
    assert.deepEqual(targetOf({ agent_id: 'agt_1' }, {}), { agent_id: 'agt_1' }, 'an agent without a capability: routed among its capabilities');
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

  it('a2a face - refusals: no text and no skill, a file part, a message continuing a task', () => {
    assert.throws(() => sendBodyOf(request({ parts: [{ data: { a: 1 } }] }), {}), { name: 'RequestMalformedError' });
    assert.throws(() => sendBodyOf(request({ parts: [{ url: 'https://x/y.pdf', mediaType: 'application/pdf' }] }), {}), { name: 'ContentTypeNotSupportedError' });
    assert.throws(() => sendBodyOf(request({ taskId: 'm-0', parts: [{ text: 'more' }] }), {}), { name: 'UnsupportedOperationError' });
    assert.throws(() => sendBodyOf({ tenant: '', configuration: undefined, metadata: undefined, message: undefined }, {}), { name: 'RequestMalformedError' });
  });

  it('a2a face - an A2A id that is not one of ours becomes a stable digest', () => {
    assert.equal(reachIdOf('3f2c-uuid'), '3f2c-uuid');
    assert.equal(reachIdOf('a/b c'), reachIdOf('a/b c'));
    assert.match(reachIdOf('a/b c'), /^a2a-[0-9a-f]{40}$/);
    assert.notEqual(reachIdOf('a/b c'), reachIdOf('a/b d'));
  });

  it("a2a face - the gateway's card: public with the route skill; with a key, every capability the key may reach", () => {
    const pub = publicGatewayCard('https://reach.example.com');
    assert.deepEqual((pub.skills as { id: string }[]).map((s) => s.id), ['route']);
    assert.equal((pub.capabilities as { extendedAgentCard: boolean }).extendedAgentCard, true);
    const agents = [agent('pay', [{ name: 'refund' }, { name: 'payout', acl: { scopes: ['payouts'] } }]), agent('ship', [{ name: 'track' }], 'agt_2')];
    const card = gatewayCard('https://reach.example.com', agents, { tenant: 'default', key_id: '000000000001', scopes: ['send'] });
    assert.deepEqual(card.skills.map((s) => (s as { id: string }).id), ['route', 'agt_1/refund', 'agt_2/track']);
    assert.equal((card.skills[1] as { name: string }).name, 'pay: refund');
    const payer = gatewayCard('https://reach.example.com', agents, { tenant: 'default', key_id: '000000000001', scopes: ['send', 'payouts'] });
    assert.ok(payer.skills.some((s) => (s as { id: string }).id === 'agt_1/payout'));
  });
});
