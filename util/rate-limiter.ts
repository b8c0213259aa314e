/**
 * A token bucket per key (a tenant, a client address, a message), in this process's memory: each api replica limits on its own, so with N replicas
 * behind a load balancer a tenant gets up to N times the rate. Pure apart from the clock it is given.
 *
 * The buckets are held in an LRU map of `capacity` keys: a request costs one look-up and at most one insertion
 * (with at most one eviction), whatever the number of keys. A key pushed out by newer ones starts again with a full
 * bucket, as a key idle for `burst / perSecond` seconds would; a key being refused keeps asking, so it stays recent.
 */
import { LruCache } from './lru';

export interface RateLimit {
  /** Tokens added per second; 0 turns the limit off. */
  perSecond: number;
  /** Bucket size. */
  burst: number;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface Bucket {
  tokens: number;
  /** When `tokens` was last computed, in ms. */
  at: number;
}

/** Where the buckets live: an {@link LruCache} (tests count the calls). */
export type BucketStore = Pick<LruCache<string, Bucket>, 'get' | 'set' | 'size'>;

/** Keys a limiter remembers by default: ~100 bytes each, so ~10 MB at most. */
export const DEFAULT_RATE_LIMIT_KEYS = 100_000;

export class RateLimiter {
  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = Date.now,
    private readonly buckets: BucketStore = new LruCache<string, Bucket>(DEFAULT_RATE_LIMIT_KEYS),
  ) {}

  /** How many keys have a bucket (at most the store's capacity). */
  get size(): number {
    return this.buckets.size;
  }

  /**
   * Takes `cost` tokens from `key`'s bucket, or says how long until they are there. A cost above the burst needs a
   * full bucket and leaves it in debt, so a request larger than the burst is slowed, not refused for ever.
   */
  take(key: string, cost = 1): RateDecision {
    if (this.limit.perSecond <= 0) return { allowed: true };
    const at = this.now();
    const bucket = this.buckets.get(key);
    const tokens = this.tokensAt(bucket, at);
    const needed = Math.min(cost, this.limit.burst);
    const left = tokens >= needed ? tokens - cost : tokens;
    if (bucket) {
      bucket.tokens = left;
      bucket.at = at;
    } else {
      this.buckets.set(key, { tokens: left, at });
    }
    return tokens >= needed ? { allowed: true } : this.refusal(needed - tokens);
  }

  /** What {@link take} would decide now, without taking a token. */
  peek(key: string, cost = 1): RateDecision {
    if (this.limit.perSecond <= 0) return { allowed: true };
    const tokens = this.tokensAt(this.buckets.get(key), this.now());
    const needed = Math.min(cost, this.limit.burst);
    return tokens >= needed ? { allowed: true } : this.refusal(needed - tokens);
  }

  private tokensAt(bucket: Bucket | undefined, at: number): number {
    if (!bucket) return this.limit.burst;
    return Math.min(this.limit.burst, bucket.tokens + ((at - bucket.at) / 1000) * this.limit.perSecond);
  }

  private refusal(missing: number): RateDecision {
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(missing / this.limit.perSecond)) };
  }
}
