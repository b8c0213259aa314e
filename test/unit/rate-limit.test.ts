/** The per-tenant token bucket, alone with a controlled clock and in front of the api's routes. */
import type { ChainService } from '../../chains/chain-service';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import pino from 'pino';
import { createApp } from '../../api/app';
import type { LessonCache } from '../../router/lessons';
import type { MisrouteStore } from '../../store/misroutes';
import type { MessageService } from '../../messages/message-service';
import type { Catalogue } from '../../catalogue/catalogue';
import { loadConfig } from '../../platform/config';
import type { ApiKeyStore } from '../../store/api-keys';
import { createApiMetrics } from '../../platform/metrics';
import { LruCache } from '../../util/lru';
import { RateLimiter, type Bucket } from '../../util/rate-limiter';

/** An LRU store that counts every call made on it, and every step of any iterator it hands out (a scan would show). */
function countingStore(capacity: number) {
  const counter = { operations: 0 };
  const cache = new LruCache<string, Bucket>(capacity);
  const store = new Proxy(cache, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        counter.operations += 1;
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (result && typeof (result as Iterator<unknown>).next === 'function') {
          const iterator = result as Iterator<unknown>;
          const next = iterator.next.bind(iterator);
          iterator.next = () => {
            counter.operations += 1;
            return next();
          };
        }
        return result;
      };
    },
  });
  return { store, counter };
}

describe('rate limit', () => {
  it('rate limit - a bucket lets a burst through, then one request per refill, per key', () => {
    let now = 0;
    const limiter = new RateLimiter({ perSecond: 2, burst: 3 }, () => now);
    for (let i = 0; i < 3; i++) assert.deepEqual(limiter.take('a'), { allowed: true });
    assert.deepEqual(limiter.take('a'), { allowed: false, retryAfterSeconds: 1 });
    assert.deepEqual(limiter.take('b'), { allowed: true }, 'another tenant has its own bucket');
    now += 500;
    assert.deepEqual(limiter.take('a'), { allowed: true });
    assert.equal(limiter.take('a').allowed, false);
  });

  it('rate limit - 0 per second turns it off', () => {
    const limiter = new RateLimiter({ perSecond: 0, burst: 1 });
    for (let i = 0; i < 100; i++) assert.ok(limiter.take('a').allowed);
  });

  it('rate limit - the api answers 429 with Retry-After and the error shape once a tenant has used its burst', async () => {
    const keys = {
      authenticate: async (key: string) => ({
        tenant: key.endsWith('A'.repeat(43)) ? 'acme' : 'beta',
        key_id: key.slice(3, 15),
        scopes: ['read'],
      }),
    };
    const app = createApp({
      metrics: createApiMetrics(),
      config: loadConfig({ RATE_LIMIT_PER_SECOND: '0.001', RATE_LIMIT_BURST: '2' }),
      catalogue: { policy: { intervalMs: 10_000, ttlMs: 60_000, graceWindows: 1 } } as Catalogue,
      messages: {} as MessageService,
      chains: {} as ChainService,
      router: {
        route: async () => {
          throw new Error('not called');
        },
        status: async () => {
          throw new Error('not called');
        },
      },
      keys: keys as unknown as ApiKeyStore,
      lessons: { store: {} as MisrouteStore, cache: {} as LessonCache },
      health: { database: async () => true, temporal: async () => true },
      logger: pino({ level: 'silent' }),
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/agents/not-an-id`;
      const get = (key: string) => fetch(url, { headers: { authorization: `Bearer ${key}` } });
      const acme = `rk_aaaaaaaaaaaa_${'A'.repeat(43)}`;
      assert.equal((await get(acme)).status, 400, 'through the limiter, refused by validation');
      assert.equal((await get(acme)).status, 400);
      const limited = await get(acme);
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get('retry-after')) >= 1);
      const body = (await limited.json()) as {
        error: { code: string; message: string; details: { retry_after_seconds: number } };
      };
      assert.equal(body.error.code, 'rate_limited');
      assert.equal(body.error.details.retry_after_seconds, Number(limited.headers.get('retry-after')));
      assert.equal(
        (await get(`rk_bbbbbbbbbbbb_${'B'.repeat(43)}`)).status,
        400,
        'another tenant is not limited by the first',
      );
    } finally {
      server.close();
    }
  });

  it('rate limit - peek tells what a take would decide, without taking', () => {
    let now = 0;
    const limiter = new RateLimiter({ perSecond: 1, burst: 1 }, () => now);
    assert.deepEqual(limiter.peek('a'), { allowed: true });
    assert.deepEqual(limiter.take('a'), { allowed: true });
    assert.deepEqual(limiter.peek('a'), { allowed: false, retryAfterSeconds: 1 });
    now += 1000;
    assert.deepEqual(limiter.peek('a'), { allowed: true });
    assert.deepEqual(limiter.peek('a'), { allowed: true }, 'peeking spends nothing');
  });

  it('rate limit - an address that keeps failing authentication is refused 429 before any key is looked up; valid keys spend nothing', async () => {
    let lookups = 0;
    const good = `rk_aaaaaaaaaaaa_${'A'.repeat(43)}`;
    const keys = {
      authenticate: async (key: string) => {
        lookups += 1;
        return key === good ? { tenant: 'acme', key_id: 'aaaaaaaaaaaa', scopes: ['read'] } : undefined;
      },
    };
    const app = createApp({
      metrics: createApiMetrics(),
      config: loadConfig({ UNAUTHENTICATED_RATE_LIMIT_PER_SECOND: '0.001', UNAUTHENTICATED_RATE_LIMIT_BURST: '3' }),
      catalogue: { policy: { intervalMs: 10_000, ttlMs: 60_000, graceWindows: 1 } } as Catalogue,
      messages: {} as MessageService,
      chains: {} as ChainService,
      router: {
        route: async () => {
          throw new Error('not called');
        },
        status: () => {
          throw new Error('not called');
        },
      },
      keys: keys as unknown as ApiKeyStore,
      lessons: { store: {} as MisrouteStore, cache: {} as LessonCache },
      health: { database: async () => true, temporal: async () => true },
      logger: pino({ level: 'silent' }),
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/agents/not-an-id`;
      const get = (key: string) => fetch(url, { headers: { authorization: `Bearer ${key}` } });
      for (let i = 0; i < 5; i++) assert.equal((await get(good)).status, 400, 'authenticated requests spend nothing');
      const guess = (n: number) => `rk_bbbbbbbbbbbb_${String(n).padStart(43, 'B')}`;
      for (let i = 0; i < 3; i++) assert.equal((await get(guess(i))).status, 401);
      const before = lookups;
      const refused = await get(guess(99));
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'rate_limited');
      assert.equal(lookups, before, 'refused before the key was looked up');
    } finally {
      server.close();
    }
  });

  it('rate limit - the buckets are bounded: past its capacity the least recently used key is forgotten, a refused key that keeps asking is not', () => {
    let now = 0;
    const limiter = new RateLimiter({ perSecond: 1, burst: 1 }, () => now, new LruCache<string, Bucket>(3));
    assert.equal(limiter.take('flood-me').allowed, true);
    for (let i = 0; i < 1000; i++) {
      limiter.take(`k${i}`);
      assert.equal(limiter.take('flood-me').allowed, false, 'the spent key stays recent, so it stays spent');
      assert.ok(limiter.size <= 3);
    }
    assert.equal(limiter.size, 3);
    assert.equal(limiter.take('k0').allowed, true, 'a key pushed out starts again with a full bucket');
  });

  it('rate limit - a request costs the same store operations with 10 keys as with 50,000 (no scan)', () => {
    const costOfOneTake = (keys: number) => {
      const { store, counter } = countingStore(100_000);
      const limiter = new RateLimiter({ perSecond: 100, burst: 200 }, () => 0, store);
      for (let i = 0; i < keys; i++) limiter.take(`k${i}`);
      assert.equal(limiter.size, keys);
      const before = counter.operations;
      limiter.take('k1');
      const known = counter.operations - before;
      limiter.take('a-new-key');
      return { known, added: counter.operations - before - known };
    };
    const few = costOfOneTake(10);
    const many = costOfOneTake(50_000);
    assert.deepEqual(many, few);
    assert.ok(few.known <= 2 && few.added <= 2, `a take is a look-up and at most an insertion: ${JSON.stringify(few)}`);
  });

  it('rate limit - a full store evicts one key per new key, at the same cost', () => {
    const { store, counter } = countingStore(1000);
    const limiter = new RateLimiter({ perSecond: 100, burst: 200 }, () => 0, store);
    for (let i = 0; i < 1000; i++) limiter.take(`k${i}`);
    const before = counter.operations;
    for (let i = 1000; i < 6000; i++) limiter.take(`k${i}`);
    assert.equal(limiter.size, 1000);
    assert.equal((counter.operations - before) / 5000, 2, 'one get and one set per new key');
  });

  it('rate limit - a request may cost several tokens; one above the burst needs a full bucket and leaves a debt', () => {
    let now = 0;
    const limiter = new RateLimiter({ perSecond: 1, burst: 10 }, () => now);
    assert.deepEqual(limiter.take('t', 6), { allowed: true });
    assert.deepEqual(limiter.peek('t', 5), { allowed: false, retryAfterSeconds: 1 });
    assert.deepEqual(limiter.take('t', 5), { allowed: false, retryAfterSeconds: 1 }, '4 left, 5 needed');
    assert.deepEqual(limiter.take('t', 4), { allowed: true });
    now += 10_000;
    assert.deepEqual(
      limiter.take('t', 25),
      { allowed: true },
      'a full bucket lets a request larger than the burst through',
    );
    assert.deepEqual(
      limiter.take('t'),
      { allowed: false, retryAfterSeconds: 16 },
      'the 15-token debt is paid back first',
    );
    now += 16_000;
    assert.deepEqual(limiter.take('t'), { allowed: true });
  });
});
