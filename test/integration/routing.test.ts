/**
 * The router through the live api: `POST /v1/route` dry runs, and messages sent with an intent and no capability,
 * against a real Temporal dev server and FerretDB. Uses the local models when `npm run models` has put them in
 * the cache (CI does), else the lexical matcher; the cases hold for both.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { routingStatsModel } from '../../store/routing-stats';
import { eventually } from '../helpers/eventually';
import { acceptAndConfirm, startFakeAgent, type Delivery, type FakeAgent } from '../helpers/fake-agent';
import { registerAgent, request } from '../helpers/http';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

let servers: TestServers;
let system: TestSystem;
let refunds: FakeAgent;
let weather: FakeAgent;
let refundAgentId: string;
let weatherAgentId: string;

before(async () => {
  servers = await startTestServers();
  system = await startSystem(servers, { ROUTER_PROVIDER: 'auto' });
  refunds = await startFakeAgent();
  weather = await startFakeAgent();
  const refund = await registerAgent(system.baseUrl, refunds.url, {
    name: 'refund-agent',
    tags: ['售后'],
    capabilities: [
      {
        name: 'request_refund',
        description: '申请退款：订单的钱退回给买家。Refund an order to the buyer.',
        tags: ['退款', 'refund'],
        examples: ['我要退款，订单2024090112', 'please refund order 2024090112'],
        parameters: {
          type: 'object',
          required: ['order_id'],
          properties: {
            order_id: { type: 'string', pattern: '^\\d{8,20}$' },
            amount: { type: 'number', description: '退款金额' },
          },
        },
      },
    ],
  });
  refundAgentId = refund.agent_id;
  refunds.secret = refund.secret;
  const forecast = await registerAgent(system.baseUrl, weather.url, {
    name: 'weather-agent',
    capabilities: [
      {
        name: 'forecast',
        description: 'Weather forecast for a city',
        tags: ['weather'],
        examples: ['will it rain tomorrow in Paris', '明天上海下雨吗'],
      },
    ],
  });
  weather.secret = forecast.secret;
  weatherAgentId = forecast.agent_id;
});

after(async () => {
  await refunds?.stop();
  await weather?.stop();
  await system?.stop();
  await servers?.stop();
});

describe('routing api', () => {
  it('routing api - POST /v1/route answers the decision and its explanation, and sends nothing', async () => {
    const response = await request('POST', `${system.baseUrl}/v1/route`, { intent: '订单2024090112要退款，退35元' });
    assert.equal(response.status, 200);
    assert.equal(response.body.kind, 'routed');
    assert.deepEqual(response.body.target, {
      agent_id: refundAgentId,
      capability: 'request_refund',
      instance_id: 'i1',
    });
    assert.deepEqual(response.body.params, { order_id: '2024090112', amount: 35 });
    // A trained head decides when the local models are present; plain lexical matching otherwise.
    assert.equal(
      response.body.explanation.decided_by,
      response.body.explanation.provider === 'lexical' ? 'match' : 'head',
    );
    assert.equal(response.body.explanation.candidates[0].key, `${refundAgentId}/request_refund`);
    assert.ok(response.body.explanation.candidates[0].match >= response.body.explanation.threshold);
    assert.equal(refunds.deliveries.length, 0);
  });

  it('routing api - GET /v1/router/status says how many examples the cards give the head, and which capabilities have few', async () => {
    const status = await request('GET', `${system.baseUrl}/v1/router/status`);
    assert.equal(status.status, 200);
    const [first, second] = [`${refundAgentId}/request_refund`, `${weatherAgentId}/forecast`].sort();
    assert.deepEqual(status.body.cards, {
      capabilities: 2,
      examples: { min: 2, median: 2, max: 2 },
      few_examples: {
        under: 10,
        count: 2,
        capabilities: [
          { capability: first, examples: 2 },
          { capability: second, examples: 2 },
        ],
      },
    });
  });

  it('routing api - a lesson taught through the api keeps nearly the same request away from that capability, once its head is ready', async (t) => {
    const intent = '明天巴黎下雨吗，我要不要退掉机票';
    const before = await request('POST', `${system.baseUrl}/v1/route`, { intent });
    if (!before.body.explanation.head)
      return t.skip('no head (lexical matching: `npm run models` has not fetched the local models)');
    const taught = await request('POST', `${system.baseUrl}/v1/router/misroutes`, {
      agent_id: before.body.target?.agent_id ?? weatherAgentId,
      capability: before.body.target?.capability ?? 'forecast',
      text: intent,
    });
    assert.equal(taught.status, 201);
    assert.equal(taught.body.state, 'applied');
    const key = `${taught.body.capability}`;
    const after = await eventually(
      'the lesson to reach a ready head',
      async () => {
        const r = await request('POST', `${system.baseUrl}/v1/route`, { intent });
        const target = r.body.target ? `${r.body.target.agent_id}/${r.body.target.capability}` : undefined;
        return target !== key ? r : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    assert.notEqual(
      after.body.target ? `${after.body.target.agent_id}/${after.body.target.capability}` : undefined,
      key,
    );
    // A request in other words still reaches the capability: a lesson is about one request, not a topic.
    const other = await request('POST', `${system.baseUrl}/v1/route`, { intent: 'will it rain tomorrow in Paris' });
    assert.equal(other.body.target?.capability, 'forecast');
    const bad = await request('POST', `${system.baseUrl}/v1/router/misroutes`, {
      agent_id: 'x',
      capability: 'forecast',
      text: '',
    });
    assert.equal(bad.status, 400);
  });

  it('routing api - refusals and bad bodies', async () => {
    const refused = await request('POST', `${system.baseUrl}/v1/route`, { intent: 'zzzz qqqq xxxx' });
    assert.equal(refused.status, 200);
    assert.equal(refused.body.kind, 'refused');
    assert.equal(refused.body.code, 'no_match');
    const empty = await request('POST', `${system.baseUrl}/v1/route`, {});
    assert.equal(empty.status, 400);
    assert.equal(empty.body.error.code, 'invalid_request');
    const unknown = await request('POST', `${system.baseUrl}/v1/route`, {
      target: { agent_id: 'agt_nobody', capability: 'x' },
    });
    assert.equal(unknown.body.code, 'unknown_agent');
  });

  it('routing api - a message with an intent only is routed, delivered with its parameters, and processed', async () => {
    refunds.behave(acceptAndConfirm);
    const messageId = `routed-${Date.now()}`;
    const sent = await request('POST', `${system.baseUrl}/v1/messages`, {
      message_id: messageId,
      intent: 'please refund order 2024090577 now',
    });
    assert.equal(sent.status, 202);
    assert.deepEqual(sent.body.target, { agent_id: refundAgentId, capability: 'request_refund' });
    assert.equal(sent.body.routing.decided_by, sent.body.routing.provider === 'lexical' ? 'match' : 'head');
    const status = await eventually('processed', async () => {
      const r = await request('GET', `${system.baseUrl}/v1/messages/${messageId}`);
      return r.body.state === 'processed' ? r.body : undefined;
    });
    assert.deepEqual(status.params, { order_id: '2024090577' });
    assert.equal(status.routing.explanation.candidates[0].key, `${refundAgentId}/request_refund`);
    const delivery = refunds.deliveries.find((d) => d.body.message_id === messageId)!;
    assert.deepEqual(delivery.body.params, { order_id: '2024090577' });
    assert.equal(delivery.body.capability, 'request_refund');
    // The attempt fed the ranking's record (written in batches by the worker).
    const stats = await eventually(
      'routing stats',
      async () =>
        (await routingStatsModel(system.mongo).findById(`${refundAgentId}/request_refund`).lean()) ?? undefined,
    );
    assert.ok(stats.successes >= 1);
    assert.equal(typeof stats.latency_ewma_ms, 'number');
  });

  it('routing api - missing required parameters: 422 input_required naming them, recorded as rejected', async () => {
    const messageId = `needs-input-${Date.now()}`;
    const sent = await request('POST', `${system.baseUrl}/v1/messages`, { message_id: messageId, intent: '我要退款' });
    assert.equal(sent.status, 422);
    assert.equal(sent.body.error.code, 'input_required');
    assert.deepEqual(sent.body.error.details.missing, ['order_id']);
    const status = await eventually('rejected', async () => {
      const r = await request('GET', `${system.baseUrl}/v1/messages/${messageId}`);
      return r.body?.state === 'rejected' ? r.body : undefined;
    });
    assert.equal(status.reason.code, 'input_required');
    assert.ok(!refunds.deliveries.some((d) => d.body.message_id === messageId));
    const again = await request('POST', `${system.baseUrl}/v1/messages`, { message_id: messageId, intent: '我要退款' });
    assert.equal(again.status, 200);
    assert.equal(again.body.state, 'rejected');
  });

  it('routing api - no capability fits: 422 no_route, nothing delivered', async () => {
    const sent = await request('POST', `${system.baseUrl}/v1/messages`, { intent: 'zzzz qqqq xxxx' });
    assert.equal(sent.status, 422);
    assert.equal(sent.body.error.code, 'no_route');
    assert.equal(sent.body.error.details.state, 'rejected');
    assert.ok(Array.isArray(sent.body.error.details.routing.candidates));
  });

  it('routing api - a capability behind an ACL is ineligible for callers it does not admit, and reached by those it does', async () => {
    const routerStatus = async () => (await request('GET', `${system.baseUrl}/v1/router/status`)).body;
    const previous = (await routerStatus()).serving?.revision;
    const guarded = await registerAgent(system.baseUrl, refunds.url, {
      name: 'payout-agent',
      capabilities: [
        {
          name: 'payout',
          description: 'Pay out a merchant settlement 商户结算打款',
          tags: ['payout', '结算'],
          examples: ['pay out the settlement to the merchant'],
          acl: { scopes: ['payouts'] },
        },
      ],
    });
    const created = await request('POST', `${system.baseUrl}/v1/keys`, {
      scopes: ['send', 'payouts'],
      name: 'payouts',
    });
    assert.equal(created.status, 201);
    // The new card's head decides: until it is ready the previous head answers what it accepts, and it may take the
    // request for a capability it knows (docs/routing.md, "Meanwhile").
    await eventually(
      "the new catalogue's head",
      async () => {
        const now = await routerStatus();
        return now.state === 'none' || (now.state === 'ready' && now.serving?.revision !== previous) ? now : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    const intent = 'pay out the merchant settlement 结算打款';
    const asAdmin = await request('POST', `${system.baseUrl}/v1/route`, { intent });
    assert.equal(asAdmin.body.kind, 'refused');
    assert.equal(asAdmin.body.code, 'no_eligible_capability');
    assert.match(asAdmin.body.explanation.candidates[0].reason, /^not_permitted: .*payouts/);
    const allowed = await request(
      'POST',
      `${system.baseUrl}/v1/route`,
      { intent },
      { authorization: `Bearer ${created.body.key}` },
    );
    assert.equal(allowed.body.kind, 'routed');
    assert.deepEqual(allowed.body.target, { agent_id: guarded.agent_id, capability: 'payout', instance_id: 'i1' });
  });

  it('routing api - an agent answers misrouted: a message sent to that capability by name ends misrouted; none is ever sent there again', async () => {
    refunds.behave(() => ({ status: 202, receipt: { status: 'misrouted' } }));
    const named = `named-misrouted-${Date.now()}`;
    await request('POST', `${system.baseUrl}/v1/messages`, {
      message_id: named,
      target: { agent_id: refundAgentId, capability: 'request_refund' },
      params: { order_id: '2024090599' },
    });
    const status = await eventually('failed', async () => {
      const r = await request('GET', `${system.baseUrl}/v1/messages/${named}`);
      return r.body.state === 'failed' ? r.body : undefined;
    });
    assert.equal(status.reason.code, 'misrouted');
    assert.deepEqual(status.misrouted, [`${refundAgentId}/request_refund`]);
    assert.equal(refunds.deliveries.filter((d) => d.body.message_id === named).length, 1);
  });

  it('routing api - an agent answers misrouted: a message routed by intent goes to the next capability, and the report is kept', async (t) => {
    refunds.behave(acceptAndConfirm);
    const probe = await request('POST', `${system.baseUrl}/v1/route`, { intent: 'please refund order 2024090588 now' });
    if (!probe.body.explanation.head)
      return t.skip('no head (lexical matching: `npm run models` has not fetched the local models)');
    // A second agent offering the same refund service: the next choice when the first says the message is not for it.
    const other = await startFakeAgent();
    try {
      const replica = await registerAgent(system.baseUrl, other.url, {
        name: 'refund-agent-b',
        capabilities: [
          {
            name: 'request_refund',
            description: '申请退款：订单的钱退回给买家。Refund an order to the buyer.',
            tags: ['退款', 'refund'],
            examples: ['我要退款，订单2024090112', 'please refund order 2024090112'],
            parameters: {
              type: 'object',
              required: ['order_id'],
              properties: { order_id: { type: 'string', pattern: '^\\d{8,20}$' } },
            },
          },
        ],
      });
      other.secret = replica.secret;
      const replicaKey = `${replica.agent_id}/request_refund`;
      await eventually(
        'a head that knows the second agent',
        async () => {
          const r = await request('POST', `${system.baseUrl}/v1/route`, {
            intent: 'please refund order 2024090588 now',
          });
          return r.body.explanation.candidates?.some((c: { key: string }) => c.key === replicaKey) ? r : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 500 },
      );
      // Whichever agent gets the message first answers misrouted; the other processes it.
      const first = new Set<string>();
      const oneMisroutes = (d: Delivery) =>
        first.has(d.body.message_id)
          ? { status: 202, receipt: { status: 'processed' as const, result: 'refunded' } }
          : (first.add(d.body.message_id), { status: 202, receipt: { status: 'misrouted' as const } });
      refunds.behave(oneMisroutes);
      other.behave(oneMisroutes);
      const messageId = `misrouted-${Date.now()}`;
      const sent = await request('POST', `${system.baseUrl}/v1/messages`, {
        message_id: messageId,
        intent: 'please refund order 2024090588 now',
      });
      assert.equal(sent.status, 202);
      const firstKey = `${sent.body.target.agent_id}/${sent.body.target.capability}`;
      const status = await eventually(
        'processed',
        async () => {
          const r = await request('GET', `${system.baseUrl}/v1/messages/${messageId}`);
          return r.body.state === 'processed' || r.body.state === 'failed' ? r.body : undefined;
        },
        { timeoutMs: 60_000 },
      );
      assert.equal(status.state, 'processed', JSON.stringify(status.reason));
      assert.deepEqual(status.misrouted, [firstKey]);
      assert.notEqual(`${status.target.agent_id}/${status.target.capability}`, firstKey);
      assert.deepEqual(status.params, { order_id: '2024090588' });
      assert.equal(status.result, 'refunded');
      const reports = await request('GET', `${system.baseUrl}/v1/router/misroutes?state=pending`);
      const report = reports.body.items.find(
        (i: { capability: string; message_ids: string[] }) =>
          i.capability === firstKey && i.message_ids.includes(messageId),
      );
      assert.equal(report?.text, 'please refund order 2024090588 now');
    } finally {
      refunds.behave(acceptAndConfirm);
      await other.stop();
    }
  });
});
