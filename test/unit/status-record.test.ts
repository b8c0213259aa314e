import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MessageInput, MessageState } from '../../messages/message';
import { StatusRecord } from '../../workflows/status-record';

const input = {
  tenant: 'acme',
  message_id: 'm-1',
  trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
  target: { agent_id: 'agt_1', capability: 'refund' },
  callback_url: 'http://gateway.invalid/v1/callback',
  accepted_at: '2026-01-01T00:00:00.000Z',
  policy: {
    maxAttempts: 3,
    initialBackoffMs: 100,
    maxBackoffMs: 400,
    attemptTimeoutMs: 1_000,
    defaultAckTimeoutMs: 60_000,
  },
} satisfies MessageInput;
const target = {
  agent_id: 'agt_1',
  capability: 'refund',
  instance_id: 'i-1',
  transport: 'http' as const,
  endpoint: 'http://agent.invalid/',
};

function record() {
  const changes: MessageState[] = [];
  return {
    changes,
    record: new StatusRecord(
      input,
      () => '2026-01-01T00:00:01.000Z',
      (state) => changes.push(state),
    ),
  };
}

describe('status record', () => {
  it('status record - reports each state change once and refuses an illegal one', () => {
    const { changes, record: r } = record();
    r.moveTo('routing');
    r.moveTo('routing');
    r.deliveringTo(target);
    assert.deepEqual(changes, ['routing', 'delivering']);
    assert.deepEqual(r.status.agent, { agent_id: 'agt_1', capability: 'refund', instance_id: 'i-1' });
    assert.throws(() => r.moveTo('accepted'), /illegal transition delivering → accepted/);
  });

  it('status record - a give-up ends failed with the reason and keeps the agent error', () => {
    const { record: r } = record();
    r.moveTo('routing');
    const ended = r.finishAs({
      kind: 'give_up',
      reason: { code: 'agent_failed', message: 'no delivery succeeded in 3 attempts; last error: busy' },
      error: { message: 'busy', retryable: true },
    });
    assert.equal(ended.state, 'failed');
    assert.equal(ended.reason?.code, 'agent_failed');
    assert.deepEqual(ended.error, { message: 'busy', retryable: true });
    assert.equal(ended.completed_at, '2026-01-01T00:00:01.000Z');
  });

  it('status record - the cancel notice goes to the last instance that took the message over HTTP', () => {
    const { record: r } = record();
    r.moveTo('routing');
    r.deliveringTo(target);
    r.attempted(
      target,
      1,
      { verdict: { kind: 'accepted' }, started_at: input.accepted_at, latency_ms: 3 },
      { kind: 'accepted' },
    );
    r.attempted(
      { ...target, instance_id: 'i-2', endpoint: 'http://other.invalid/' },
      2,
      {
        verdict: { kind: 'transient', error: 'HTTP 503' },
        http_status: 503,
        started_at: input.accepted_at,
        latency_ms: 3,
      },
      { kind: 'transient', error: 'HTTP 503' },
    );
    assert.equal(r.lastHttpDelivery()?.instance_id, 'i-1');
    assert.deepEqual(
      r.status.attempts.map((a) => [a.outcome, a.http_status, a.error]),
      [
        ['accepted', undefined, undefined],
        ['transient_error', 503, 'HTTP 503'],
      ],
    );
  });
});
