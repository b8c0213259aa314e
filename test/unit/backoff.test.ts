import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_RETRY_AFTER_MS, retryDelayMs } from '../../rules/backoff';

const seeds = { initialBackoffMs: 5_000, maxBackoffMs: 60_000 };

describe('backoff', () => {
  it('backoff - doubles from the initial delay (upper bound of the jitter)', () => {
    assert.deepEqual(
      [1, 2, 3, 4].map((retry) => retryDelayMs(retry, seeds, 0.999999)),
      [5_000, 10_000, 20_000, 40_000],
    );
  });

  it('backoff - jitter keeps at least half of the delay', () => {
    assert.deepEqual(
      [1, 2, 3].map((retry) => retryDelayMs(retry, seeds, 0)),
      [2_500, 5_000, 10_000],
    );
  });

  it('backoff - never exceeds the cap', () => {
    assert.equal(retryDelayMs(10, seeds, 0.999999), 60_000);
  });

  it('backoff - Retry-After is a floor, beyond the backoff cap but at most 10 minutes', () => {
    assert.equal(retryDelayMs(1, seeds, 0, 30_000), 30_000);
    assert.equal(retryDelayMs(1, seeds, 0, 120_000), 120_000);
    assert.equal(retryDelayMs(1, seeds, 0, 3_600_000), MAX_RETRY_AFTER_MS);
    assert.equal(retryDelayMs(1, seeds, 0, 1_000), 2_500);
  });
});
