import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LruCache } from '../../util/lru';

describe('lru', () => {
  it('lru - keeps at most capacity entries, forgetting the least recently used', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    assert.equal(cache.get('a'), 1); // a is now the most recent
    cache.set('c', 3);
    assert.equal(cache.size, 2);
    assert.equal(cache.has('b'), false);
    assert.deepEqual([cache.get('a'), cache.get('c')], [1, 3]);
    assert.throws(() => new LruCache(0), RangeError);
  });

  it('lru - under a long random mix of gets, sets and deletes it holds exactly what a plain list model holds', () => {
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const cache = new LruCache<number, number>(50);
    let model: number[] = []; // keys, least recently used first
    const touch = (key: number) => (model = [...model.filter((k) => k !== key), key]);
    for (let step = 0; step < 20_000; step++) {
      const key = random(200);
      const op = random(10);
      if (op < 5) {
        cache.set(key, step);
        touch(key);
        if (model.length > 50) model.shift();
      } else if (op < 9) {
        assert.equal(cache.get(key) !== undefined, model.includes(key), `step ${step}: get ${key}`);
        if (model.includes(key)) touch(key);
      } else {
        cache.delete(key);
        model = model.filter((k) => k !== key);
      }
      assert.equal(cache.size, model.length, `step ${step}`);
    }
    for (const key of model) assert.ok(cache.has(key));
  });
});
