/** The router end to end over an in-memory catalogue: lexical and fake-embedding matchers, fake LLM and sessions. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CombinedEmbedder } from '../../router/embeddings/combined-embedder';
import { normalize, type EmbeddingProvider } from '../../router/embeddings/provider';
import type { LlmAssistant } from '../../router/llm';
import { BoundedJudge } from '../../router/judge/bounded-judge';
import type { JudgeProvider } from '../../router/judge/question';
import type { FillRequest } from '../../router/params/fill-prompt';
import { lexicalMatcherFactory, semanticMatcherFactory } from '../../router/matcher';
import { Router, type RouterDeps } from '../../router/router';
import type { SessionStore } from '../../store/routing-sessions';
import { VectorCache } from '../../router/semantic-index';
import { agentFromCard } from '../../bench/lib/routing-data';

const refundSchema = {
  type: 'object',
  required: ['order_id'],
  properties: { order_id: { type: 'string', pattern: '^\\d{8,20}$' }, amount: { type: 'number', description: '金额' } },
};

function catalogue() {
  return [
    agentFromCard(
      {
        agent_id: 'refund-agent',
        name: 'refunds',
        description: '退款',
        tags: ['售后'],
        capabilities: [
          {
            name: 'request_refund',
            description: '申请退款：把钱退回给买家',
            tags: ['退款', 'refund'],
            examples: ['我要退款', 'refund my order'],
            parameters: refundSchema,
          },
          { name: 'refund_policy', description: '解释退款政策', tags: ['退款政策'], examples: ['七天无理由怎么退'] },
        ],
      },
      't',
    ),
    agentFromCard(
      {
        agent_id: 'weather-agent',
        name: 'weather',
        description: 'weather',
        tags: [],
        capabilities: [
          {
            name: 'forecast',
            description: 'Weather forecast for a city',
            tags: ['weather'],
            examples: ['will it rain tomorrow in Paris'],
          },
        ],
      },
      't',
    ),
  ];
}

function routerWith(overrides: Partial<RouterDeps> = {}) {
  const agents = catalogue();
  return new Router({
    agents: async () => agents,
    matcherFactory: lexicalMatcherFactory(),
    heartbeat: { intervalMs: 10_000, ttlMs: 3_600_000, graceWindows: 1 },
    openCircuits: async () => new Set(),
    stats: async () => new Map(),
    threshold: 0.2,
    ...overrides,
  });
}

const caller = { tenant: 't' };

describe('router', () => {
  it('router - routes an intent to the matching capability, with its parameters and an explanation', async () => {
    const decision = await routerWith().route({ tenant: 't', caller, intent: '订单2024090112要退款，退35元' });
    assert.equal(decision.kind, 'routed');
    assert.ok(decision.kind === 'routed');
    assert.deepEqual(decision.target, { agent_id: 'refund-agent', capability: 'request_refund', instance_id: 'i1' });
    assert.deepEqual(decision.params, { order_id: '2024090112', amount: 35 });
    assert.equal(decision.explanation.decided_by, 'match');
    assert.equal(decision.explanation.provider, 'lexical');
    assert.equal(decision.explanation.candidates[0]!.key, 'refund-agent/request_refund');
    assert.deepEqual(decision.explanation.candidates[0]!.rules, ['退款']);
    assert.deepEqual(decision.explanation.extraction, {
      method: 'heuristic',
      extracted: ['order_id', 'amount'],
      missing: [],
    });
  });

  it('router - refuses below the threshold rather than guess', async () => {
    const decision = await routerWith({ threshold: 0.5 }).route({ tenant: 't', caller, intent: '讲个笑话听听' });
    assert.equal(decision.kind, 'refused');
    assert.ok(decision.kind === 'refused' && decision.code === 'no_match');
    assert.equal(decision.explanation.decided_by, 'none');
  });

  it('router - asks for the required parameters the intent lacks', async () => {
    const decision = await routerWith().route({ tenant: 't', caller, intent: '我要退款' });
    assert.equal(decision.kind, 'input_required');
    assert.ok(decision.kind === 'input_required' && decision.missing.join() === 'order_id');
    const given = await routerWith().route({
      tenant: 't',
      caller,
      intent: '我要退款',
      params: { order_id: '2024090112' },
    });
    assert.equal(given.kind, 'routed');
  });

  it('router - an address read in part is kept, and the caller is asked for its missing fields by path', async () => {
    const addressSchema = {
      type: 'object',
      required: ['order_id', 'new_address'],
      properties: {
        order_id: { type: 'string', pattern: '^\\d{8,20}$' },
        new_address: {
          type: 'object',
          required: ['province', 'city', 'detail', 'receiver_name', 'receiver_phone'],
          properties: {
            province: { type: 'string', description: '省/直辖市' },
            city: { type: 'string', description: '城市' },
            detail: { type: 'string', description: '详细地址（街道、门牌号）', minLength: 4 },
            receiver_name: { type: 'string', description: '收件人姓名' },
            receiver_phone: { type: 'string', pattern: '^1[3-9]\\d{9}$', description: '中国大陆11位手机号' },
          },
        },
      },
    };
    const agents = [
      agentFromCard(
        {
          agent_id: 'orders',
          name: 'orders',
          description: '订单',
          tags: [],
          capabilities: [
            {
              name: 'change_shipping_address',
              description: '修改收货地址',
              tags: ['改地址', '收货地址'],
              examples: ['收货地址改一下'],
              parameters: addressSchema,
            },
          ],
        },
        't',
      ),
    ];
    const decision = await routerWith({ agents: async () => agents }).route({
      tenant: 't',
      caller,
      intent: '收件电话换成15012345678，收货地址也改一下，订单2024090200112233',
    });
    assert.equal(decision.kind, 'input_required');
    assert.ok(decision.kind === 'input_required');
    assert.deepEqual(decision.params, { order_id: '2024090200112233', new_address: { receiver_phone: '15012345678' } });
    assert.deepEqual(decision.missing, [
      'new_address.province',
      'new_address.city',
      'new_address.detail',
      'new_address.receiver_name',
    ]);
    assert.equal(decision.message, '还需要：省/直辖市；城市；详细地址（街道、门牌号）；收件人姓名');
  });

  it('router - an explicit target skips matching; an agent alone narrows it; unknown names are refused', async () => {
    const explicit = await routerWith().route({
      tenant: 't',
      caller,
      target: { agent_id: 'weather-agent', capability: 'forecast' },
    });
    assert.ok(explicit.kind === 'routed' && explicit.explanation.decided_by === 'explicit');
    const narrowed = await routerWith().route({
      tenant: 't',
      caller,
      intent: '退款政策是什么',
      target: { agent_id: 'refund-agent' },
    });
    assert.ok(narrowed.kind !== 'refused' && narrowed.target.capability === 'refund_policy');
    const unknown = await routerWith().route({ tenant: 't', caller, target: { agent_id: 'nobody', capability: 'x' } });
    assert.ok(unknown.kind === 'refused' && unknown.code === 'unknown_agent');
    const noCap = await routerWith().route({
      tenant: 't',
      caller,
      target: { agent_id: 'refund-agent', capability: 'x' },
    });
    assert.ok(noCap.kind === 'refused' && noCap.code === 'unknown_capability');
  });

  it('router - a matching capability that cannot take messages is named in the refusal', async () => {
    const router = routerWith({ openCircuits: async () => new Set(['refund-agent/i1']) });
    const decision = await router.route({ tenant: 't', caller, intent: '订单2024090112要退款' });
    assert.ok(decision.kind === 'refused' && decision.code === 'no_eligible_capability');
    assert.match(decision.message, /refund-agent\/request_refund.*circuit_open/);
    assert.equal(decision.explanation.candidates[0]!.eligible, false);
  });

  it('router - ACL reasons are shown to admins only', async () => {
    const acl = () => ({ allowed: false, reason: 'needs scope refunds' });
    const plain = await routerWith({ acl }).route({ tenant: 't', caller, intent: '订单2024090112要退款' });
    assert.equal(plain.explanation.candidates[0]!.reason, 'not_permitted');
    const admin = await routerWith({ acl, isAdmin: () => true }).route({
      tenant: 't',
      caller,
      intent: '订单2024090112要退款',
    });
    assert.equal(admin.explanation.candidates[0]!.reason, 'not_permitted: needs scope refunds');
  });

  it('router - the LLM decides only when nothing passes the threshold, and may refuse too', async () => {
    const asked: string[][] = [];
    const llm: LlmAssistant = {
      chooseCapability: async (_intent, shortlist) => {
        asked.push(shortlist.map((c) => c.key));
        return 'weather-agent/forecast';
      },
      extractParameters: async () => ({}),
    };
    const decision = await routerWith({ threshold: 0.99, llm }).route({
      tenant: 't',
      caller,
      intent: 'do I need an umbrella',
    });
    assert.ok(decision.kind === 'routed' && decision.explanation.decided_by === 'llm');
    assert.equal(decision.target.capability, 'forecast');
    assert.ok(asked[0]!.includes('weather-agent/forecast'));
    const confident = await routerWith({ threshold: 0.2, llm }).route({
      tenant: 't',
      caller,
      intent: '订单2024090112要退款',
    });
    assert.equal(confident.explanation.decided_by, 'match');
    assert.equal(asked.length, 1);
    const none = await routerWith({ threshold: 0.99, llm: { ...llm, chooseCapability: async () => null } }).route({
      tenant: 't',
      caller,
      intent: 'tell me a joke',
    });
    assert.ok(none.kind === 'refused' && none.explanation.llm?.chose === null);
  });

  it('router - the LLM fills required parameters the heuristics missed; invalid values and values the request does not state are dropped', async () => {
    const llm: LlmAssistant = {
      chooseCapability: async () => null,
      extractParameters: async () => ({ order_id: '2024090112', amount: 'lots' }),
    };
    const decision = await routerWith({ llm }).route({
      tenant: 't',
      caller,
      intent: '我上周那单要退款，单号是 2024.0901.12',
    });
    assert.ok(decision.kind === 'routed');
    assert.deepEqual(decision.params, { order_id: '2024090112' });
    assert.equal(decision.explanation.extraction?.method, 'llm');
    const invented = await routerWith({ llm }).route({ tenant: 't', caller, intent: '我上周那单要退款' });
    assert.ok(invented.kind === 'input_required');
    assert.deepEqual([invented.params, invented.missing], [{}, ['order_id']]);
  });

  it('router - a session sticks to its capability and instance while they stay eligible', async () => {
    const saved = new Map<string, { key: string; instance_id: string }>();
    const sessions: SessionStore = {
      get: async (t, s) => saved.get(`${t}/${s}`),
      set: async (t, s, v) => void saved.set(`${t}/${s}`, v),
    };
    const agents = catalogue();
    agents[0]!.instances.push({ ...agents[0]!.instances[0]!, _id: 'refund-agent/i2', instance_id: 'i2' });
    const router = routerWith({ sessions, agents: async () => agents });
    const first = await router.route({ tenant: 't', caller, intent: '订单2024090112要退款', session_id: 's1' });
    assert.ok(first.kind === 'routed' && first.target.instance_id === 'i1');
    saved.set('t/s1', { key: 'refund-agent/request_refund', instance_id: 'i2' });
    const again = await router.route({ tenant: 't', caller, intent: '订单2024090112还是要退款', session_id: 's1' });
    assert.ok(
      again.kind === 'routed' && again.target.instance_id === 'i2' && again.explanation.decided_by === 'session',
    );
    agents[0]!.instances[1]!.state = 'draining';
    const moved = await router.route({ tenant: 't', caller, intent: '订单2024090112还是要退款', session_id: 's1' });
    assert.ok(moved.kind === 'routed' && moved.target.instance_id === 'i1');
  });
});

/** Deterministic "embeddings": one dimension per known word, so similarity is word overlap. */
class WordEmbedder implements EmbeddingProvider {
  readonly id = 'words';
  calls = 0;
  embedded = 0;
  private readonly vocabulary = ['refund', 'money', 'weather', 'rain', 'city', 'order', 'joke'];

  private vector(text: string): Float32Array {
    const v = new Float32Array(this.vocabulary.length + 1);
    this.vocabulary.forEach((w, i) => (v[i] = text.toLowerCase().includes(w) ? 1 : 0));
    v[this.vocabulary.length] = 0.01;
    return normalize(v);
  }

  async embedDocuments(texts: string[]) {
    this.calls++;
    this.embedded += texts.length;
    return texts.map((t) => this.vector(t));
  }

  async embedQuery(text: string) {
    return this.vector(text);
  }
}

describe('semantic matching', () => {
  it('semantic matching - scores by embeddings, and embeds only capabilities that changed', async () => {
    const embedder = new WordEmbedder();
    const cache = new VectorCache();
    let agents = catalogue();
    const router = routerWith({
      matcherFactory: semanticMatcherFactory(embedder, cache),
      agents: async () => agents,
      threshold: 0.3,
    });
    const decision = await router.route({ tenant: 't', caller, intent: 'will it rain in my city' });
    assert.ok(decision.kind === 'routed' && decision.target.capability === 'forecast');
    assert.ok(decision.explanation.candidates[0]!.parts.prototype !== undefined);
    const firstBatch = embedder.embedded;
    await router.route({ tenant: 't', caller, intent: 'rain?' });
    assert.equal(embedder.embedded, firstBatch, 'same catalogue version: nothing embedded again');
    // A heartbeat-like change (a new catalogue copy, same card revisions) rebuilds nothing.
    agents = agents.map((a) => ({ ...a, instances: a.instances.map((i) => ({ ...i, state: 'busy' as const })) }));
    await router.route({ tenant: 't', caller, intent: 'rain?' });
    assert.equal(embedder.calls, 1, 'no card changed: the matcher is not rebuilt');
    agents[1]!.agent.capabilities[0]!.description = 'Weather forecast for any city, days ahead';
    agents = agents.map((a, i) => (i === 1 ? { ...a, agent: { ...a.agent, revision: a.agent.revision + 1 } } : a));
    await router.route({ tenant: 't', caller, intent: 'rain?' });
    assert.equal(embedder.embedded, firstBatch + 1, 'only the changed description is embedded');
  });

  it('semantic matching - a provider seen through the cache embeds each text once, for the index and a head alike', async () => {
    const embedder = new WordEmbedder();
    const cache = new VectorCache();
    const through = cache.through(embedder);
    await through.embedDocuments(['refund my order', 'weather tomorrow']);
    await cache.embed(through, ['refund my order', 'weather tomorrow', 'a new text']);
    assert.equal(embedder.embedded, 3);
    assert.equal(through.id, embedder.id);
  });

  it('semantic matching - the combined embedder weights the model of the query language', async () => {
    const zh = {
      id: 'zh',
      embedDocuments: async (t: string[]) => t.map(() => normalize(Float32Array.from([1, 0]))),
      embedQuery: async () => normalize(Float32Array.from([1, 0])),
    };
    const en = {
      id: 'en',
      embedDocuments: async (t: string[]) => t.map(() => normalize(Float32Array.from([0, 1]))),
      embedQuery: async () => normalize(Float32Array.from([1, 0])),
    };
    const combined = new CombinedEmbedder([
      { provider: zh, language: 'zh' },
      { provider: en, language: 'en' },
    ]);
    const [zhWeight, enWeight] = combined.weightsFor('退款');
    assert.ok(Math.abs(zhWeight! - 0.8) < 1e-9 && Math.abs(enWeight! - 0.2) < 1e-9);
    assert.equal(combined.id, 'zh+en');
    const [doc] = await combined.embedDocuments(['x']);
    const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
    // zh model: cos 1; en model: cos 0 → Chinese query 0.8, English query 0.2.
    assert.ok(Math.abs(dot(await combined.embedQuery('退款'), doc!) - 0.8) < 1e-6);
    assert.ok(Math.abs(dot(await combined.embedQuery('refund'), doc!) - 0.2) < 1e-6);
  });

  describe("parameters filled by the judge's model", () => {
    const returnSchema = {
      type: 'object',
      required: ['order_id', 'reason'],
      properties: {
        order_id: { type: 'string', pattern: '^\\d{8,20}$' },
        reason: { type: 'string', description: '退货原因' },
      },
    };
    const agents = [
      agentFromCard(
        {
          agent_id: 'returns',
          name: 'returns',
          description: '退货',
          tags: [],
          capabilities: [
            {
              name: 'request_return',
              description: '申请退货',
              tags: ['退货'],
              examples: ['我要退货'],
              parameters: returnSchema,
            },
          ],
        },
        't',
      ),
    ];
    function withFill(answer: Record<string, unknown>, fillTimeoutMs?: number) {
      const asked: FillRequest[] = [];
      const provider: JudgeProvider = {
        name: 'fake',
        judge: async () => 0.9,
        fill: async (request) => {
          asked.push(request);
          return answer;
        },
      };
      const judge = new BoundedJudge(provider, { timeoutMs: 1_000, ...(fillTimeoutMs ? { fillTimeoutMs } : {}) });
      return { router: routerWith({ agents: async () => agents, judge }), asked };
    }

    it('router - a required field the rules left empty is filled by the model, only that field, only as the request states it', async () => {
      const { router, asked } = withFill({ reason: '尺码不合适', order_id: '11112222' }, 1_000);
      const decision = await router.route({ tenant: 't', caller, intent: '订单2024090112要退货，尺码不合适' });
      assert.equal(decision.kind, 'routed');
      assert.deepEqual(decision.kind === 'routed' && decision.params, { order_id: '2024090112', reason: '尺码不合适' });
      assert.deepEqual(
        asked.map((r) => r.fields),
        [['reason']],
      );
      const extraction = decision.explanation.extraction!;
      assert.equal(extraction.method, 'model');
      assert.deepEqual([extraction.filled?.outcome, extraction.filled?.fields], ['filled', ['reason']]);
    });

    it('router - a value the request does not state is dropped: the caller is asked, as without the model', async () => {
      const { router } = withFill({ reason: '质量问题' }, 1_000);
      const decision = await router.route({ tenant: 't', caller, intent: '订单2024090112要退货' });
      assert.equal(decision.kind, 'input_required');
      assert.deepEqual(decision.kind === 'input_required' && [decision.params, decision.missing], [
        { order_id: '2024090112' },
        ['reason'],
      ]);
      assert.deepEqual(decision.explanation.extraction!.filled?.fields, []);
    });

    it('router - without a fill timeout the model is never asked', async () => {
      const { router, asked } = withFill({ reason: '尺码不合适' });
      const decision = await router.route({ tenant: 't', caller, intent: '订单2024090112要退货，尺码不合适' });
      assert.equal(decision.kind, 'input_required');
      assert.equal(asked.length, 0);
      assert.deepEqual(decision.explanation.extraction, {
        method: 'heuristic',
        extracted: ['order_id'],
        missing: ['reason'],
      });
    });
  });
});
