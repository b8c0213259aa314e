/** What the circuit and the ranking hear when a message ends (workflows/status-record.ts, activities/settle-message.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSettleMessage, type Settlement } from '../../activities/settle-message';
import type { MessageStatus } from '../../messages/message';
import { settlementOf } from '../../workflows/status-record';

function status(overrides: Partial<MessageStatus>): MessageStatus {
  return {
    message_id: 'm-1',
    trace_id: 't',
    tenant: 'acme',
    target: { agent_id: 'billing', capability: 'refund' },
    state: 'processed',
    attempts: [
      {
        attempt: 1,
        agent_id: 'billing',
        instance_id: 'i-1',
        started_at: '2026-01-01T00:00:00.000Z',
        latency_ms: 5,
        outcome: 'accepted',
      },
    ],
    agent: { agent_id: 'billing', capability: 'refund', instance_id: 'i-1' },
    accepted_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.250Z',
    completed_at: '2026-01-01T00:00:00.250Z',
    ...overrides,
  } as MessageStatus;
}

describe('settlement', () => {
  it('settlement - a processed message credits its instance and counts as processed, timed from the first attempt', () => {
    assert.deepEqual(settlementOf(status({}), true), {
      agent_id: 'billing',
      capability: 'refund',
      instance_id: 'i-1',
      receipt_came: true,
      processed: true,
      latency_ms: 250,
    });
  });

  it('settlement - accepted but never processed counts against the capability', () => {
    const settled = settlementOf(status({ state: 'failed' }), false)!;
    assert.equal(settled.processed, false);
    assert.equal(settled.receipt_came, false);
  });

  it('settlement - nothing is told when no attempt reached an instance, or when the caller cancelled', () => {
    assert.equal(settlementOf(status({ state: 'rejected', attempts: [], agent: undefined }), false), undefined);
    assert.equal(
      settlementOf(
        status({
          state: 'failed',
          attempts: [
            {
              attempt: 1,
              agent_id: 'billing',
              started_at: '2026-01-01T00:00:00.000Z',
              latency_ms: 0,
              outcome: 'unavailable',
            },
          ],
        }),
        false,
      ),
      undefined,
    );
    assert.equal(settlementOf(status({ state: 'cancelled' }), true), undefined);
  });

  it('settlement - the receipt credits the circuit; the ranking hears processed or not; failures to record are swallowed', async () => {
    const circuit: [string, string, boolean][] = [];
    const ranking: [string, string, boolean, number][] = [];
    const settle = createSettleMessage({
      circuits: { record: async (a, i, ok) => void circuit.push([a, i, ok]) as never },
      stats: { record: async (a, c, ok, ms) => void ranking.push([a, c, ok, ms]) },
    });
    const settled: Settlement = {
      agent_id: 'billing',
      capability: 'refund',
      instance_id: 'i-1',
      receipt_came: true,
      processed: false,
      latency_ms: 40,
    };
    await settle(settled);
    await settle({ ...settled, receipt_came: false });
    assert.deepEqual(circuit, [['billing', 'i-1', true]]);
    assert.deepEqual(ranking, [
      ['billing', 'refund', false, 40],
      ['billing', 'refund', false, 40],
    ]);
    const failing = createSettleMessage({
      circuits: { record: () => Promise.reject(new Error('down')) },
      stats: { record: () => Promise.reject(new Error('down')) },
    });
    await failing(settled);
  });
});
