/** `prepareChain`: a chain checked in full before it runs, unless the api sealed it (it checked it with the same code). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { createPrepareChain } from '../../activities/prepare-chain';
import { plannedSteps } from '../../chains/plan';
import type { RunChainInput } from '../../chains/temporal';

const limits = { maxSteps: 32, maxDepth: 8, maxBytes: 1_000_000, maxMessageBytes: 4096, maxHistoryBytes: 65_536 };
const target = { agent_id: 'agt_1', capability: 'echo' };
const input: RunChainInput = {
  tenant: 't',
  chain_id: 'c1',
  input: { n: 0 },
  steps: [
    { id: 'first', target, input: { n: { $ref: '/input/n' } } },
    { id: 'second', target, input: { n: { $ref: '/steps/first/result/n' } } },
  ],
};

describe('prepareChain', () => {
  it('prepareChain - a chain whose gateway seal checked out is not checked again: its plan and limits, no catalogue read', async () => {
    const reads: string[] = [];
    const queries = {
      get: async (_tenant: string, agentId: string) => (reads.push(agentId), undefined),
      checkReach: async () => assert.fail('no ACL check'),
    };
    const prepared = await createPrepareChain({ queries, limits })(input, true);
    assert.deepEqual(prepared, {
      steps: plannedSteps(input),
      limits: { max_message_bytes: 4096, max_history_bytes: 65_536 },
    });
    assert.deepEqual(reads, []);
  });

  it('prepareChain - any other chain is checked in full against the catalogue: an agent it does not know refuses it', async () => {
    const reads: string[] = [];
    const queries = {
      get: async (_tenant: string, agentId: string) => (reads.push(agentId), undefined),
      checkReach: async () => assert.fail('no ACL check without a caller'),
    };
    await assert.rejects(
      createPrepareChain({ queries, limits })(input),
      (error: unknown) => error instanceof ApplicationFailure && error.type === 'agent_not_found' && error.nonRetryable,
    );
    assert.deepEqual(reads, ['agt_1']);
  });
});
