import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConcurrencyLimit } from '../../util/concurrency-limit';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('concurrency limit', () => {
  it('concurrency limit - never more than the limit at once, the rest in arrival order, even when a task fails', async () => {
    const limit = new ConcurrencyLimit(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const gates = Array.from({ length: 6 }, deferred);
    const results = gates.map((gate, i) =>
      limit.run(async () => {
        started.push(i);
        most = Math.max(most, ++running);
        await gate.promise;
        running--;
        if (i === 1) throw new Error('task 1 failed');
        return i;
      }),
    );
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(started, [0, 1]);
    gates[1]!.resolve();
    await assert.rejects(results[1]!, /task 1 failed/);
    // A new task arriving now waits behind those already waiting.
    const late = limit.run(async () => (started.push(99), 99));
    for (const i of [0, 2, 3, 4, 5]) gates[i]!.resolve();
    assert.deepEqual(await Promise.all([results[0], ...results.slice(2), late]), [0, 2, 3, 4, 5, 99]);
    assert.equal(most, 2);
    assert.deepEqual(started, [0, 1, 2, 3, 4, 5, 99]);
  });
});
