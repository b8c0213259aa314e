/**
 * A token bucket per key (a tenant, a client address, a message), in this process's memory: each api replica limits on its own, so with N replicas
 * behind a load balancer a tenant gets up to N times the rate. Pure apart from the clock it is given.
 */
export interface RateLimit {
  /** Tokens added per second; 0 turns the limit off. */
  perSecond: number;
  /** Bucket size. */
  burst: number;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Buckets idle this long are dropped, so the map does not grow with tenants that went quiet. */
const FORGET_AFTER_MS = 10 * 60_000;

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one token from `key`'s bucket, or says how long until one is there. */
  take(key: string): RateDecision {
    if (this.limit.perSecond <= 0) return { allowed: true };
    const at = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.limit.burst, at };
    const tokens = Math.min(this.limit.burst, bucket.tokens + ((at - bucket.at) / 1000) * this.limit.perSecond);
    if (tokens >= 1) {
      this.buckets.set(key, { tokens: tokens - 1, at });
      this.forgetIdle(at);
      return { allowed: true };
    }
    this.buckets.set(key, { tokens, at });
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / this.limit.perSecond)) };
  }

  /** What {@link take} would decide now, without taking a token. */
  peek(key: string): RateDecision {
    if (this.limit.perSecond <= 0) return { allowed: true };
    const at = this.now();
    const bucket = this.buckets.get(key);
    if (!bucket) return { allowed: true };
    const tokens = Math.min(this.limit.burst, bucket.tokens + ((at - bucket.at) / 1000) * this.limit.perSecond);
    return tokens >= 1 ? { allowed: true } : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / this.limit.perSecond)) };
  }

  private forgetIdle(at: number): void {
    if (this.buckets.size < 1000) return;
    for (const [key, bucket] of this.buckets) if (at - bucket.at > FORGET_AFTER_MS) this.buckets.delete(key);
  }
}
