import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  lookupRefusal,
  nextStep,
  outOfTime,
  waitsOnCircuits,
  type AttemptEvent,
  type NextStep,
  type Progress,
} from '../../workflows/next-step';

const FIRST_TRY: Progress = {
  tries: 1,
  maxAttempts: 3,
  lastFailure: { code: 'delivery_exhausted', message: 'no delivery was attempted' },
};
const LAST_TRY: Progress = { ...FIRST_TRY, tries: 3 };
const busy = { message: 'busy, try later', retryable: true };
const broken = { code: 'no_such_order', message: 'no order 42' };

const cases: { name: string; event: AttemptEvent; progress?: Progress; step: NextStep }[] = [
  {
    name: 'a processed answer finishes with its result',
    event: { kind: 'answered', verdict: { kind: 'processed', result: { refunded: true } } },
    step: { kind: 'finish', state: 'processed', result: { refunded: true } },
  },
  {
    name: 'an input_required answer waits for the caller with the question',
    event: { kind: 'answered', verdict: { kind: 'input_required', input: { message: 'Which order?' } } },
    step: { kind: 'await_input', input: { message: 'Which order?' } },
  },
  {
    name: 'an input_required receipt waits for the caller, even during a backoff',
    event: {
      kind: 'receipt_while_backing_off',
      receipt: {
        agent_id: 'a',
        status: 'input_required',
        input: { message: 'Which order?', schema: { type: 'object' } },
      },
    },
    step: { kind: 'await_input', input: { message: 'Which order?', schema: { type: 'object' } } },
  },
  {
    name: 'an input_required receipt without its question is the agent failing',
    event: { kind: 'receipt', receipt: { agent_id: 'a', status: 'input_required' } },
    step: {
      kind: 'finish',
      state: 'failed',
      reason: { code: 'agent_failed', message: 'the agent asked for input without saying what it needs' },
    },
  },
  {
    name: 'an accepted answer waits for the receipt',
    event: { kind: 'answered', verdict: { kind: 'accepted' } },
    step: { kind: 'await_receipt' },
  },
  {
    name: 'a duplicate not yet processed waits for the receipt',
    event: { kind: 'answered', verdict: { kind: 'duplicate', processed: false } },
    step: { kind: 'await_receipt' },
  },
  {
    name: 'a duplicate already processed finishes with its result',
    event: { kind: 'answered', verdict: { kind: 'duplicate', processed: true, result: 'done' } },
    step: { kind: 'finish', state: 'processed', result: 'done' },
  },
  {
    name: 'an answer that the message is not for this capability sends it back to the router (or ends it)',
    event: { kind: 'answered', verdict: { kind: 'misrouted' } },
    step: { kind: 'reroute' },
  },
  {
    name: 'a refusal fails the message at once, even on the first try',
    event: { kind: 'answered', verdict: { kind: 'refused', error: 'HTTP 422' } },
    step: {
      kind: 'finish',
      state: 'failed',
      reason: { code: 'agent_refused', message: 'the agent refused the message: HTTP 422' },
    },
  },
  {
    name: "the gateway's refusal of an answer too large fails the message with its own code, not retried",
    event: {
      kind: 'answered',
      verdict: { kind: 'refused', code: 'result_too_large', error: 'the answer is larger than 1024 bytes' },
    },
    step: {
      kind: 'finish',
      state: 'failed',
      reason: { code: 'result_too_large', message: 'the answer is larger than 1024 bytes' },
    },
  },
  {
    name: 'a failure the agent does not mark retryable fails the message',
    event: { kind: 'answered', verdict: { kind: 'agent_failed', error: broken } },
    step: { kind: 'finish', state: 'failed', reason: { code: 'agent_failed', message: 'no order 42' }, error: broken },
  },
  {
    name: 'a retryable failure backs off without blaming the instance',
    event: { kind: 'answered', verdict: { kind: 'agent_failed', error: busy } },
    step: {
      kind: 'back_off',
      failure: { code: 'agent_failed', message: 'busy, try later' },
      blameInstance: false,
      error: busy,
    },
  },
  {
    name: 'a transient error backs off, blames the instance and keeps Retry-After',
    event: { kind: 'answered', verdict: { kind: 'transient', error: 'HTTP 503', retryAfterMs: 2_000 } },
    step: {
      kind: 'back_off',
      failure: { code: 'delivery_exhausted', message: 'HTTP 503' },
      blameInstance: true,
      retryAfterMs: 2_000,
    },
  },
  {
    name: 'a transient error on the last try gives up, counting the attempts',
    event: { kind: 'answered', verdict: { kind: 'transient', error: 'ECONNREFUSED' } },
    progress: LAST_TRY,
    step: {
      kind: 'give_up',
      reason: { code: 'delivery_exhausted', message: 'no delivery succeeded in 3 attempts; last error: ECONNREFUSED' },
    },
  },
  {
    name: 'a retryable failure on the last try gives up and keeps the agent error',
    event: { kind: 'answered', verdict: { kind: 'agent_failed', error: busy } },
    progress: LAST_TRY,
    step: {
      kind: 'give_up',
      reason: { code: 'agent_failed', message: 'no delivery succeeded in 3 attempts; last error: busy, try later' },
      error: busy,
    },
  },
  {
    name: 'a delivery too late (the deadline passed) tries again at once, so the next turn expires it',
    event: { kind: 'answered', verdict: { kind: 'too_late' } },
    progress: LAST_TRY,
    step: { kind: 'attempt_now' },
  },
  {
    name: 'no available instance backs off without blaming one',
    event: { kind: 'unavailable', error: 'no available instance (i-1: offline)' },
    step: {
      kind: 'back_off',
      failure: { code: 'no_available_instance', message: 'no available instance (i-1: offline)' },
      blameInstance: false,
    },
  },
  {
    name: 'no available instance on the last try gives up',
    event: { kind: 'unavailable', error: 'no available instance (none registered)' },
    progress: LAST_TRY,
    step: {
      kind: 'give_up',
      reason: {
        code: 'no_available_instance',
        message: 'no delivery succeeded in 3 attempts; last error: no available instance (none registered)',
      },
    },
  },
  {
    name: 'a processed receipt finishes with its result',
    event: { kind: 'receipt', receipt: { agent_id: 'a', status: 'processed', result: 42 } },
    step: { kind: 'finish', state: 'processed', result: 42 },
  },
  {
    name: 'a failed receipt fails the message with the agent error',
    event: { kind: 'receipt', receipt: { agent_id: 'a', status: 'failed', error: broken } },
    step: { kind: 'finish', state: 'failed', reason: { code: 'agent_failed', message: 'no order 42' }, error: broken },
  },
  {
    name: 'a failed receipt without an error still says why',
    event: { kind: 'receipt', receipt: { agent_id: 'a', status: 'failed' } },
    step: {
      kind: 'finish',
      state: 'failed',
      reason: { code: 'agent_failed', message: 'the agent reported a failure' },
    },
  },
  {
    name: 'a retryable failure receipt backs off',
    event: { kind: 'receipt', receipt: { agent_id: 'a', status: 'failed', error: busy } },
    step: {
      kind: 'back_off',
      failure: { code: 'agent_failed', message: 'busy, try later' },
      blameInstance: false,
      error: busy,
    },
  },
  {
    name: 'a retryable failure receipt during a backoff cuts it short',
    event: { kind: 'receipt_while_backing_off', receipt: { agent_id: 'a', status: 'failed', error: busy } },
    progress: LAST_TRY,
    step: { kind: 'attempt_now', error: busy },
  },
  {
    name: 'a processed receipt during a backoff wins over the retry',
    event: {
      kind: 'receipt_while_backing_off',
      receipt: { agent_id: 'a', status: 'processed', result: 'late but done' },
    },
    step: { kind: 'finish', state: 'processed', result: 'late but done' },
  },
  {
    name: 'a misrouted receipt chooses again, even on the last try (the agent did nothing)',
    event: { kind: 'receipt', receipt: { agent_id: 'a', status: 'misrouted' } },
    progress: LAST_TRY,
    step: { kind: 'reroute' },
  },
  {
    name: 'a misrouted receipt during a backoff chooses again',
    event: { kind: 'receipt_while_backing_off', receipt: { agent_id: 'a', status: 'misrouted' } },
    step: { kind: 'reroute' },
  },
  {
    name: 'a missing receipt redelivers at once',
    event: { kind: 'receipt_missing', ackTimeoutMs: 500 },
    step: { kind: 'redeliver', failure: { code: 'ack_timeout', message: 'no receipt within 500 ms of delivery' } },
  },
  {
    name: 'a missing receipt on the last try gives up',
    event: { kind: 'receipt_missing', ackTimeoutMs: 500 },
    progress: LAST_TRY,
    step: {
      kind: 'give_up',
      reason: {
        code: 'ack_timeout',
        message: 'no delivery succeeded in 3 attempts; last error: no receipt within 500 ms of delivery',
      },
    },
  },
];

describe('next step', () => {
  for (const c of cases) {
    it(`next step - ${c.name}`, () => {
      assert.deepEqual(nextStep(c.event, c.progress ?? FIRST_TRY), c.step);
    });
  }

  it('next step - the capability time limit fails with the last failure', () => {
    assert.deepEqual(outOfTime({ code: 'ack_timeout', message: 'no receipt within 500 ms of delivery' }), {
      code: 'ack_timeout',
      message:
        "no delivery succeeded within the capability's time limit; last error: no receipt within 500 ms of delivery",
    });
  });

  it('next step - a target the catalogue refuses says which and why', () => {
    const target = { agent_id: 'agt_1', capability: 'refund' };
    assert.deepEqual(lookupRefusal('unknown_agent', target), {
      code: 'agent_not_found',
      message: 'no agent agt_1 in this tenant',
    });
    assert.deepEqual(lookupRefusal('unknown_capability', target), {
      code: 'unknown_capability',
      message: 'agent agt_1 has no capability refund',
    });
    assert.deepEqual(lookupRefusal('forbidden', target), {
      code: 'capability_forbidden',
      message: 'the sender may not reach refund of agent agt_1 (its access list changed)',
    });
  });

  it('next step - only a lookup where every instance is merely circuit-open waits without spending a try', () => {
    assert.equal(waitsOnCircuits([{ reason: 'circuit_open' }, { reason: 'circuit_open' }]), true);
    assert.equal(waitsOnCircuits([{ reason: 'circuit_open' }, { reason: 'offline' }]), false);
    assert.equal(waitsOnCircuits([{ reason: 'draining' }]), false);
    assert.equal(waitsOnCircuits([]), false, 'an agent without instances is not waiting on a circuit');
  });
});
