/** What `POST /v1/chains` charges against the tenant's rate limit, and what a repeated POST shows a key without `read`. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chainCost, chainSummary } from '../../api/routes/chains';
import type { ChainStatus } from '../../chains/chain';

const step = (id: string, compensate = false) => ({
  id,
  target: { agent_id: 'agt_1', capability: 'c' },
  ...(compensate ? { compensate: { target: { agent_id: 'agt_1', capability: 'undo' } } } : {}),
});

describe('chain route', () => {
  it('chain route - a chain costs one unit per step and one per compensation', () => {
    assert.equal(chainCost({ steps: [step('a')] }, 32), 1);
    assert.equal(chainCost({ steps: [step('a', true), step('b'), step('c', true)] }, 32), 5);
    const full = Array.from({ length: 32 }, (_, i) => step(`s${i}`, true));
    assert.equal(chainCost({ steps: full }, 32), 64);
  });

  it('chain route - steps past MAX_CHAIN_STEPS are not counted (the chain is refused), and a body that is no chain costs one', () => {
    const long = Array.from({ length: 10_000 }, (_, i) => step(`s${i}`, true));
    assert.equal(chainCost({ steps: long }, 32), 64);
    for (const body of [undefined, null, 'x', 42, [], {}, { steps: 'no' }, { steps: [] }])
      assert.equal(chainCost(body, 32), 1, JSON.stringify(body));
    assert.equal(
      chainCost({ steps: [null, 7, 'x', { compensate: null }] }, 32),
      5,
      'odd entries count as steps (the schema refuses them later)',
    );
  });

  it('chain route - the summary keeps ids, states and times, and drops every result and error message', () => {
    const status: ChainStatus = {
      chain_id: 'c1',
      tenant: 't',
      state: 'compensated',
      started_at: '2026-01-01T00:00:00.000Z',
      ended_at: '2026-01-01T00:01:00.000Z',
      error: { code: 'agent_failed', message: 'the payment provider said no: card 4111…', step: 'pay' },
      steps: [
        {
          id: 'classify',
          after: [],
          message_id: 'c1:classify',
          state: 'completed',
          result: { secret: 'the answer' },
          started_at: '2026-01-01T00:00:00.000Z',
          ended_at: '2026-01-01T00:00:10.000Z',
          target: { agent_id: 'agt_1', capability: 'classify' },
          compensation: { message_id: 'c1:classify:compensate', state: 'completed', result: { undone: 'details' } },
        },
        {
          id: 'pay',
          after: ['classify'],
          message_id: 'c1:pay',
          state: 'failed',
          error: { code: 'agent_failed', message: 'card 4111…' },
        },
      ],
    };
    assert.deepEqual(chainSummary(status), {
      chain_id: 'c1',
      tenant: 't',
      state: 'compensated',
      started_at: '2026-01-01T00:00:00.000Z',
      ended_at: '2026-01-01T00:01:00.000Z',
      error: { code: 'agent_failed', step: 'pay' },
      steps: [
        {
          id: 'classify',
          after: [],
          message_id: 'c1:classify',
          state: 'completed',
          started_at: '2026-01-01T00:00:00.000Z',
          ended_at: '2026-01-01T00:00:10.000Z',
          target: { agent_id: 'agt_1', capability: 'classify' },
          compensation: { message_id: 'c1:classify:compensate', state: 'completed' },
        },
        { id: 'pay', after: ['classify'], message_id: 'c1:pay', state: 'failed' },
      ],
    });
    assert.ok(!JSON.stringify(chainSummary(status)).includes('4111'));
  });

  it('chain route - a field the summary does not list (a result by reference, anything added later) is not shown', () => {
    const step = {
      id: 'big',
      after: [],
      message_id: 'c2:big',
      state: 'completed',
      result_ref: { message_id: 'c2:big', bytes: 300_000 },
      future_detail: 'x',
    };
    const status = {
      chain_id: 'c2',
      tenant: 't',
      state: 'completed',
      started_at: '2026-01-01T00:00:00.000Z',
      steps: [step],
      answers: ['y'],
    } as unknown as ChainStatus;
    assert.deepEqual(chainSummary(status), {
      chain_id: 'c2',
      tenant: 't',
      state: 'completed',
      started_at: '2026-01-01T00:00:00.000Z',
      steps: [{ id: 'big', after: [], message_id: 'c2:big', state: 'completed' }],
    });
  });
});
