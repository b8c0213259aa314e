/**
 * The router's decision when a trained head answers: a scripted head (fixed probabilities) over an in-memory
 * catalogue, so each verdict — routed, ambiguous, escalated to the LLM, refused — and the grouping of replicas can
 * be checked without a model.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HeadPrediction } from '../../router/head/head';
import type { LlmAssistant } from '../../router/llm';
import type { IntentMatcher, MatcherFactory } from '../../router/matcher';
import { Router, type RouterDeps } from '../../router/router';
import { agentFromCard, liveInstance } from '../../bench/lib/routing-data';

const orderSchema = {
  type: 'object',
  required: ['order_id'],
  properties: { order_id: { type: 'string', pattern: '^\\d{8,20}$' } },
};

function catalogue() {
  const refunds = agentFromCard(
    {
      agent_id: 'refunds-a',
      name: 'refunds A',
      description: 'refunds',
      tags: [],
      capabilities: [
        {
          name: 'request_refund',
          description: 'Refund an order',
          examples: ['refund my order'],
          parameters: orderSchema,
        },
        { name: 'refund_policy', description: 'Explain the refund policy', examples: ['how do refunds work'] },
        {
          name: 'refund_status',
          description: 'Where a refund is',
          examples: ['where is my refund'],
          parameters: { type: 'object', properties: { refund_id: { type: 'string', pattern: '^RF\\d{10,20}$' } } },
        },
      ],
    },
    't',
  );
  // The same service registered by a second agent: a replica, not a rival.
  const replica = agentFromCard(
    {
      agent_id: 'refunds-b',
      name: 'refunds B',
      description: 'refunds',
      tags: [],
      capabilities: [
        {
          name: 'request_refund',
          description: 'Refund an order',
          examples: ['refund my order'],
          parameters: orderSchema,
        },
      ],
    },
    't',
  );
  const weather = agentFromCard(
    {
      agent_id: 'weather',
      name: 'weather',
      description: 'weather',
      tags: [],
      capabilities: [{ name: 'forecast', description: 'Weather forecast', examples: ['rain tomorrow?'] }],
    },
    't',
  );
  return [refunds, replica, weather];
}

const REPLICAS = new Set(['refunds-a/request_refund', 'refunds-b/request_refund']);

/** A matcher whose head answers `probabilities` (capability key → p, the rest is "none"). */
function scriptedHead(probabilities: Record<string, number>, crossed?: HeadPrediction['crossed']): MatcherFactory {
  const prediction: HeadPrediction = {
    ...(crossed ? { crossed } : {}),
    ranked: Object.entries(probabilities)
      .map(([key, probability]) => ({ key, probability }))
      .sort((a, b) => b.probability - a.probability),
    none: 1 - Object.values(probabilities).reduce((a, b) => a + b, 0),
    same: (a, b) => REPLICAS.has(a) && REPLICAS.has(b),
    crossLingual: new Set(),
  };
  const matcher: IntentMatcher = {
    provider: 'scripted+head',
    score: async () => new Map(),
    classify: async () => prediction,
  };
  return async () => matcher;
}

function routerWith(
  probabilities: Record<string, number>,
  overrides: Partial<RouterDeps> = {},
  crossed?: HeadPrediction['crossed'],
) {
  const agents = catalogue();
  return new Router({
    agents: async () => agents,
    matcherFactory: scriptedHead(probabilities, crossed),
    heartbeat: { intervalMs: 10_000, ttlMs: 3_600_000, graceWindows: 1 },
    openCircuits: async () => new Set(),
    stats: async () => new Map(),
    threshold: 0.5,
    head: { accept: 0.5, escalate: 0.3, ambiguity: 0.8 },
    ...overrides,
  });
}

const caller = { tenant: 't' };
const route = (router: Router, intent: string) => router.route({ tenant: 't', caller, intent });

function fakeLlm(answer: string | null, asked: string[][] = []): LlmAssistant {
  return {
    async chooseCapability(_intent, shortlist) {
      asked.push(shortlist.map((c) => c.key));
      return answer;
    },
    async extractParameters() {
      return {};
    },
  };
}

describe('router with a head', () => {
  it('router head - a probable capability is routed, with the head in the explanation', async () => {
    const decision = await route(
      routerWith({ 'weather/forecast': 0.8, 'refunds-a/refund_policy': 0.1 }),
      'rain in Paris tomorrow?',
    );
    assert.equal(decision.kind, 'routed');
    assert.ok(decision.kind === 'routed');
    assert.equal(decision.target.agent_id, 'weather');
    assert.equal(decision.explanation.decided_by, 'head');
    assert.equal(decision.explanation.head?.verdict, 'accept');
    assert.equal(decision.explanation.head?.best, 0.8);
    assert.equal(decision.explanation.candidates[0]!.key, 'weather/forecast');
  });

  it("router head - a code only a runner-up's parameters take moves it to the best place", async () => {
    const decision = await route(
      routerWith({ 'refunds-a/request_refund': 0.7, 'refunds-a/refund_status': 0.2 }),
      'refund RF2025030112345, where is it?',
    );
    assert.ok(decision.kind === 'routed');
    assert.equal(decision.target.capability, 'refund_status');
    assert.deepEqual(decision.params, { refund_id: 'RF2025030112345' });
    assert.equal(decision.explanation.head?.best, 0.7, "with the best's probability");
    assert.deepEqual(decision.explanation.head?.code_taker, {
      code: 'RF2025030112345',
      from: 'refunds-a/request_refund',
      to: 'refunds-a/refund_status',
    });
    const plain = await route(
      routerWith({ 'refunds-a/request_refund': 0.7, 'refunds-a/refund_status': 0.2 }),
      'refund order 20240901123',
    );
    assert.ok(plain.kind === 'routed' || plain.kind === 'input_required');
    assert.equal(plain.target.capability, 'request_refund', 'an order number is no code of its own');
  });

  it('router head - a capability whose card excludes the request is not chosen; the refusal quotes the clause', async () => {
    const crossed = new Map([['weather/forecast', { clause: 'historical weather', learned: false }]]);
    const decision = await route(
      routerWith({ 'weather/forecast': 0.8, 'refunds-a/refund_policy': 0.1 }, {}, crossed),
      'was it raining in Paris last year?',
    );
    assert.equal(decision.kind, 'refused');
    assert.ok(decision.kind === 'refused');
    assert.equal(decision.code, 'no_match');
    assert.match(decision.message, /weather\/forecast .*does not do this \("historical weather"\)/);
    assert.deepEqual(decision.explanation.head?.crossed, { key: 'weather/forecast', clause: 'historical weather' });
    // However probable: the card's own words rule it out. A crossed runner-up only loses its place.
    const probable = await route(
      routerWith({ 'weather/forecast': 0.6, 'refunds-a/refund_policy': 0.55 }, {}, crossed),
      'was it raining in Paris last year?',
    );
    assert.ok(probable.kind === 'refused' && probable.explanation.head?.crossed?.key === 'weather/forecast');
    const other = await route(
      routerWith(
        { 'weather/forecast': 0.6, 'refunds-a/refund_policy': 0.55 },
        {},
        new Map([['refunds-a/refund_policy', { clause: 'rain refunds', learned: false }]]),
      ),
      'rain in Paris tomorrow?',
    );
    assert.ok(other.kind === 'routed');
    assert.equal(other.target.agent_id, 'weather');
  });

  it('router head - replicas of one service add up, and the ranking picks among them', async () => {
    // 0.35 + 0.35: neither alone passes 0.5, together they do; the runner-up group is far behind.
    const decision = await route(
      routerWith({
        'refunds-a/request_refund': 0.35,
        'refunds-b/request_refund': 0.35,
        'refunds-a/refund_policy': 0.1,
      }),
      'refund order 2024090112',
    );
    assert.equal(decision.kind, 'routed');
    assert.ok(decision.kind === 'routed');
    assert.ok(REPLICAS.has(`${decision.target.agent_id}/${decision.target.capability}`));
    assert.deepEqual(decision.params, { order_id: '2024090112' });
    assert.equal(decision.explanation.head?.best, 0.7);
    assert.equal(decision.explanation.ranking.length, 2);
  });

  it('router head - two close capabilities are refused as ambiguous, naming both in the caller’s language', async () => {
    const english = await route(
      routerWith({ 'refunds-a/refund_policy': 0.4, 'weather/forecast': 0.35 }),
      'refund when it rains?',
    );
    assert.equal(english.kind, 'refused');
    assert.ok(english.kind === 'refused');
    assert.equal(english.code, 'ambiguous');
    assert.deepEqual(
      english.choices?.map((c) => `${c.agent_id}/${c.capability}`),
      ['refunds-a/refund_policy', 'weather/forecast'],
    );
    assert.match(english.message, /refund policy .* or forecast/);
    const chinese = await route(
      routerWith({ 'refunds-a/refund_policy': 0.4, 'weather/forecast': 0.35 }),
      '下雨能退款吗',
    );
    assert.ok(chinese.kind === 'refused');
    assert.match(chinese.message, /还是/);
  });

  it('router head - the escalation band goes to the LLM with the best groups, which decides', async () => {
    const asked: string[][] = [];
    const decision = await route(
      routerWith(
        { 'weather/forecast': 0.4, 'refunds-a/refund_policy': 0.2 },
        { llm: fakeLlm('weather/forecast', asked) },
      ),
      'is it going to pour?',
    );
    assert.ok(decision.kind === 'routed');
    assert.equal(decision.explanation.decided_by, 'llm');
    assert.equal(decision.target.capability, 'forecast');
    assert.deepEqual(asked, [['weather/forecast', 'refunds-a/refund_policy']]);
  });

  it('router head - in the band the LLM may answer none; without an LLM there is no band: the accept threshold decides', async () => {
    const byLlm = await route(
      routerWith({ 'weather/forecast': 0.4 }, { llm: fakeLlm(null) }),
      'historical weather of 1990',
    );
    assert.ok(byLlm.kind === 'refused');
    assert.equal(byLlm.code, 'no_match');
    assert.match(byLlm.message, /LLM/);
    const alone = await route(routerWith({ 'weather/forecast': 0.4 }), 'historical weather of 1990');
    assert.ok(alone.kind === 'refused');
    assert.equal(alone.code, 'no_match');
    assert.equal(alone.explanation.head?.verdict, 'refuse');
    assert.equal(alone.explanation.head?.escalate, 0.5);
  });

  it('router head - below the escalation threshold the intent is refused without asking the LLM', async () => {
    const asked: string[][] = [];
    const decision = await route(
      routerWith({ 'weather/forecast': 0.1 }, { llm: fakeLlm('weather/forecast', asked) }),
      'tell me a joke',
    );
    assert.ok(decision.kind === 'refused');
    assert.equal(decision.code, 'no_match');
    assert.deepEqual(asked, []);
  });

  it('router head - an accepted capability that cannot take messages is refused as no_eligible_capability', async () => {
    const agents = catalogue().map((a) =>
      a.agent._id === 'weather'
        ? { ...a, instances: [{ ...liveInstance('weather', 't', new Date()), state: 'draining' as const }] }
        : a,
    );
    const router = routerWith({ 'weather/forecast': 0.9 }, { agents: async () => agents });
    const decision = await route(router, 'rain tomorrow?');
    assert.ok(decision.kind === 'refused');
    assert.equal(decision.code, 'no_eligible_capability');
  });

  it('router head - a named agent narrows the head to its capabilities', async () => {
    const decision = await routerWith({ 'weather/forecast': 0.6, 'refunds-a/refund_policy': 0.3 }).route({
      tenant: 't',
      caller,
      intent: 'how do refunds work',
      target: { agent_id: 'refunds-a' },
    });
    // Only refunds-a's capabilities remain; 0.3 is below accept (0.5) and above escalate (0.3): refused without an LLM.
    assert.ok(decision.kind === 'refused');
    assert.equal(
      decision.explanation.candidates.every((c) => c.key.startsWith('refunds-a/')),
      true,
    );
  });
});

describe('router head across a catalogue change', () => {
  /** A head answering `answer(intent)` (capability key → p), ready once `train()` is called. */
  function trainable(answer: (intent: string) => Record<string, number>) {
    let train!: () => void;
    const trained = new Promise<void>((resolve) => (train = resolve));
    let ready = false;
    void trained.then(() => (ready = true));
    const predict = (intent: string): HeadPrediction => ({
      ranked: Object.entries(answer(intent))
        .map(([key, probability]) => ({ key, probability }))
        .sort((a, b) => b.probability - a.probability),
      none: 0.1,
      same: () => false,
      crossLingual: new Set(),
    });
    const matcher: IntentMatcher = {
      provider: 'scripted+head',
      score: async () => new Map(),
      // Like the head matcher: waits for its head when asked to (right after the change), else answers if ready.
      classify: async (intent, { wait = true } = {}) => {
        if (wait) await trained;
        return ready ? predict(intent) : undefined;
      },
      ready: () => trained,
      head: () => (ready ? {} : undefined),
    };
    return { matcher, train };
  }

  it('router head - the previous head answers what it accepts while the new one trains; what it refuses waits for the new head', async () => {
    let agents = catalogue();
    // The old head knows the weather; anything else it gives a low probability (a refusal).
    const old = trainable((intent) =>
      /rain/.test(intent) ? { 'weather/forecast': 0.9 } : { 'weather/forecast': 0.2 },
    );
    const next = trainable((intent): Record<string, number> =>
      /rain/.test(intent) ? { 'weather/forecast': 0.9 } : { 'refunds-a/refund_policy': 0.9 },
    );
    const heads = [old, next];
    let built = 0;
    const router = new Router({
      agents: async () => agents,
      matcherFactory: async () => heads[built++]!.matcher,
      heartbeat: { intervalMs: 10_000, ttlMs: 3_600_000, graceWindows: 1 },
      openCircuits: async () => new Set(),
      stats: async () => new Map(),
      threshold: 0.5,
      head: { accept: 0.5, escalate: 0.3, ambiguity: 0.8 },
    });
    old.train();
    const first = await route(router, 'rain tomorrow?');
    assert.equal(first.explanation.decided_by, 'head');
    const oldRevision = first.explanation.head!.revision;
    // A card's text changes: a new revision, whose head is still training.
    agents = agents.map((a) =>
      a.agent._id === 'weather' ? { ...a, agent: { ...a.agent, description: 'weather, now with more' } } : a,
    );
    const during = await route(router, 'rain tomorrow?');
    assert.ok(during.kind === 'routed');
    assert.equal(during.target.capability, 'forecast');
    assert.equal(during.explanation.head!.revision, oldRevision);
    assert.equal((await router.status('t')).state, 'training');
    // A request the old head would refuse waits for the new head (it may be for something only the new one knows).
    let settled = false;
    const waiting = route(router, 'how do refunds work?').then((d) => ((settled = true), d));
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(settled, false);
    next.train();
    const after = await waiting;
    assert.ok(after.kind === 'routed');
    assert.equal(after.target.capability, 'refund_policy');
    assert.notEqual(after.explanation.head!.revision, oldRevision);
  });
});
