/**
 * A chain planned from one free-text request (`POST /v1/chains/plan`, docs/chains.md "Planning a chain") and run,
 * against a real Temporal dev server and FerretDB, the real worker and api in process, and a scriptable HTTP agent
 * serving an order desk's capabilities: a condition that skips a step, a value passed by `$ref`, a corrected plan
 * whose failing step compensates, and the caller's `reply_to` getting the aggregate.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { eventually } from '../helpers/eventually';
import { startFakeAgent, type Behaviour, type Delivery, type FakeAgent } from '../helpers/fake-agent';
import { request } from '../helpers/http';
import type { TestSystem } from '../helpers/system';
import { startSystemWithAgent, type SystemWithAgent } from '../helpers/system-with-agent';
import { newSigningSecret } from '../../rules/signing';

let world: SystemWithAgent | undefined;
let system: TestSystem;
let agent: FakeAgent;
let agentId: string;
const callerSecret = newSigningSecret();

const object = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
});
const ORDER_STATES = ['pending_payment', 'pending_shipment', 'shipped', 'delivered', 'cancelled'];
const CAPABILITIES = [
  {
    name: 'query_order_status',
    description:
      'Check the current status of an order: pending payment, pending shipment, shipped, delivered or cancelled',
    examples: ['check the status of order 123', 'has my order shipped yet'],
    parameters: object({ order_id: { type: 'string' } }, ['order_id']),
    returns: object({ status: { type: 'string', enum: ORDER_STATES } }),
  },
  {
    name: 'cancel_order',
    description: 'Cancel an order that has not shipped yet',
    examples: ['cancel my order', 'cancel order 123'],
    parameters: object({ order_id: { type: 'string' } }, ['order_id']),
    returns: object({ success: { type: 'boolean' } }),
  },
  {
    name: 'request_refund',
    description: 'Request a refund of the money paid for an order',
    examples: ['request a refund for order 123', 'I want my money back'],
    parameters: object({ order_id: { type: 'string' } }, ['order_id']),
    returns: object({ refund_id: { type: 'string' } }),
  },
  {
    name: 'query_refund_status',
    description: 'Check the progress of a refund request: reviewing, approved, completed or rejected',
    examples: ['check the refund status', 'where is my refund'],
    parameters: object({ refund_id: { type: 'string' } }, ['refund_id']),
    returns: object({ status: { type: 'string', enum: ['reviewing', 'approved', 'completed', 'rejected'] } }),
  },
  {
    name: 'cancel_refund_request',
    description: 'Withdraw a refund request that is not completed',
    examples: ['withdraw refund request RF1'],
    parameters: object({ refund_id: { type: 'string' } }, ['refund_id']),
  },
];

/** Refund status checks fail for these orders' refunds. */
const failingRefunds = new Set<string>();

const desk: Behaviour = (d) => {
  const params = (d.body.params ?? {}) as Record<string, string>;
  const processed = (result: unknown) => ({ status: 202, receipt: { status: 'processed' as const, result } });
  switch (d.body.capability) {
    case 'query_order_status':
      return processed({ status: 'shipped' });
    case 'request_refund':
      return processed({ refund_id: `RF-${params.order_id}` });
    case 'query_refund_status':
      if (failingRefunds.has(params.refund_id!))
        return { status: 202, receipt: { status: 'failed', error: { message: 'the refund ledger is unreachable' } } };
      return processed({ status: 'approved', refund_id: params.refund_id });
    default:
      return processed({ done: d.body.capability, params });
  }
};

const deliveriesOf = (chainId: string): Delivery[] =>
  agent.deliveries.filter((d) => d.body.message_id.startsWith(`${chainId}:`));

async function plan(body: Record<string, unknown>, query = '') {
  return request('POST', `${system.baseUrl}/v1/chains/plan${query}`, body);
}

type Notified = {
  type: string;
  data: {
    chain_id: string;
    state: string;
    results?: Record<string, unknown>;
    summary?: Record<string, unknown>;
    error?: { code: string; step?: string };
    steps: { id: string; state: string; result?: unknown; compensation?: { state: string } }[];
  };
};

async function notification(receiver: FakeAgent): Promise<Notified> {
  const delivery = await eventually('the reply_to notification', async () => receiver.deliveries[0], {
    timeoutMs: 60_000,
  });
  return new Webhook(callerSecret).verify(delivery.raw, delivery.headers as Record<string, string>) as Notified;
}

before(async () => {
  world = await startSystemWithAgent({
    env: { HEARTBEAT_TTL_MS: '3600000', CALLER_WEBHOOK_SECRET: callerSecret, CALLER_WEBHOOK_RETRY_INITIAL_MS: '100' },
    behaviour: desk,
    registration: { capabilities: CAPABILITIES },
  });
  ({ system, agent, agentId } = world);
});

after(() => world?.stop());

describe('chain plan', () => {
  it('chain plan - bad input is a 4xx with the error shape, and planning starts nothing', async () => {
    const missing = await plan({});
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.code, 'invalid_request');
    assert.equal((await plan({ intent: 'check order 1', extra: true })).status, 400);
    assert.equal((await plan({ intent: 'check order 1' }, '?run=maybe')).status, 400);
    const blank = await plan({ intent: '  ' });
    assert.equal(blank.status, 422);
    assert.equal(blank.body.error.code, 'intent_required');
    const before = agent.deliveries.length;
    const planned = await plan({ intent: 'Check the status of order 1, then cancel the order' });
    assert.equal(planned.status, 200, JSON.stringify(planned.body));
    assert.equal(planned.body.started, undefined);
    assert.equal(agent.deliveries.length, before);
  });

  it('chain plan - planned and run at once: the condition skips a step, a value is passed by $ref, reply_to gets the aggregate', async () => {
    const receiver = await startFakeAgent(() => ({ status: 204 }));
    try {
      const chainId = `planned-${Date.now()}`;
      const intent =
        'Check the status of order 20240901, and if it has not shipped yet, cancel the order, then request a refund for order 20240901, then check the refund status, then tell me the result';
      const answer = await plan({ intent, chain_id: chainId, reply_to: { url: receiver.url } }, '?run=true');
      assert.equal(answer.status, 202, JSON.stringify(answer.body));
      const { chain, steps, unplanned } = answer.body;
      assert.deepEqual(unplanned, []);
      assert.equal(answer.body.runnable, true);
      assert.equal(answer.body.started, true);
      assert.deepEqual(
        chain.steps.map((s: { target: { capability: string } }) => s.target.capability),
        ['query_order_status', 'cancel_order', 'request_refund', 'query_refund_status'],
      );
      assert.ok(
        chain.steps.every((s: { target: { agent_id: string } }) => s.target.agent_id === agentId),
        'every step pins the target the router chose',
      );
      assert.deepEqual(chain.input, { order_id: '20240901' });
      assert.deepEqual(chain.steps[1].when, {
        $ref: '/steps/s1/result/status',
        in: ['pending_payment', 'pending_shipment', 'cancelled'],
      });
      assert.deepEqual(chain.steps[3].input, { refund_id: { $ref: '/steps/s3/result/refund_id' } });
      assert.deepEqual(
        steps[1].carried,
        ['order_id'],
        'the order number named once reaches the step that only says "cancel the order"',
      );
      assert.equal(steps[0].text, 'Check the status of order 20240901');
      assert.ok(steps.every((s: { planner: string; accepted: boolean }) => s.planner === 'rules' && s.accepted));

      const ended = await notification(receiver);
      assert.equal(ended.type, 'chain.ended');
      assert.equal(ended.data.chain_id, chainId);
      assert.equal(ended.data.state, 'completed');
      assert.deepEqual(
        ended.data.steps.map((s) => [s.id, s.state]),
        [
          ['s1', 'completed'],
          ['s2', 'skipped'],
          ['s3', 'completed'],
          ['s4', 'completed'],
        ],
      );
      assert.deepEqual(ended.data.steps[3]!.result, { status: 'approved', refund_id: 'RF-20240901' });
      assert.deepEqual(
        chain.summary,
        { request: 'tell me the result' },
        'the last clause asks for the summary, not a step',
      );
      assert.deepEqual(ended.data.results, {
        s1: { status: 'shipped' },
        s3: { refund_id: 'RF-20240901' },
        s4: { status: 'approved', refund_id: 'RF-20240901' },
      });
      assert.deepEqual(ended.data.summary, {
        request: 'tell me the result',
        state: 'completed',
        completed: ['s1', 's3', 's4'],
        skipped: ['s2'],
        failed: [],
        not_run: [],
        text: 's1 query_order_status: completed\ns2: skipped\ns3 request_refund: completed\ns4 query_refund_status: completed',
      });
      const delivered = deliveriesOf(chainId);
      assert.deepEqual(
        delivered.map((d) => d.body.capability),
        ['query_order_status', 'request_refund', 'query_refund_status'],
      );
      assert.deepEqual(delivered[2]!.body.params, { refund_id: 'RF-20240901' });
    } finally {
      await receiver.stop();
    }
  });

  it('chain plan - a plan corrected by the caller (a compensation added) runs through POST /v1/chains: the failing step compensates', async () => {
    const receiver = await startFakeAgent(() => ({ status: 204 }));
    failingRefunds.add('RF-20240902');
    try {
      const answer = await plan({ intent: 'Request a refund for order 20240902, then check the refund status' });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.runnable, true);
      const chainId = `corrected-${Date.now()}`;
      const [refund, check] = answer.body.chain.steps;
      const corrected = {
        ...answer.body.chain,
        chain_id: chainId,
        reply_to: { url: receiver.url },
        steps: [
          {
            ...refund,
            compensate: {
              target: { agent_id: agentId, capability: 'cancel_refund_request' },
              input: { refund_id: { $ref: `/steps/${refund.id}/result/refund_id` } },
            },
          },
          { ...check, on_failure: 'compensate' },
        ],
      };
      const started = await request('POST', `${system.baseUrl}/v1/chains`, corrected);
      assert.equal(started.status, 202, JSON.stringify(started.body));
      const ended = await notification(receiver);
      assert.equal(ended.data.state, 'compensated');
      assert.equal(ended.data.error?.step, 's2');
      assert.deepEqual(
        ended.data.steps.map((s) => [s.id, s.state]),
        [
          ['s1', 'completed'],
          ['s2', 'failed'],
        ],
      );
      assert.equal(ended.data.steps[0]!.compensation?.state, 'completed');
      const undo = deliveriesOf(chainId).find((d) => d.body.message_id === `${chainId}:s1:compensate`);
      assert.equal(undo?.body.capability, 'cancel_refund_request');
      assert.deepEqual(undo?.body.params, { refund_id: 'RF-20240902' });
    } finally {
      failingRefunds.delete('RF-20240902');
      await receiver.stop();
    }
  });

  it('chain plan - what cannot be planned is said, and ?run=true does not start it', async () => {
    const answer = await plan(
      { intent: 'Check the status of order 20240903, then sing me a lullaby about penguins' },
      '?run=true',
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.started, false);
    assert.equal(answer.body.runnable, false);
    assert.deepEqual(
      answer.body.unplanned.map((u: { code: string; text: string }) => [u.code, u.text]),
      [['refused', 'sing me a lullaby about penguins']],
    );
    const asked = await plan({ intent: 'Cancel the order, then check the status of the order' });
    const required = asked.body.unplanned.filter((u: { code: string }) => u.code === 'input_required');
    assert.deepEqual(required[0].missing, ['order_id']);
    assert.deepEqual(required[0].schema, {
      type: 'object',
      properties: { order_id: { type: 'string' } },
      required: ['order_id'],
    });
    // The steps already read it from the chain input: the plan, posted as it is, is refused until the caller adds it.
    assert.deepEqual(
      asked.body.chain.steps.map((s: { input: unknown }) => s.input),
      [{ order_id: { $ref: '/input/order_id' } }, { order_id: { $ref: '/input/order_id' } }],
    );
    const asIs = await request('POST', `${system.baseUrl}/v1/chains`, {
      ...asked.body.chain,
      chain_id: `asked-as-is-${Date.now()}`,
    });
    assert.equal(asIs.status, 422, JSON.stringify(asIs.body));
    const completed = await request('POST', `${system.baseUrl}/v1/chains`, {
      ...asked.body.chain,
      chain_id: `asked-completed-${Date.now()}`,
      input: { order_id: '20240904' },
    });
    assert.equal(completed.status, 202, JSON.stringify(completed.body));
    const given = await plan({
      intent: 'Cancel the order, then check the status of the order',
      input: { order_id: '20240904' },
    });
    assert.deepEqual(given.body.unplanned, []);
    assert.deepEqual(
      given.body.chain.steps.map((s: { input: unknown }) => s.input),
      [{ order_id: { $ref: '/input/order_id' } }, { order_id: { $ref: '/input/order_id' } }],
    );
  });
});
