import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { circuitOutcome } from '../../protocol/verdicts';
import { closedCircuit, effectiveState, recordOutcome, type Circuit } from '../../rules/circuit';

const policy = {
  consecutiveFailures: 5,
  failureRate: 0.5,
  minRequests: 20,
  windowMs: 60_000,
  openMs: 30_000,
  maxOpenMs: 300_000,
};

function run(outcomes: boolean[], start: Circuit = closedCircuit(0), stepMs = 100): Circuit {
  return outcomes.reduce((c, ok, i) => recordOutcome(c, ok, start.window_started_at + (i + 1) * stepMs, policy), start);
}

describe('circuit', () => {
  it('circuit - opens after five failures in a row', () => {
    assert.equal(run([false, false, false, false]).state, 'closed');
    const opened = run([false, false, false, false, false]);
    assert.equal(opened.state, 'open');
    assert.equal(opened.times_opened, 1);
  });

  it('circuit - sporadic failures never open it', () => {
    const outcomes = Array.from({ length: 200 }, (_, i) => i % 4 !== 0); // 25 % failures, never two in a row
    const circuit = run(outcomes);
    assert.equal(circuit.state, 'closed');
    assert.equal(circuit.consecutive_failures, 0);
  });

  it('circuit - a failure rate of half or more over at least 20 outcomes opens it', () => {
    const alternating = Array.from({ length: 19 }, (_, i) => i % 2 === 0); // 9 failures out of 19
    assert.equal(run(alternating).state, 'closed', 'not enough requests yet');
    assert.equal(run([...alternating, false]).state, 'open', '10 of 20 failed');
  });

  it('circuit - the window restarts, so old failures are forgotten', () => {
    const slow = Array.from({ length: 30 }, (_, i) => i % 2 === 0);
    assert.equal(run(slow, closedCircuit(0), 5_000).state, 'closed', 'never 20 outcomes inside one 60 s window');
  });

  it('circuit - half-open after the open time; a probe success closes, a probe failure reopens for longer', () => {
    const opened = run([false, false, false, false, false]);
    const at = opened.opened_at!;
    assert.equal(effectiveState(opened, at + 29_999, policy), 'open');
    assert.equal(effectiveState(opened, at + 30_000, policy), 'half_open');
    const closed = recordOutcome(opened, true, at + 30_000, policy);
    assert.equal(closed.state, 'closed');
    assert.equal(closed.times_opened, 0);
    const reopened = recordOutcome(opened, false, at + 30_000, policy);
    assert.equal(reopened.state, 'open');
    assert.equal(reopened.times_opened, 2);
    assert.equal(effectiveState(reopened, at + 30_000 + 59_999, policy), 'open', 'second opening lasts 60 s');
    assert.equal(effectiveState(reopened, at + 30_000 + 60_000, policy), 'half_open');
  });

  it('circuit - outcomes while open do not reset the open time', () => {
    const opened = run([false, false, false, false, false]);
    const later = recordOutcome(opened, false, opened.opened_at! + 1_000, policy);
    assert.equal(later.opened_at, opened.opened_at);
    assert.equal(later.times_opened, 1);
  });

  it('circuit - a silent agent (accepts, never sends the receipt) opens it after the streak, as one answering 503 does', () => {
    // Per attempt: what the "accepted" answer records, then the workflow's missing-receipt failure.
    const silentAttempt = [circuitOutcome({ kind: 'accepted' }), false].filter((ok) => ok !== undefined);
    const silent = Array.from({ length: 5 }, () => silentAttempt).flat();
    assert.equal(run(silent.slice(0, 4)).state, 'closed');
    assert.equal(run(silent).state, 'open');
    const failing = Array.from({ length: 5 }, () => circuitOutcome({ kind: 'transient', error: 'HTTP 503' })!);
    assert.equal(run(failing).state, 'open');
  });

  it('circuit - only an answer that proves the work was done (or refused) counts as a success of the link', () => {
    assert.equal(circuitOutcome({ kind: 'accepted' }), undefined, 'the receipt decides');
    assert.equal(circuitOutcome({ kind: 'duplicate', processed: false }), undefined, 'the receipt decides');
    assert.equal(circuitOutcome({ kind: 'processed', result: null }), true);
    assert.equal(circuitOutcome({ kind: 'duplicate', processed: true, result: 1 }), true);
    assert.equal(circuitOutcome({ kind: 'refused', error: 'HTTP 422' }), true);
    assert.equal(circuitOutcome({ kind: 'transient', error: 'timeout' }), false);
  });
});
