/**
 * Chains against a real Temporal dev server and FerretDB, with the real worker and api in process and one
 * scriptable HTTP agent serving every capability of the after-sales pipeline (docs/chains.md).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../helpers/eventually';
import { startFakeAgent, type Behaviour, type Delivery, type FakeAgent } from '../helpers/fake-agent';
import { request } from '../helpers/http';
import type { TestSystem } from '../helpers/system';
import { startSystemWithAgent, type SystemWithAgent } from '../helpers/system-with-agent';
import { chainAsKey, executeChain } from '../../temporal-callers/chain-client';
import { Webhook } from 'standardwebhooks';
import { newSigningSecret } from '../../rules/signing';

let world: SystemWithAgent | undefined;
let system: TestSystem;
let agent: FakeAgent;
let agentId: string;
let sequence = 0;
const callerSecret = newSigningSecret();
/** Refunds fail while this is set (the third step of the pipeline). */
let refundsFail = false;
/** Message ids that get no receipt (a step that stays running). */
const silent = new Set<string>();

const object = (properties: Record<string, unknown>) => ({ type: 'object', properties });
const CAPABILITIES = [
  {
    name: 'classify',
    description: 'Classify a customer ticket',
    parameters: object({ ticket: { type: 'string' } }),
    returns: object({ category: { type: 'string' }, amount: { type: 'number' } }),
  },
  {
    name: 'check',
    description: 'Quality check of a ticket',
    parameters: object({ category: { type: 'string' } }),
    returns: object({ ok: { type: 'boolean' } }),
  },
  {
    name: 'refund',
    description: 'Refund an order',
    parameters: object({ amount: { type: 'number' }, approved: { type: 'boolean' } }),
  },
  { name: 'reopen', description: 'Reopen a ticket' },
  { name: 'release', description: 'Release a quality hold' },
  { name: 'payout', description: 'Pay money out', acl: { scopes: ['refunds'] } },
  { name: 'forecast', description: 'Weather forecast', parameters: object({ city: { type: 'string' } }) },
];

/** What each capability answers: the pipeline's results, from the params delivered. */
const pipeline: Behaviour = (d) => {
  const params = (d.body.params ?? {}) as Record<string, unknown>;
  if (silent.has(d.body.message_id)) return { status: 202 };
  switch (d.body.capability) {
    case 'classify':
      return {
        status: 202,
        receipt: { status: 'processed', result: { category: `cat-of-${String(params.ticket)}`, amount: 42 } },
      };
    case 'check':
      return { status: 202, receipt: { status: 'processed', result: { ok: true, seen: params.category } } };
    case 'refund':
      if (refundsFail)
        return { status: 202, receipt: { status: 'failed', error: { message: 'the payment provider said no' } } };
      return { status: 202, receipt: { status: 'processed', result: { refunded: params.amount } } };
    default:
      return { status: 202, receipt: { status: 'processed', result: { done: d.body.capability, params } } };
  }
};

function newChainId(): string {
  sequence += 1;
  return `chain-${Date.now()}-${sequence}`;
}

const target = (capability: string) => ({ agent_id: agentId, capability });

async function startChain(body: Record<string, unknown>) {
  return request('POST', `${system.baseUrl}/v1/chains`, body);
}

async function endedChain(chainId: string) {
  return eventually(
    `chain ${chainId} to end`,
    async () => {
      const response = await request('GET', `${system.baseUrl}/v1/chains/${chainId}`);
      return ['completed', 'failed', 'compensated', 'cancelled'].includes(response.body?.state)
        ? response.body
        : undefined;
    },
    { timeoutMs: 60_000 },
  );
}

const deliveriesOf = (prefix: string): Delivery[] =>
  agent.deliveries.filter((d) => d.body.message_id.startsWith(`${prefix}:`));

/** The pipeline: classify → check → refund, each reading the one before; classify and check can be undone. */
function pipelineSteps(onFailure: 'stop' | 'compensate') {
  return [
    {
      id: 'classify',
      target: target('classify'),
      input: { ticket: { $ref: '/input/ticket' } },
      compensate: { target: target('reopen'), input: { category: { $ref: '/steps/classify/result/category' } } },
    },
    {
      id: 'check',
      target: target('check'),
      input: { category: { $ref: '/steps/classify/result/category' } },
      compensate: { target: target('release') },
    },
    {
      id: 'refund',
      target: target('refund'),
      input: { amount: { $ref: '/steps/classify/result/amount' }, approved: { $ref: '/steps/check/result/ok' } },
      on_failure: onFailure,
      after: ['check'],
    },
  ];
}

before(async () => {
  world = await startSystemWithAgent({
    env: { HEARTBEAT_TTL_MS: '3600000', CALLER_WEBHOOK_SECRET: callerSecret, CALLER_WEBHOOK_RETRY_INITIAL_MS: '100' },
    behaviour: pipeline,
    registration: { capabilities: CAPABILITIES },
  });
  ({ system, agent, agentId } = world);
});

after(() => world?.stop());

describe('chains', () => {
  it('chains - a 3-step chain completes, each step a message whose params are mapped from the input and earlier results', async () => {
    const chainId = newChainId();
    const started = await startChain({ chain_id: chainId, input: { ticket: 'T-1' }, steps: pipelineSteps('stop') });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    assert.equal(started.body.state, 'running');
    assert.deepEqual(
      started.body.steps.map((s: { message_id: string }) => s.message_id),
      [`${chainId}:classify`, `${chainId}:check`, `${chainId}:refund`],
    );
    const ended = await endedChain(chainId);
    assert.equal(ended.state, 'completed', JSON.stringify(ended));
    assert.deepEqual(
      ended.steps.map((s: { state: string }) => s.state),
      ['completed', 'completed', 'completed'],
    );
    assert.deepEqual(ended.steps[2].result, { refunded: 42 });
    const delivered = deliveriesOf(chainId);
    assert.deepEqual(
      delivered.map((d) => d.body.capability),
      ['classify', 'check', 'refund'],
    );
    assert.deepEqual(delivered[0]!.body.params, { ticket: 'T-1' });
    assert.deepEqual(delivered[1]!.body.params, { category: 'cat-of-T-1' });
    assert.deepEqual(delivered[2]!.body.params, { amount: 42, approved: true });
    for (const step of ended.steps) assert.ok(step.started_at && step.ended_at && step.started_at <= step.ended_at);
    // Each step is a message like any other: its own status under its own id.
    const message = await request('GET', `${system.baseUrl}/v1/messages/${chainId}:check`);
    assert.equal(message.body.state, 'processed');
  });

  it('chains - a failure at step 3 of 3 runs the compensations of steps 2 and 1 exactly once, in that order', async () => {
    const chainId = newChainId();
    refundsFail = true;
    try {
      const started = await startChain({
        chain_id: chainId,
        input: { ticket: 'T-2' },
        steps: pipelineSteps('compensate'),
      });
      assert.equal(started.status, 202, JSON.stringify(started.body));
      const ended = await endedChain(chainId);
      assert.equal(ended.state, 'compensated', JSON.stringify(ended));
      assert.equal(ended.error.step, 'refund');
      assert.deepEqual(
        ended.steps.map((s: { state: string }) => s.state),
        ['completed', 'completed', 'failed'],
      );
      assert.equal(ended.steps[0].compensation.state, 'completed');
      assert.equal(ended.steps[1].compensation.state, 'completed');
      assert.equal(ended.steps[2].compensation, undefined);
      const compensations = deliveriesOf(chainId).filter((d) => d.body.message_id.endsWith(':compensate'));
      assert.deepEqual(
        compensations.map((d) => d.body.message_id),
        [`${chainId}:check:compensate`, `${chainId}:classify:compensate`],
      );
      assert.deepEqual(
        compensations.map((d) => d.body.capability),
        ['release', 'reopen'],
      );
      assert.deepEqual(compensations[1]!.body.params, { category: 'cat-of-T-2' });
    } finally {
      refundsFail = false;
    }
  });

  it('chains - ready steps run in parallel (fan-out) and a step after both reads both results (fan-in)', async () => {
    const chainId = newChainId();
    silent.add(`${chainId}:left`);
    const started = await startChain({
      chain_id: chainId,
      input: { ticket: 'T-3' },
      steps: [
        { id: 'root', target: target('classify'), input: { ticket: { $ref: '/input/ticket' } } },
        {
          id: 'left',
          target: target('check'),
          input: { category: { $ref: '/steps/root/result/category' } },
          after: ['root'],
        },
        { id: 'right', target: target('reopen'), input: { n: 1 }, after: ['root'] },
        {
          id: 'join',
          target: target('release'),
          input: { left: { $ref: '/steps/left/result/ok' }, right: { $ref: '/steps/right/result/done' } },
          after: ['left', 'right'],
        },
      ],
    });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    // `left` waits for its receipt while `right` ends: the two ran side by side, and `join` waits for both.
    await eventually('right to complete while left runs', async () => {
      const status = (await request('GET', `${system.baseUrl}/v1/chains/${chainId}`)).body;
      const state = (id: string) => status.steps.find((s: { id: string }) => s.id === id).state;
      return state('right') === 'completed' && state('left') === 'running' && state('join') === 'pending'
        ? true
        : undefined;
    });
    const left = deliveriesOf(chainId).find((d) => d.body.message_id === `${chainId}:left`)!;
    await request(
      'POST',
      `${system.baseUrl}/v1/callback`,
      { message_id: left.body.message_id, status: 'processed', result: { ok: 'yes' } },
      { authorization: `Bearer ${agent.secret}` },
    );
    const ended = await endedChain(chainId);
    assert.equal(ended.state, 'completed', JSON.stringify(ended));
    const join = deliveriesOf(chainId).find((d) => d.body.message_id === `${chainId}:join`)!;
    assert.deepEqual(join.body.params, { left: 'yes', right: 'reopen' });
  });

  it('chains - invalid chains are a 4xx naming the step, and nothing starts', async () => {
    const cases: { name: string; steps: unknown[]; status: number; code: string; step: string }[] = [
      {
        name: 'cycle',
        steps: [
          { id: 'a', target: target('check'), after: ['b'] },
          { id: 'b', target: target('check'), after: ['a'] },
        ],
        status: 422,
        code: 'cycle',
        step: 'a',
      },
      {
        name: 'unknown after',
        steps: [{ id: 'a', target: target('check'), after: ['nope'] }],
        status: 422,
        code: 'unknown_step',
        step: 'a',
      },
      {
        name: 'duplicate id',
        steps: [
          { id: 'a', target: target('check') },
          { id: 'a', target: target('check') },
        ],
        status: 422,
        code: 'duplicate_step',
        step: 'a',
      },
      {
        name: 'reference to a later step',
        steps: [
          { id: 'a', target: target('check'), input: { category: { $ref: '/steps/b/result/ok' } } },
          { id: 'b', target: target('check') },
        ],
        status: 422,
        code: 'invalid_reference',
        step: 'a',
      },
      {
        name: 'mapping type error',
        steps: [
          { id: 'a', target: target('classify') },
          { id: 'b', target: target('refund'), input: { amount: { $ref: '/steps/a/result/category' } } },
        ],
        status: 422,
        code: 'mapping_type_error',
        step: 'b',
      },
      {
        name: 'pointer into nothing the source returns',
        steps: [
          { id: 'a', target: target('check') },
          { id: 'b', target: target('refund'), input: { approved: { $ref: '/steps/a/result/nothing' } } },
        ],
        status: 422,
        code: 'mapping_type_error',
        step: 'b',
      },
      {
        name: 'unknown capability',
        steps: [
          { id: 'a', target: target('check') },
          { id: 'b', target: target('nope') },
        ],
        status: 422,
        code: 'unknown_capability',
        step: 'b',
      },
      {
        name: 'unknown agent',
        steps: [{ id: 'a', target: { agent_id: 'agt_000000000000000000000000', capability: 'check' } }],
        status: 404,
        code: 'agent_not_found',
        step: 'a',
      },
      {
        name: 'bad step body',
        steps: [
          { id: 'a', target: target('check') },
          { id: 'b', target: target('check'), on_failure: 'explode' },
        ],
        status: 400,
        code: 'invalid_request',
        step: 'b',
      },
    ];
    for (const c of cases) {
      const chainId = newChainId();
      const refused = await startChain({ chain_id: chainId, input: { ticket: 'T' }, steps: c.steps });
      assert.equal(refused.status, c.status, `${c.name}: ${JSON.stringify(refused.body)}`);
      assert.equal(refused.body.error.code, c.code, c.name);
      const details = refused.body.error.details;
      assert.equal(Array.isArray(details) ? details[0].step : details.step, c.step, c.name);
      assert.equal((await request('GET', `${system.baseUrl}/v1/chains/${chainId}`)).status, 404, c.name);
      assert.equal(deliveriesOf(chainId).length, 0, c.name);
    }
  });

  it('chains - a chain id is idempotent: the same body is the same chain (200), another body a 409', async () => {
    const chainId = newChainId();
    const body = {
      chain_id: chainId,
      input: { ticket: 'T-4' },
      steps: [{ id: 'only', target: target('check'), input: { category: 'x' } }],
    };
    assert.equal((await startChain(body)).status, 202);
    await endedChain(chainId);
    const again = await startChain({
      ...body,
      steps: [{ input: { category: 'x' }, target: target('check'), id: 'only' }],
    });
    assert.equal(again.status, 200);
    assert.equal(again.body.state, 'completed');
    const other = await startChain({ ...body, input: { ticket: 'T-5' } });
    assert.equal(other.status, 409);
    assert.equal(other.body.error.code, 'idempotency_conflict');
    assert.equal(deliveriesOf(chainId).length, 1);
  });

  it('chains - a cancel reaches the running step: its message ends cancelled, no later step starts', async () => {
    const chainId = newChainId();
    silent.add(`${chainId}:wait`);
    const started = await startChain({
      chain_id: chainId,
      steps: [
        { id: 'wait', target: target('check') },
        { id: 'next', target: target('release') },
      ],
    });
    assert.equal(started.status, 202);
    await eventually('the step to be delivered', async () => (deliveriesOf(chainId).length > 0 ? true : undefined));
    const cancelled = await request('POST', `${system.baseUrl}/v1/chains/${chainId}/cancel`, {
      reason: 'changed my mind',
    });
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    const ended = await endedChain(chainId);
    assert.equal(ended.state, 'cancelled');
    assert.deepEqual(
      ended.steps.map((s: { state: string }) => s.state),
      ['cancelled', 'cancelled'],
    );
    const message = await request('GET', `${system.baseUrl}/v1/messages/${chainId}:wait`);
    assert.equal(message.body.state, 'cancelled');
    assert.equal(deliveriesOf(chainId).length, 1);
    const late = await request('POST', `${system.baseUrl}/v1/chains/${chainId}/cancel`, {});
    assert.equal(late.status, 409);
  });

  it('chains - an intent step is routed like any message, and a `when` (equals, not_equals, in) that does not hold skips its step', async () => {
    const chainId = newChainId();
    const started = await startChain({
      chain_id: chainId,
      input: { city: 'Paris', urgent: false },
      steps: [
        { id: 'weather', intent: 'weather forecast', input: { city: { $ref: '/input/city' } } },
        { id: 'escalate', target: target('release'), when: { $ref: '/input/urgent', equals: true } },
        {
          id: 'calm',
          target: target('release'),
          after: ['weather'],
          input: { why: 'calm' },
          when: { $ref: '/input/urgent', not_equals: true },
        },
        {
          id: 'south',
          target: target('release'),
          after: ['weather'],
          when: { $ref: '/input/city', in: ['Nice', 'Marseille'] },
        },
        {
          id: 'forecast_done',
          target: target('release'),
          after: ['weather'],
          input: { why: 'done' },
          when: { $ref: '/steps/weather/result/done', in: ['forecast', 'nowcast'] },
        },
        {
          id: 'after_skip',
          target: target('release'),
          after: ['escalate'],
          when: { $ref: '/steps/escalate/result/done', not_equals: 'release' },
        },
      ],
    });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const ended = await endedChain(chainId);
    assert.equal(ended.state, 'completed', JSON.stringify(ended));
    assert.deepEqual(ended.steps[0].target, { agent_id: agentId, capability: 'forecast' });
    // A pointer into a skipped step names nothing: no operator holds, not_equals included.
    assert.deepEqual(
      ended.steps.map((s: { id: string; state: string }) => [s.id, s.state]),
      [
        ['weather', 'completed'],
        ['escalate', 'skipped'],
        ['calm', 'completed'],
        ['south', 'skipped'],
        ['forecast_done', 'completed'],
        ['after_skip', 'skipped'],
      ],
    );
    const delivered = deliveriesOf(chainId).map((d) => [d.body.capability, d.body.params]);
    assert.deepEqual(delivered[0], ['forecast', { city: 'Paris' }]);
    assert.deepEqual(
      delivered
        .slice(1)
        .map((d) => JSON.stringify(d))
        .sort(),
      [
        ['release', { why: 'calm' }],
        ['release', { why: 'done' }],
      ]
        .map((d) => JSON.stringify(d))
        .sort(),
    );
  });

  it('chains - an intent step the router refuses is a rejected message: the step fails with its reason, nothing is delivered', async () => {
    const chainId = newChainId();
    const started = await startChain({
      chain_id: chainId,
      steps: [
        { id: 'nowhere', intent: 'zqxv wibble frobnicate the quantum llama' },
        { id: 'next', target: target('release') },
      ],
    });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const ended = await endedChain(chainId);
    assert.equal(ended.state, 'failed', JSON.stringify(ended));
    assert.deepEqual(
      ended.steps.map((s: { state: string }) => s.state),
      ['failed', 'skipped'],
    );
    const message = await request('GET', `${system.baseUrl}/v1/messages/${chainId}:nowhere`);
    assert.equal(message.body.state, 'rejected', JSON.stringify(message.body));
    assert.equal(ended.steps[0].error.code, message.body.reason.code);
    assert.equal(deliveriesOf(chainId).length, 0);
  });

  it('chains - an intent step whose params do not fit the routed capability fails before anything is delivered', async () => {
    const chainId = newChainId();
    const started = await startChain({
      chain_id: chainId,
      input: { city: 75 },
      steps: [{ id: 'weather', intent: 'weather forecast', input: { city: { $ref: '/input/city' } } }],
    });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const ended = await endedChain(chainId);
    assert.equal(ended.state, 'failed');
    assert.equal(ended.steps[0].error.code, 'params_mismatch');
    assert.match(ended.steps[0].error.message, /forecast: city: integer given, string wanted/);
    assert.equal(deliveriesOf(chainId).length, 0);
  });

  it("chains - each step is checked as a message of the chain's caller: a capability ACL refuses the chain (403 naming the step), admits a key with the scope, and a Temporal start without a key fails the step", async () => {
    const [sendOnly, withScope] = await Promise.all(
      [
        ['send', 'read'],
        ['send', 'read', 'refunds'],
      ].map((scopes) => system.keys.create('default', { scopes }, 'test')),
    );
    const steps = [
      { id: 'first', target: target('check') },
      { id: 'pay', target: target('payout'), input: { amount: 5 } },
    ];
    const refusedId = newChainId();
    const refused = await request(
      'POST',
      `${system.baseUrl}/v1/chains`,
      { chain_id: refusedId, steps },
      { authorization: `Bearer ${sendOnly!.key}` },
    );
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'capability_forbidden');
    assert.equal(refused.body.error.details.step, 'pay');
    assert.equal((await request('GET', `${system.baseUrl}/v1/chains/${refusedId}`)).status, 404);
    assert.equal(deliveriesOf(refusedId).length, 0);

    const allowedId = newChainId();
    const allowed = await request(
      'POST',
      `${system.baseUrl}/v1/chains`,
      { chain_id: allowedId, steps },
      { authorization: `Bearer ${withScope!.key}` },
    );
    assert.equal(allowed.status, 202, JSON.stringify(allowed.body));
    assert.equal((await endedChain(allowedId)).state, 'completed');

    // Started from Temporal without a key: the namespace caller holds only `send`, so the payout step is refused.
    const direct = await executeChain(
      system.client,
      { tenant: 'default', chain_id: newChainId(), steps },
      { taskQueue: system.config.TEMPORAL_TASK_QUEUE },
    );
    assert.equal(direct.state, 'failed');
    assert.deepEqual(
      direct.steps.map((s) => s.state),
      ['completed', 'failed'],
    );
    assert.equal(direct.steps[1]!.error!.code, 'capability_forbidden');
    assert.equal(deliveriesOf(direct.chain_id).length, 1);
  });

  it('chains - from Temporal with chainAsKey the steps are sent as that key; the proof sends only its own chain body; no step proof is kept in history', async () => {
    const withScope = await system.keys.create('default', { scopes: ['send', 'refunds'] }, 'test');
    const steps = [
      { id: 'first', target: target('check') },
      { id: 'pay', target: target('payout'), input: { amount: 5 } },
    ];
    const taskQueue = { taskQueue: system.config.TEMPORAL_TASK_QUEUE };
    const proven = chainAsKey({ tenant: 'default', chain_id: newChainId(), steps }, withScope.key);
    const done = await executeChain(system.client, proven, taskQueue);
    assert.equal(done.state, 'completed', JSON.stringify(done));
    // The same proof on another body (a bigger payout), or under another chain id: refused before any step.
    for (const forged of [
      { ...proven, chain_id: newChainId(), steps: [{ id: 'pay', target: target('payout'), input: { amount: 5_000 } }] },
      { ...proven, chain_id: newChainId() },
    ]) {
      const refused = await executeChain(system.client, forged, taskQueue).then(
        () => assert.fail('a forged chain ran'),
        (error: { cause?: { type?: string } }) => error.cause?.type,
      );
      assert.equal(refused, 'invalid_key_proof');
      assert.equal(deliveriesOf(forged.chain_id).length, 0);
    }
    // A chain the api started holds no proof a reader of its history could reuse: only its caller, under the seal.
    const apiChain = newChainId();
    const started = await request(
      'POST',
      `${system.baseUrl}/v1/chains`,
      { chain_id: apiChain, steps },
      { authorization: `Bearer ${withScope.key}` },
    );
    assert.equal(started.status, 202, JSON.stringify(started.body));
    assert.equal((await endedChain(apiChain)).state, 'completed');
    // Every payload as its JSON text (the chain's input, each step's start, results): base64 in the history's JSON.
    const raw = JSON.stringify(await system.client.workflow.getHandle(`chain:default:${apiChain}`).fetchHistory());
    const payloads = [...raw.matchAll(/"data":"([A-Za-z0-9+/=]+)"/g)]
      .map((m) => Buffer.from(m[1]!, 'base64').toString('utf8'))
      .join('\n');
    assert.match(payloads, /"caller":\{"tenant":"default"/, 'payloads are read as text');
    assert.doesNotMatch(payloads, /key_proof/);
  });

  it("chains - the final status is posted to the chain's reply_to, signed, as chain.ended", async () => {
    const caller = await startFakeAgent(() => ({ status: 204 }));
    try {
      const chainId = newChainId();
      const started = await startChain({
        chain_id: chainId,
        input: { ticket: 'T-9' },
        steps: pipelineSteps('stop'),
        reply_to: { url: caller.url },
      });
      assert.equal(started.status, 202, JSON.stringify(started.body));
      const notification = await eventually('the reply_to notification', async () => caller.deliveries[0]);
      const verified = new Webhook(callerSecret).verify(
        notification.raw,
        notification.headers as Record<string, string>,
      ) as { type: string; data: { chain_id: string; state: string; steps: unknown[] } };
      assert.equal(verified.type, 'chain.ended');
      assert.equal(verified.data.chain_id, chainId);
      assert.equal(verified.data.state, 'completed');
      assert.equal(verified.data.steps.length, 3);
      assert.equal(
        notification.headers['webhook-id'],
        `${chainId}/chain-ended/${(await endedChain(chainId)).ended_at}`,
      );
    } finally {
      await caller.stop();
    }
  });

  it('chains - on_failure continue lets the steps after a failed step run; a pointer into its missing result fails only the step that reads it', async () => {
    const chainId = newChainId();
    refundsFail = true;
    try {
      const started = await startChain({
        chain_id: chainId,
        steps: [
          { id: 'pay', target: target('refund'), input: { amount: 1 }, on_failure: 'continue' },
          { id: 'tell', target: target('release') },
          {
            id: 'read',
            target: target('reopen'),
            input: { refund: { $ref: '/steps/pay/result/refunded' } },
            after: ['pay'],
            on_failure: 'continue',
          },
        ],
      });
      assert.equal(started.status, 202, JSON.stringify(started.body));
      const ended = await endedChain(chainId);
      assert.equal(ended.state, 'completed', JSON.stringify(ended));
      assert.deepEqual(
        ended.steps.map((s: { state: string }) => s.state),
        ['failed', 'completed', 'failed'],
      );
      assert.equal(ended.steps[0].error.code, 'agent_failed');
      assert.equal(ended.steps[2].error.code, 'mapping_failed');
      assert.deepEqual(
        deliveriesOf(chainId)
          .map((d) => d.body.capability)
          .sort(),
        ['refund', 'release'],
      );
    } finally {
      refundsFail = false;
    }
  });
});
