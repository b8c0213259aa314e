import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  circuitOutcome,
  classifyResponse,
  isTransientStatus,
  parseRetryAfter,
  verdictOfAck,
} from '../../protocol/verdicts';

const NOW = Date.parse('2026-11-30T10:00:00Z');

describe('classify response', () => {
  it('classify response - 200 with status processed is done synchronously', () => {
    assert.deepEqual(classifyResponse(200, { status: 'processed', result: { ok: 1 } }, null, NOW), {
      kind: 'processed',
      result: { ok: 1 },
    });
  });

  it('classify response - 200 with status failed is a failure reported by the agent', () => {
    assert.deepEqual(
      classifyResponse(200, { status: 'failed', error: { message: 'no', retryable: true } }, null, NOW),
      {
        kind: 'agent_failed',
        error: { message: 'no', retryable: true },
      },
    );
  });

  it('classify response - 200 with status input_required asks the caller (over HTTP and WebSocket); without a valid question it is refused', () => {
    const input = { message: 'Which order?', schema: { type: 'object', required: ['order_id'] } };
    assert.deepEqual(classifyResponse(200, { status: 'input_required', input }, null, NOW), {
      kind: 'input_required',
      input,
    });
    assert.deepEqual(verdictOfAck({ status: 'input_required', input: { message: 'Which order?' } }), {
      kind: 'input_required',
      input: { message: 'Which order?' },
    });
    assert.equal(classifyResponse(200, { status: 'input_required' }, null, NOW).kind, 'refused');
    assert.equal(verdictOfAck({ status: 'input_required', input: { message: '' } }).kind, 'refused');
  });

  it('classify response - 200 with status misrouted says the message is not for this capability; so does a WebSocket ack', () => {
    assert.deepEqual(classifyResponse(200, { status: 'misrouted', error: { message: 'not mine' } }, null, NOW), {
      kind: 'misrouted',
    });
    assert.deepEqual(verdictOfAck({ status: 'misrouted' }), { kind: 'misrouted' });
    assert.equal(circuitOutcome({ kind: 'misrouted' }), true, 'the agent answered: the link works');
  });

  it('classify response - 202, 200 without status and 204 mean accepted', () => {
    for (const [status, body] of [
      [202, undefined],
      [200, { ok: true }],
      [204, undefined],
    ] as const) {
      assert.deepEqual(classifyResponse(status, body, null, NOW), { kind: 'accepted' });
    }
  });

  it('classify response - 409 duplicate with or without a result', () => {
    assert.deepEqual(classifyResponse(409, { status: 'duplicate', result: 3 }, null, NOW), {
      kind: 'duplicate',
      processed: true,
      result: 3,
    });
    assert.deepEqual(classifyResponse(409, { status: 'duplicate' }, null, NOW), {
      kind: 'duplicate',
      processed: false,
    });
  });

  it('classify response - a plain 409 is a refusal', () => {
    assert.equal(classifyResponse(409, { error: 'conflict' }, null, NOW).kind, 'refused');
  });

  it('classify response - transient statuses are exactly 408, 425, 429 and 5xx but 501/505', () => {
    const transient = [408, 425, 429, 500, 502, 503, 504, 507, 599];
    const permanent = [400, 401, 403, 404, 410, 422, 501, 505, 301];
    assert.ok(transient.every(isTransientStatus));
    assert.ok(!permanent.some(isTransientStatus));
  });

  it('classify response - 429 carries Retry-After in ms', () => {
    assert.deepEqual(classifyResponse(429, undefined, '3', NOW), {
      kind: 'transient',
      error: 'HTTP 429',
      retryAfterMs: 3000,
    });
  });

  it('classify response - a refusal keeps the agent error message', () => {
    assert.deepEqual(classifyResponse(400, { error: { message: 'amount missing' } }, null, NOW), {
      kind: 'refused',
      error: 'HTTP 400: amount missing',
    });
  });

  it('classify response - Retry-After as seconds, as a date, or invalid', () => {
    assert.equal(parseRetryAfter('120', NOW), 120_000);
    assert.equal(parseRetryAfter('Mon, 30 Nov 2026 10:00:05 GMT', NOW), 5_000);
    assert.equal(parseRetryAfter('Mon, 30 Nov 2026 09:00:00 GMT', NOW), 0);
    assert.equal(parseRetryAfter('soon', NOW), undefined);
    assert.equal(parseRetryAfter(null, NOW), undefined);
  });
});
