/**
 * The local judge with the real model (Qwen2.5-Coder-1.5B-Instruct Q4_K_M through node-llama-cpp), where
 * `npm run models -- --judge` has put both in the cache; skipped, saying so, where not. Clear cases only: the
 * model reads a card's exclusion and the request's subject. Timing is the benchmark's business.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { candidatesOf } from '../../router/candidates';
import { BoundedJudge } from '../../router/judge/bounded-judge';
import { localJudgeModel } from '../helpers/local-judge-model';
import { LocalJudge } from '../../router/judge/local-judge';
import type { HeadPrediction } from '../../router/head/head';
import { lexicalMatcherFactory } from '../../router/matcher';
import { Router } from '../../router/router';
import { agentFromCard } from '../../bench/lib/routing-data';

const { modelPath, missing } = localJudgeModel();

const [forecast] = candidatesOf([
  agentFromCard(
    {
      agent_id: 'weather-agent',
      name: '天气Agent',
      description: 'weather',
      tags: [],
      capabilities: [
        {
          name: 'forecast',
          description: '查询城市未来7天的天气预报（温度、降水、风力）。不提供历史天气，不预测快递送达时间。',
          examples: ['明天北京会下雨吗', '上海这周末天气怎么样', 'will it rain in Shenzhen tomorrow'],
        },
      ],
    },
    't',
  ),
]);

describe('local judge (real model)', { skip: missing }, () => {
  const judge = missing ? undefined : new LocalJudge({ modelPath: modelPath!, threads: 2 });
  after(async () => judge?.close());

  it('local judge - P(yes) is higher for a forecast request than for what the card excludes or an unrelated one', async () => {
    const inScope = await judge!.judge({ intent: '后天杭州会下雨吗', candidate: forecast! });
    const excluded = await judge!.judge({ intent: '去年国庆北京下雨了没，当时多少度', candidate: forecast! });
    const unrelated = await judge!.judge({ intent: '帮我把上个月的工资条发我邮箱', candidate: forecast! });
    assert.ok(
      inScope !== undefined && excluded !== undefined && unrelated !== undefined,
      'the model answered yes or no',
    );
    assert.ok(inScope > excluded, `in scope ${inScope} > excluded ${excluded}`);
    assert.ok(inScope > unrelated, `in scope ${inScope} > unrelated ${unrelated}`);
    assert.ok(unrelated < 0.5, `unrelated ${unrelated} reads as no`);
  });

  it('local judge - in the router, an unrelated request the head narrowly accepts is refused by the judge', async () => {
    const prediction: HeadPrediction = {
      ranked: [{ key: forecast!.key, probability: 0.32 }],
      none: 0.68,
      same: () => false,
      crossLingual: new Set(),
    };
    const router = new Router({
      agents: async () => [
        agentFromCard(
          {
            agent_id: 'weather-agent',
            name: '天气Agent',
            description: 'weather',
            tags: [],
            capabilities: [forecast!.capability],
          },
          't',
        ),
      ],
      matcherFactory: async () => ({
        provider: 'scripted+head',
        score: async () => new Map(),
        classify: async () => prediction,
      }),
      heartbeat: { intervalMs: 10_000, ttlMs: 3_600_000, graceWindows: 1 },
      openCircuits: async () => new Set(),
      stats: async () => new Map(),
      threshold: 0.5,
      head: { accept: 0.3, escalate: 0.3, ambiguity: 0.8 },
      judge: new BoundedJudge(judge!, { timeoutMs: 600_000 }),
    });
    const decision = await router.route({
      tenant: 't',
      caller: { tenant: 't' },
      intent: '帮我把上个月的工资条发我邮箱',
    });
    assert.equal(decision.explanation.judge?.outcome, 'overruled', JSON.stringify(decision.explanation.judge));
    assert.equal(decision.kind, 'refused');
  });

  it("local judge - fills a missing field the request states under its schema's grammar; the router keeps only what is stated", async () => {
    const schema = {
      type: 'object',
      properties: {
        event: { type: 'string', description: '要看天气的活动' },
        days: { type: 'integer', description: '预报天数' },
      },
      required: ['event'],
    };
    const filled = await judge!.fill({
      intent: '下周六公司运动会那天天气怎么样',
      candidate: forecast!,
      schema,
      fields: ['event'],
      today: '2026-12-05',
    });
    assert.deepEqual(Object.keys(filled), ['event'], 'only the field asked for');
    assert.match(String(filled.event), /运动会/);
    const card = {
      name: 'forecast',
      description: '查询城市未来几天的天气预报',
      tags: ['天气'],
      examples: ['明天北京会下雨吗'],
      parameters: schema,
    };
    const router = new Router({
      agents: async () => [
        agentFromCard(
          { agent_id: 'weather-agent', name: '天气Agent', description: 'weather', tags: [], capabilities: [card] },
          't',
        ),
      ],
      matcherFactory: lexicalMatcherFactory(),
      heartbeat: { intervalMs: 10_000, ttlMs: 3_600_000, graceWindows: 1 },
      openCircuits: async () => new Set(),
      stats: async () => new Map(),
      threshold: 0.05,
      judge: new BoundedJudge(judge!, { timeoutMs: 60_000, fillTimeoutMs: 120_000 }),
    });
    const decision = await router.route({
      tenant: 't',
      caller: { tenant: 't' },
      intent: '下周六公司运动会那天天气预报怎么样',
    });
    assert.equal(
      decision.explanation.extraction?.filled?.outcome,
      'filled',
      JSON.stringify(decision.explanation.extraction),
    );
    assert.ok(decision.kind === 'routed' && /运动会/.test(String(decision.params.event)), JSON.stringify(decision));
  });
});
