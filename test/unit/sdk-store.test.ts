import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FileStore } from '../../sdk';

describe('sdk store', () => {
  it('sdk store - handled messages survive a restart (a new store on the same file)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdk-store-'));
    try {
      const file = join(dir, 'handled.jsonl');
      new FileStore(file).set('m1', { status: 'processed', result: { refund: 1 } });
      new FileStore(file).set('m2', { status: 'failed', error: { message: 'no' } });
      appendFileSync(file, '{"id":"m3","sta'); // a line torn by a crash
      const reopened = new FileStore(file);
      assert.deepEqual(reopened.get('m1'), { status: 'processed', result: { refund: 1 } });
      assert.deepEqual(reopened.get('m2'), { status: 'failed', error: { message: 'no' } });
      assert.equal(reopened.get('m3'), undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
