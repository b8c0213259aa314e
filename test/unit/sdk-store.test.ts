import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FileStore, MemoryStore } from '../../sdk';

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

  it('sdk store - memory keeps at most maxEntries ids, forgetting the oldest', () => {
    const store = new MemoryStore({ maxEntries: 3 });
    for (const id of ['m1', 'm2', 'm3', 'm4']) store.set(id, { status: 'processed', result: id });
    assert.equal(store.size, 3);
    assert.equal(store.get('m1'), undefined);
    assert.deepEqual(store.get('m4'), { status: 'processed', result: 'm4' });
  });

  it('sdk store - ids older than maxAgeMs are forgotten', () => {
    let now = 1_000_000;
    const store = new MemoryStore({ maxAgeMs: 100, now: () => now });
    store.set('old', { status: 'processed' });
    now += 50;
    store.set('newer', { status: 'processed' });
    assert.deepEqual(store.get('old'), { status: 'processed' });
    now += 60;
    assert.equal(store.get('old'), undefined, 'past the window');
    assert.deepEqual(store.get('newer'), { status: 'processed' });
    store.set('newest', { status: 'processed' });
    assert.equal(store.size, 2, 'expired ids are dropped as new ones come');
  });

  it('sdk store - the file is compacted to the kept window, and a reopened store keeps the window', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdk-store-'));
    try {
      const file = join(dir, 'handled.jsonl');
      const store = new FileStore(file, { maxEntries: 10 });
      for (let i = 0; i < 1_000; i++) store.set(`m${i}`, { status: 'processed', result: i });
      assert.equal(store.size, 10);
      assert.ok(store.fileLines <= 200, `the file has ${store.fileLines} lines`);
      assert.equal(readFileSync(file, 'utf8').trim().split('\n').length, store.fileLines);
      const reopened = new FileStore(file, { maxEntries: 10 });
      assert.equal(reopened.size, 10);
      assert.deepEqual(reopened.get('m999'), { status: 'processed', result: 999 });
      assert.equal(reopened.get('m0'), undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sdk store - under a long random mix of repeats, new ids and expiry it keeps exactly the window a list model keeps', () => {
    let seed = 11;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    let now = 0;
    const store = new MemoryStore({ maxEntries: 40, maxAgeMs: 500, now: () => now });
    let model: { id: string; at: number }[] = []; // oldest first
    for (let step = 0; step < 20_000; step++) {
      now += random(3);
      const id = `m${random(120)}`;
      if (random(4) === 0) {
        const kept = model.find((e) => e.id === id && now - e.at < 500);
        assert.equal(store.get(id) !== undefined, Boolean(kept), `step ${step}: get ${id}`);
        model = model.filter((e) => e.id !== id || now - e.at < 500);
      } else {
        store.set(id, { status: 'processed' });
        model = [...model.filter((e) => e.id !== id), { id, at: now }];
        while (model.length > 40 || (model[0] && now - model[0].at >= 500)) model.shift();
        assert.equal(store.size, model.length, `step ${step}`);
      }
    }
  });
});
