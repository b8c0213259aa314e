/** `npm test`'s skip summary comes from this reporter: one JSON line per skipped test or suite, nothing for the rest. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestEvent } from '../runner/skip-reporter.mjs' with { 'resolution-mode': 'import' };

async function* events(list: TestEvent[]): AsyncGenerator<TestEvent> {
  yield* list;
}

describe('skip reporter', () => {
  it('skip reporter - a skip with its reason (or none), never a pass, a failure or another event', async () => {
    // An ES module (Node loads reporters before tsx), so imported dynamically from this CommonJS test.
    const { default: skipReporter } = await import('../runner/skip-reporter.mjs');
    const lines: string[] = [];
    const source = events([
      { type: 'test:pass', data: { name: 'runs', file: '/r/a.test.ts' } },
      {
        type: 'test:pass',
        data: { name: 'cluster', file: '/r/cluster.test.ts', skip: 'HAProxy not found: install it' },
      },
      { type: 'test:fail', data: { name: 'breaks', file: '/r/b.test.ts' } },
      { type: 'test:pass', data: { name: 'bare', file: '/r/c.test.ts', skip: true } },
      { type: 'test:diagnostic', data: { name: 'note' } },
    ]);
    for await (const line of skipReporter(source)) lines.push(line);
    assert.deepEqual(
      lines.map((line) => JSON.parse(line)),
      [
        { file: '/r/cluster.test.ts', name: 'cluster', reason: 'HAProxy not found: install it' },
        { file: '/r/c.test.ts', name: 'bare', reason: 'skipped' },
      ],
    );
  });
});
