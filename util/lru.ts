/**
 * A map that keeps at most `capacity` entries, forgetting the least recently used one first.
 *
 * A Map iterates in insertion order, so its first key is the least recently used. Asking a *new* iterator for it
 * (`keys().next()`) after many deletions from the front costs time proportional to the deleted slots V8 has not
 * compacted yet (up to the capacity): a full cache got slower with every eviction. One live iterator is kept
 * instead: it moves past each slot once, and sees keys (re)inserted behind it, as Map iterators do.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, V>();
  /** Everything before this iterator's position has been evicted, so its next key is the least recently used. */
  private oldest = this.entries.keys();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`an LRU capacity must be a positive integer, got ${capacity}`);
  }

  get size(): number {
    return this.entries.size;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** The value, now the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key)!;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.leastRecentlyUsed());
  }

  private leastRecentlyUsed(): K {
    let next = this.oldest.next();
    // An iterator that once reached the end stays there: start a new one.
    if (next.done) {
      this.oldest = this.entries.keys();
      next = this.oldest.next();
    }
    return next.value as K;
  }

  /** The keys, least recently used first (reading them does not change the order). */
  keys(): IterableIterator<K> {
    return this.entries.keys();
  }

  /** The entries, least recently used first (reading them does not change the order). */
  items(): IterableIterator<[K, V]> {
    return this.entries.entries();
  }
}
