import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AttemptRecord } from '../../messages/message';
import { endedStatus, startingStatus } from '../../messages/status';

const start = {
  message_id: 'm-1',
  trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
  tenant: 'acme',
  target: { agent_id: 'agt_1', capability: 'refund' },
  accepted_at: '2026-01-01T00:00:00.000Z',
};

describe('message status', () => {
  it('message status - a first run starts accepted, with no attempts and only the fields it was given', () => {
    assert.deepEqual(startingStatus(start, '2026-01-01T00:00:01.000Z'), {
      ...start,
      state: 'accepted',
      attempts: [],
      updated_at: '2026-01-01T00:00:01.000Z',
    });
  });

  it('message status - a redriven run starts with the earlier attempts and the redrives so far', () => {
    const earlier: AttemptRecord = {
      attempt: 1,
      agent_id: 'agt_1',
      started_at: start.accepted_at,
      latency_ms: 0,
      outcome: 'unavailable',
    };
    const history = [{ at: '2026-01-02T00:00:00.000Z', previous_state: 'failed' as const }];
    const previousAttempts = [earlier];
    const status = startingStatus(
      { ...start, deadline: '2026-01-03T00:00:00.000Z', redrive: { previous_attempts: previousAttempts, history } },
      '2026-01-02T00:00:00.000Z',
    );
    assert.deepEqual(status.attempts, [earlier]);
    status.attempts.push({ ...earlier, attempt: 2 });
    assert.equal(previousAttempts.length, 1, 'the run appends to a list of its own');
    assert.deepEqual(status.redrives, history);
    assert.equal(status.deadline, '2026-01-03T00:00:00.000Z');
  });

  it('message status - an ended status records its state, reason and completion time', () => {
    const ended = endedStatus(
      startingStatus(start, start.accepted_at),
      'failed',
      { code: 'terminated', message: 'the workflow run ended as TERMINATED' },
      '2026-01-01T00:05:00.000Z',
    );
    assert.equal(ended.state, 'failed');
    assert.deepEqual(ended.reason, { code: 'terminated', message: 'the workflow run ended as TERMINATED' });
    assert.equal(ended.updated_at, '2026-01-01T00:05:00.000Z');
    assert.equal(ended.completed_at, '2026-01-01T00:05:00.000Z');
  });
});
