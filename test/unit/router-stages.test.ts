/** The router's pure stages: eligibility, rules, ranking, thresholds, extraction, text. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CapabilityCandidate } from '../../router/candidates';
import { allowAll, eligibility, type EligibilityContext } from '../../router/eligibility';
import { enumLabels, extractParameters, missingRequired } from '../../router/extraction';
import { LexicalIndex } from '../../router/lexical-index';
import { DEFAULT_WEIGHTS, explorationBonus, rank, successEstimate } from '../../router/ranking';
import { prepareIntent, ruleMatch, tagMatches } from '../../router/tag-keywords';
import { evaluate, fitThreshold } from '../../router/threshold';
import { words } from '../../router/words';
import { bestBy } from '../../router/select';
import { LATENCY_ALPHA, nextStats } from '../../store/routing-stats';
import type { InstanceDoc } from '../../store/agent-instances';
import { liveInstance } from '../../bench/lib/routing-data';

const now = new Date('2026-11-30T12:00:00Z');

function instance(id: string, overrides: Partial<InstanceDoc> = {}): InstanceDoc {
  return { ...liveInstance('a1', 't', now, id), ...overrides };
}

function candidate(
  overrides: Partial<CapabilityCandidate> = {},
  capability: Partial<CapabilityCandidate['capability']> = {},
): CapabilityCandidate {
  return {
    key: 'a1/refund',
    agent_id: 'a1',
    agent_name: 'refunds',
    agent_description: '',
    agent_tags: [],
    capability: { name: 'refund', description: 'Refund an order', tags: [], examples: [], ...capability },
    instances: [instance('i1')],
    ...overrides,
  };
}

const context: EligibilityContext = {
  now,
  heartbeat: { intervalMs: 10_000, ttlMs: 60_000, graceWindows: 1 },
  openCircuits: new Set(),
  caller: { tenant: 't' },
  acl: allowAll,
};

describe('router stages', () => {
  it('router stages - eligibility excludes draining, offline, open-circuit and full capabilities, and flags busy ones', () => {
    assert.equal(eligibility(candidate(), context).eligible, true);
    const draining = eligibility(candidate({ instances: [instance('i1', { state: 'draining' })] }), context);
    assert.deepEqual(draining, { eligible: false, reason: 'draining' });
    const offline = eligibility(
      candidate({ instances: [instance('i1', { last_heartbeat_at: new Date(now.getTime() - 120_000) })] }),
      context,
    );
    assert.deepEqual(offline, { eligible: false, reason: 'offline' });
    const open = eligibility(candidate(), { ...context, openCircuits: new Set(['a1/i1']) });
    assert.deepEqual(open, { eligible: false, reason: 'circuit_open' });
    const full = eligibility(
      candidate({ instances: [instance('i1', { load: { in_flight: 4, qps: 1 } })] }, { max_concurrency: 4 }),
      context,
    );
    assert.equal(full.eligible, false);
    assert.equal(!full.eligible && full.reason, 'at_capacity');
    const busy = eligibility(candidate({ instances: [instance('i1', { state: 'busy' })] }), context);
    assert.ok(busy.eligible && busy.busy);
    const healthyFirst = eligibility(
      candidate({ instances: [instance('i1', { state: 'busy' }), instance('i2')] }),
      context,
    );
    assert.ok(healthyFirst.eligible && healthyFirst.instance.instance_id === 'i2' && !healthyFirst.busy);
    assert.deepEqual(eligibility(candidate({ instances: [] }), context), { eligible: false, reason: 'no_instance' });
  });

  it('router stages - the ACL hook makes a capability ineligible, with its reason', () => {
    const denied = eligibility(candidate(), {
      ...context,
      acl: () => ({ allowed: false, reason: 'needs scope refunds' }),
    });
    assert.deepEqual(denied, { eligible: false, reason: 'not_permitted', detail: 'needs scope refunds' });
  });

  it('router stages - rules match Chinese tags inside the intent and English tags by their stemmed words', () => {
    const intent = prepareIntent('我要申请退款，订单 2024090112, refunds for damaged items');
    assert.equal(tagMatches('退款', intent), true);
    assert.equal(tagMatches('发票', intent), false);
    assert.equal(tagMatches('refund', intent), true);
    assert.equal(tagMatches('damaged item', intent), true);
    assert.equal(tagMatches('order status', intent), false);
    const match = ruleMatch(candidate({ agent_tags: ['售后'] }, { tags: ['退款', 'refund', '发票'] }), intent);
    assert.deepEqual(match.matched, ['退款', 'refund']);
    assert.ok(Math.abs(match.bonus - 0.06) < 1e-9);
  });

  it('router stages - text: jieba segments Chinese, English words are stemmed, stopwords and numbers dropped', () => {
    assert.deepEqual(words('帮我查询订单状态'), ['查询', '订单', '状态']);
    assert.deepEqual(words('Please refund the orders 42'), ['refund', 'order']);
  });

  it('router stages - BM25 scores the capability sharing the rare words highest, within [0, 1]', () => {
    const index = new LexicalIndex([
      { key: 'a/refund', text: '退款 申请退款 refund money back' },
      { key: 'a/invoice', text: '开发票 发票抬头 invoice' },
      { key: 'a/track', text: '物流 快递 包裹 track package' },
    ]);
    const scores = index.score('我想申请退款');
    assert.equal([...scores.keys()][0], 'a/refund');
    assert.ok(scores.get('a/refund')! > 0 && scores.get('a/refund')! <= 1);
    assert.equal(scores.has('a/track'), false);
    assert.equal(index.score('今天天气').size, 0);
  });

  it('router stages - success is a Bayesian estimate, and the exploration bonus halves per half-life of deliveries', () => {
    assert.equal(successEstimate(undefined), 0.5);
    assert.equal(successEstimate({ successes: 8, failures: 0 }), 0.9);
    assert.equal(explorationBonus(undefined, DEFAULT_WEIGHTS), DEFAULT_WEIGHTS.exploration);
    const half = explorationBonus({ successes: DEFAULT_WEIGHTS.explorationHalfLife, failures: 0 }, DEFAULT_WEIGHTS);
    assert.ok(Math.abs(half - DEFAULT_WEIGHTS.exploration / 2) < 1e-12);
    assert.ok(explorationBonus({ successes: 100, failures: 0 }, DEFAULT_WEIGHTS) < 0.001);
  });

  it('router stages - ranking reorders near-equal matches by record, never a clearly better match, and breaks ties by key', () => {
    const reliable = { successes: 50, failures: 0, latency_ewma_ms: 100 };
    const flaky = { successes: 5, failures: 45, latency_ewma_ms: 3000 };
    const near = rank([
      { key: 'b/x', match: 0.8, stats: flaky, busy: false, in_flight: 0 },
      { key: 'a/x', match: 0.79, stats: reliable, busy: false, in_flight: 0 },
    ]);
    assert.deepEqual(
      near.map((r) => r.key),
      ['a/x', 'b/x'],
    );
    const far = rank([
      { key: 'b/x', match: 0.9, stats: flaky, busy: false, in_flight: 0 },
      { key: 'a/x', match: 0.7, stats: reliable, busy: false, in_flight: 0 },
    ]);
    assert.deepEqual(
      far.map((r) => r.key),
      ['b/x', 'a/x'],
    );
    const tie = rank([
      { key: 'b/x', match: 0.8, busy: false, in_flight: 0 },
      { key: 'a/x', match: 0.8, busy: false, in_flight: 0 },
    ]);
    assert.deepEqual(
      tie.map((r) => r.key),
      ['a/x', 'b/x'],
    );
    const loaded = rank([
      { key: 'a/x', match: 0.8, busy: true, in_flight: 9, capacity: 10 },
      { key: 'b/x', match: 0.8, busy: false, in_flight: 0, capacity: 10 },
    ]);
    assert.equal(loaded[0]!.key, 'b/x');
  });

  it('router stages - a new capability is not starved: its exploration bonus beats a mediocre record', () => {
    const ranked = rank([
      { key: 'a/old', match: 0.8, stats: { successes: 30, failures: 30 }, busy: false, in_flight: 0 },
      { key: 'b/new', match: 0.8, busy: false, in_flight: 0 },
    ]);
    assert.equal(ranked[0]!.key, 'b/new');
  });

  it('router stages - the fitted threshold separates in-scope from out-of-scope, deterministically', () => {
    const samples = [
      { score: 0.9, inScope: true, correct: true },
      { score: 0.8, inScope: true, correct: true },
      { score: 0.75, inScope: true, correct: false },
      { score: 0.6, inScope: false, correct: false },
      { score: 0.5, inScope: false, correct: false },
    ];
    const fit = fitThreshold(samples);
    assert.ok(fit.threshold > 0.6 && fit.threshold <= 0.8, String(fit.threshold));
    assert.deepEqual(fit, fitThreshold([...samples].reverse()));
    assert.equal(fit.in_scope_accuracy, 2 / 3);
    assert.equal(fit.refusal_rate, 1);
    assert.deepEqual(evaluate(samples, 0.95), { threshold: 0.95, in_scope_accuracy: 0, refusal_rate: 1 });
    // A refusal floor of 50 %: the lowest threshold that still refuses one of the two out-of-scope requests.
    const floored = fitThreshold(samples, { minRefusal: 0.5 });
    assert.ok(floored.threshold > 0.5 && floored.threshold <= 0.6, String(floored.threshold));
    assert.equal(floored.in_scope_accuracy, 2 / 3);
    assert.equal(floored.refusal_rate, 0.5);
  });
});

describe('parameter extraction', () => {
  const schema = {
    type: 'object',
    required: ['order_id', 'amount', 'reason'],
    properties: {
      order_id: { type: 'string', pattern: '^\\d{8,20}$' },
      refund_id: { type: 'string', pattern: '^RF\\d{10,20}$' },
      phone: { type: 'string', pattern: '^1[3-9]\\d{9}$' },
      email: { type: 'string', format: 'email' },
      start_date: { type: 'string', format: 'date' },
      end_date: { type: 'string', format: 'date' },
      amount: { type: 'number', description: '退款金额（元）' },
      weight_kg: { type: 'number', description: '重量' },
      days: { type: 'integer' },
      type: {
        type: 'string',
        enum: ['return_refund', 'exchange', 'repair'],
        description: '售后类型：退货退款/换货/维修',
      },
      reason: { type: 'string', enum: ['not_received', 'quality_issue', 'other'] },
    },
  };

  it('parameter extraction - ids by pattern, the more specific pattern first, each value used once', async () => {
    const got = await extractParameters('退款单RF20240904000789，订单2024090112，手机13812345678', schema);
    assert.equal(got.refund_id, 'RF20240904000789');
    assert.equal(got.order_id, '2024090112');
    assert.equal(got.phone, '13812345678');
  });

  it('parameter extraction - e-mails, dates in several spellings, amounts, weights and day counts', async () => {
    const got = await extractParameters(
      'from 2024-10-08 to 2024年10月10日, mail me at a.b@example.com, 退328.5元, 3公斤, 5 days',
      schema,
    );
    assert.equal(got.email, 'a.b@example.com');
    assert.equal(got.start_date, '2024-10-08');
    assert.equal(got.end_date, '2024-10-10');
    assert.equal(got.amount, 328.5);
    assert.equal(got.weight_kg, 3);
    assert.equal(got.days, 5);
    assert.equal((await extractParameters('refund $25.5 please', schema)).amount, 25.5);
  });

  it('parameter extraction - enum values by their own words or by the labels the description lists', async () => {
    const labels = enumLabels(schema.properties.type).get('exchange')!;
    assert.ok(labels.includes('exchange') && labels.includes('换货'), labels.join('/'));
    assert.equal((await extractParameters('鞋子小了，想换货', schema)).type, 'exchange');
    assert.equal((await extractParameters('要退货退款', schema)).type, 'return_refund');
    assert.equal((await extractParameters('it is a quality issue', schema)).reason, 'quality_issue');
  });

  it('parameter extraction - missing required parameters are named', async () => {
    const got = await extractParameters('订单2024090112 要退款', schema);
    assert.deepEqual(missingRequired(schema, got), ['amount', 'reason']);
  });
});

describe('router helpers', () => {
  it('router helpers - bestBy keeps the k best, best first, without sorting everything', () => {
    const values = [5, 1, 9, 3, 9, 7, 2];
    assert.deepEqual(
      bestBy(values, 3, (v) => v),
      [9, 9, 7],
    );
    assert.deepEqual(
      bestBy(values, 10, (v) => v),
      [9, 9, 7, 5, 3, 2, 1],
    );
    assert.deepEqual(
      bestBy([], 3, (v: number) => v),
      [],
    );
  });

  it('router helpers - stats count outcomes and keep an EWMA of latency', () => {
    const first = nextStats(undefined, true, 100);
    assert.deepEqual(first, { successes: 1, failures: 0, latency_ewma_ms: 100 });
    const second = nextStats(first, false, 600);
    assert.equal(second.failures, 1);
    assert.equal(second.latency_ewma_ms, 100 + LATENCY_ALPHA * 500);
  });
});
