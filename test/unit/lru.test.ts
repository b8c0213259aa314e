import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LruCache } from '../../rules/lru';

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
});
