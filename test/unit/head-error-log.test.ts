/** How the api logs a head's training: one that ended without a head, one the time guard cut short (router/create-router.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { logHeadError, logHeadTrained } from '../../router/create-router';
import { EmbeddingPoolClosed } from '../../router/embeddings/embedding-pool';

function recorder() {
  const lines: { level: 'info' | 'warn'; args: unknown[] }[] = [];
  return {
    lines,
    logger: {
      info: (...args: unknown[]) => void lines.push({ level: 'info', args }),
      warn: (...args: unknown[]) => void lines.push({ level: 'warn', args }),
    },
  };
}

describe('logHeadError', () => {
  it('logHeadError - a training that failed is a warning naming the error', () => {
    const { lines, logger } = recorder();
    const error = new Error('out of memory');
    logHeadError(logger as never, error);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.level, 'warn');
    assert.deepEqual(lines[0]!.args[0], { err: error });
  });
  it('logHeadError - a training cut short because the router is closing (its embedding pool closed) is no warning', () => {
    const { lines, logger } = recorder();
    logHeadError(logger as never, new EmbeddingPoolClosed());
    assert.deepEqual(
      lines.map((l) => l.level),
      ['info'],
    );
  });
});

describe('logHeadTrained', () => {
  const training = { model: 'm', capabilities: 3, samples: 10, iterations: 40, ms: 5 };
  it('logHeadTrained - a head trained within its iterations is news; one the time guard cut short is a warning', () => {
    const { lines, logger } = recorder();
    logHeadTrained(logger as never, { ...training, stopped: 'converged' });
    logHeadTrained(logger as never, { ...training, stopped: 'time_guard', time_guard_cuts: 2 });
    assert.deepEqual(
      lines.map((l) => l.level),
      ['info', 'warn'],
    );
    assert.match(String(lines[1]!.args[1]), /time guard/);
  });
});
