/**
 * Chains bounded, and nothing delivered lost (docs/chains.md, "Limits"), against a real Temporal dev server and
 * FerretDB with the real worker and api in process: a step whose mapped input is over the message size cap fails
 * `payload_too_large` before anything is scheduled; results over the inline cap are kept by reference (each served
 * by its message); a history past CHAIN_HISTORY_MAX_BYTES continues as new. Every chain ends with its steps listed
 * and its reply_to told, and `GET` and cancel answer 200 all along.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chainWorkflowId } from '../../chains/temporal';
import { newSigningSecret } from '../../rules/signing';
import { eventually } from '../helpers/eventually';
import { startFakeAgent, type Behaviour, type FakeAgent } from '../helpers/fake-agent';
import { request } from '../helpers/http';
import type { TestSystem } from '../helpers/system';
import { startSystemWithAgent, type SystemWithAgent } from '../helpers/system-with-agent';

/** A history budget low enough that ten results of 230 KB make the chain continue as new. */
const HISTORY_BUDGET = 1024 * 1024;
const RESULT_BYTES = 230_000;

let world: SystemWithAgent | undefined;
let system: TestSystem;
let agent: FakeAgent;
let agentId: string;
let replies: FakeAgent;
let sequence = 0;

const CAPABILITIES = ['produce', 'wide', 'big', 'hold'].map((name) => ({ name, description: `${name} something` }));

/** `produce` answers 100 KB, `big` 230 KB (with the n it was given, plus one), `hold` never answers. */
const behaviour: Behaviour = (d) => {
  const params = (d.body.params ?? {}) as { n?: number };
  switch (d.body.capability) {
    case 'produce':
      return { status: 200, body: { status: 'processed', result: { blob: 'p'.repeat(100_000) } } };
    case 'big':
      return {
        status: 200,
        body: { status: 'processed', result: { n: (params.n ?? 0) + 1, blob: 'b'.repeat(RESULT_BYTES) } },
      };
    case 'hold':
      return { status: 202 };
    default:
      return { status: 200, body: { status: 'processed', result: { ok: true } } };
  }
};

const target = (capability: string) => ({ agent_id: agentId, capability });
const chainUrl = (chainId: string) => `${system.baseUrl}/v1/chains/${chainId}`;
const newChainId = (name: string) => `${name}-${Date.now()}-${++sequence}`;

/** Reads the chain over and over until it ends; every answer's HTTP status is kept. */
async function watchUntilEnded(chainId: string): Promise<{ statuses: number[]; ended: Record<string, any> }> {
  const statuses: number[] = [];
  const ended = await eventually(
    `chain ${chainId} to end`,
    async () => {
      const response = await request('GET', chainUrl(chainId));
      statuses.push(response.status);
      return ['completed', 'failed', 'compensated', 'cancelled'].includes(response.body?.state)
        ? response.body
        : undefined;
    },
    { timeoutMs: 60_000 },
  );
  return { statuses, ended };
}

type Told = { type: string; data: { chain_id: string; state: string; steps: unknown[]; error?: { code: string } } };

/** The chain.ended notification its reply_to got. */
async function notified(chainId: string): Promise<Told['data']> {
  const told = await eventually(`chain ${chainId}'s reply_to`, async () =>
    replies.deliveries.map((d) => d.body as unknown as Told).find((body) => body.data?.chain_id === chainId),
  );
  assert.equal(told.type, 'chain.ended');
  return told.data;
}

async function messageResult(messageId: string): Promise<unknown> {
  const message = await request('GET', `${system.baseUrl}/v1/messages/${messageId}`);
  assert.equal(message.status, 200, JSON.stringify(message.body));
  assert.equal(message.body.state, 'processed');
  return message.body.result;
}

/** Ten `big` steps, each after the one before and reading its `n`: 2.3 MB of results in all. */
function tenBigSteps() {
  return Array.from({ length: 10 }, (_, i) => ({
    id: `s${i}`,
    target: target('big'),
    input: i === 0 ? { n: 0 } : { n: { $ref: `/steps/s${i - 1}/result/n` } },
  }));
}

/** A step whose input reads the 100 KB result of `produce` sixty times: 6 MB once mapped. */
function sixtyReads() {
  return {
    id: 'wide',
    target: target('wide'),
    input: Object.fromEntries(
      Array.from({ length: 60 }, (_, i) => [`copy${i}`, { $ref: '/steps/produce/result/blob' }]),
    ),
  };
}

before(async () => {
  world = await startSystemWithAgent({
    env: {
      HEARTBEAT_TTL_MS: '3600000',
      CALLER_WEBHOOK_SECRET: newSigningSecret(),
      CALLER_WEBHOOK_RETRY_INITIAL_MS: '100',
      CHAIN_HISTORY_MAX_BYTES: String(HISTORY_BUDGET),
    },
    behaviour,
    registration: { capabilities: CAPABILITIES },
  });
  ({ system, agent, agentId } = world);
  replies = await startFakeAgent(() => ({ status: 204 }));
});

after(async () => {
  await replies?.stop();
  await world?.stop();
});

describe('chain bounds', () => {
  it('chain bounds - a step reading a 100 KB result sixty times fails payload_too_large before anything is sent; the chain ends failed, told, its result kept', async () => {
    const chainId = newChainId('sixty');
    const started = await request('POST', `${system.baseUrl}/v1/chains`, {
      chain_id: chainId,
      steps: [{ id: 'produce', target: target('produce') }, sixtyReads()],
      reply_to: { url: replies.url },
    });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const { statuses, ended } = await watchUntilEnded(chainId);
    assert.deepEqual([...new Set(statuses)], [200]);
    assert.equal(ended.state, 'failed');
    assert.deepEqual(ended.error, { code: 'payload_too_large', message: ended.steps[1].error.message, step: 'wide' });
    assert.deepEqual(
      ended.steps.map((s: { state: string }) => s.state),
      ['completed', 'failed'],
    );
    assert.equal(ended.steps[1].error.code, 'payload_too_large');
    // The 100 KB result is kept by reference; its message serves it.
    assert.deepEqual(ended.steps[0].result_ref, {
      message_id: `${chainId}:produce`,
      bytes: 100_000 + '{"blob":""}'.length,
    });
    assert.deepEqual(await messageResult(`${chainId}:produce`), { blob: 'p'.repeat(100_000) });
    assert.deepEqual(
      agent.deliveries.filter((d) => d.body.message_id.startsWith(`${chainId}:`)).map((d) => d.body.capability),
      ['produce'],
    );
    assert.equal((await request('GET', `${system.baseUrl}/v1/messages/${chainId}:wide`)).status, 404);
    const told = await notified(chainId);
    assert.equal(told.state, 'failed');
    assert.equal(told.error?.code, 'payload_too_large');
    assert.equal(told.steps.length, 2);
  });

  it('chain bounds - ten steps answering 230 KB each complete: results by reference, the run continued as new, each result served by its message, reply_to told', async () => {
    const chainId = newChainId('ten');
    const started = await request('POST', `${system.baseUrl}/v1/chains`, {
      chain_id: chainId,
      steps: tenBigSteps(),
      reply_to: { url: replies.url },
    });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const { statuses, ended } = await watchUntilEnded(chainId);
    assert.deepEqual([...new Set(statuses)], [200]);
    assert.equal(ended.state, 'completed', JSON.stringify(ended.error));
    assert.equal(ended.steps.length, 10);
    for (const [i, step] of ended.steps.entries()) {
      assert.equal(step.state, 'completed');
      assert.equal(step.result, undefined);
      assert.equal(step.result_ref.message_id, `${chainId}:s${i}`);
      // Each step read the n of the one before, also after the run continued as new (then from its message).
      assert.deepEqual(await messageResult(step.result_ref.message_id), { n: i + 1, blob: 'b'.repeat(RESULT_BYTES) });
    }
    const description = await system.client.workflow.getHandle(chainWorkflowId('default', chainId)).describe();
    assert.notEqual(description.runId, description.raw.workflowExecutionInfo?.firstRunId, 'the chain continued as new');
    const told = await notified(chainId);
    assert.equal(told.state, 'completed');
    assert.equal(told.steps.length, 10);
  });

  it('chain bounds - cancel answers 200 after the large steps, in both shapes: the chain ends cancelled, steps listed, told, results kept', async () => {
    const shapes = {
      sixty: [
        { id: 'produce', target: target('produce') },
        { ...sixtyReads(), on_failure: 'continue' },
        { id: 'hold', target: target('hold'), after: ['wide'] },
      ],
      ten: [...tenBigSteps(), { id: 'hold', target: target('hold'), after: ['s9'] }],
    };
    for (const [name, steps] of Object.entries(shapes)) {
      const chainId = newChainId(`cancel-${name}`);
      const started = await request('POST', `${system.baseUrl}/v1/chains`, {
        chain_id: chainId,
        steps,
        reply_to: { url: replies.url },
      });
      assert.equal(started.status, 202, JSON.stringify(started.body));
      await eventually(
        `${chainId}: hold to be delivered`,
        async () => (agent.deliveries.some((d) => d.body.message_id === `${chainId}:hold`) ? true : undefined),
        { timeoutMs: 60_000 },
      );
      const cancelled = await request('POST', `${chainUrl(chainId)}/cancel`, { reason: 'enough' });
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      const { statuses, ended } = await watchUntilEnded(chainId);
      assert.deepEqual([...new Set(statuses)], [200]);
      assert.equal(ended.state, 'cancelled');
      assert.equal(ended.error.code, 'cancelled_by_caller');
      assert.equal(ended.steps.length, steps.length);
      assert.equal(ended.steps.at(-1).state, 'cancelled');
      for (const step of ended.steps.filter((s: { state: string }) => s.state === 'completed'))
        assert.ok(await messageResult(step.message_id));
      if (name === 'sixty') assert.equal(ended.steps[1].error.code, 'payload_too_large');
      assert.equal((await notified(chainId)).state, 'cancelled');
    }
  });

  it('chain bounds - a chain whose run an operator terminates still lists its steps', async () => {
    const chainId = newChainId('terminated');
    const started = await request('POST', `${system.baseUrl}/v1/chains`, {
      chain_id: chainId,
      steps: [
        { id: 'first', target: target('wide') },
        { id: 'hold', target: target('hold') },
      ],
    });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    await eventually(`${chainId}: hold to be delivered`, async () =>
      agent.deliveries.some((d) => d.body.message_id === `${chainId}:hold`) ? true : undefined,
    );
    await system.client.workflow.getHandle(chainWorkflowId('default', chainId)).terminate('operator');
    const { ended } = await watchUntilEnded(chainId);
    assert.equal(ended.state, 'failed');
    assert.equal(ended.error.code, 'terminated');
    assert.deepEqual(
      ended.steps.map((s: { id: string; state: string }) => [s.id, s.state]),
      [
        ['first', 'completed'],
        ['hold', 'running'],
      ],
    );
  });

  it('chain bounds - a step whose message, read from the chain input alone, is over the cap is refused at submission (413 naming it)', async () => {
    const chainId = newChainId('known');
    const refused = await request('POST', `${system.baseUrl}/v1/chains`, {
      chain_id: chainId,
      input: { text: 't'.repeat(100_000) },
      steps: [
        {
          id: 'copies',
          target: target('wide'),
          input: { a: { $ref: '/input/text' }, b: { $ref: '/input/text' }, c: { $ref: '/input/text' } },
        },
      ],
    });
    assert.equal(refused.status, 413, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, 'payload_too_large');
    assert.deepEqual(refused.body.error.details, { step: 'copies' });
    assert.equal((await request('GET', chainUrl(chainId))).status, 404);
  });
});
