/** One sweep with its dependencies faked: every step runs, whatever the others do. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sweepOnce } from '../../catalogue/sweeper';

describe('sweeper', () => {
  it('sweeper - a failing step does not stop the others', async () => {
    const pruned: string[] = [];
    const warnings: string[] = [];
    const logger = { info() {}, warn: (_: unknown, message: string) => void warnings.push(message) };
    const heartbeats = { sweep: async () => Promise.reject(new Error('database down')) };
    const pruner = (name: string, fails = false) => ({
      name,
      prune: async () => {
        pruned.push(name);
        if (fails) throw new Error('database down');
        return 1;
      },
    });
    await sweepOnce(heartbeats, [pruner('agent_events', true), pruner('routing_sessions')], logger);
    assert.deepEqual(pruned, ['agent_events', 'routing_sessions']);
    assert.deepEqual(warnings, ['sweep failed; will retry', 'pruning failed; will retry']);
  });
});
