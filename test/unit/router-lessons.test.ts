/** Lessons in the router (router/lessons.ts): the cache, and a new lesson as a new catalogue revision. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CapabilityCandidate } from '../../router/candidates';
import { LessonCache, lessonsFingerprint, withLessons, type Lessons } from '../../router/lessons';
import type { IntentMatcher } from '../../router/matcher';
import { Router } from '../../router/router';
import { agentFromCard } from '../../bench/lib/routing-data';

describe('LessonCache', () => {
  it('LessonCache - reads once per tenant within the TTL, again after it or after invalidate', async () => {
    let now = 0;
    const reads: string[] = [];
    const cache = new LessonCache(
      async (tenant) => (reads.push(tenant), new Map([[`${tenant}/x`, ['a']]])),
      1_000,
      10,
      () => now,
    );
    await cache.get('t');
    await cache.get('t');
    assert.deepEqual(reads, ['t']);
    now = 1_500;
    await cache.get('t');
    cache.invalidate('t');
    assert.deepEqual([...(await cache.get('t')).keys()], ['t/x']);
    assert.deepEqual(reads, ['t', 't', 't']);
  });

  it('LessonCache - a failed read keeps the last lessons known (none at first): routing never fails for it', async () => {
    let now = 0;
    let fail = false;
    const cache = new LessonCache(
      async () => {
        if (fail) throw new Error('database down');
        return new Map([['a/b', ['x']]]);
      },
      10,
      10,
      () => now,
    );
    assert.equal((await cache.get('t')).size, 1);
    fail = true;
    now = 100;
    assert.equal((await cache.get('t')).size, 1);
    const fresh = new LessonCache(async () => Promise.reject(new Error('down')));
    assert.equal((await fresh.get('t')).size, 0);
  });

  it('lessonsFingerprint / withLessons - order-independent fingerprint; lessons attached to their capability only', () => {
    assert.equal(lessonsFingerprint(new Map()), '');
    assert.equal(
      lessonsFingerprint(
        new Map([
          ['a', ['1']],
          ['b', ['2']],
        ]),
      ),
      lessonsFingerprint(
        new Map([
          ['b', ['2']],
          ['a', ['1']],
        ]),
      ),
    );
    assert.notEqual(lessonsFingerprint(new Map([['a', ['1']]])), lessonsFingerprint(new Map([['a', ['1', '2']]])));
    const candidates = [{ key: 'a' }, { key: 'b' }] as CapabilityCandidate[];
    assert.deepEqual(
      withLessons(candidates, new Map([['b', ['x']]])).map((c) => c.misroutes),
      [undefined, ['x']],
    );
  });
});

describe('router with lessons', () => {
  it('router lessons - a new lesson is a new revision: the matcher is rebuilt with it; the same lessons are not', async () => {
    const agents = [
      agentFromCard(
        {
          agent_id: 'w',
          name: 'w',
          description: 'weather',
          tags: [],
          capabilities: [{ name: 'forecast', description: 'Weather forecast', examples: ['rain?'] }],
        },
        't',
      ),
    ];
    let lessons: Lessons = new Map();
    const built: (readonly string[] | undefined)[] = [];
    const router = new Router({
      agents: async () => agents,
      matcherFactory: async (candidates) => {
        built.push(candidates[0]!.misroutes);
        return { provider: 'fake', score: async () => new Map() } satisfies IntentMatcher;
      },
      heartbeat: { intervalMs: 10_000, ttlMs: 3_600_000, graceWindows: 1 },
      openCircuits: async () => new Set(),
      stats: async () => new Map(),
      threshold: 0.5,
      lessons: async () => lessons,
    });
    await router.prepare('t');
    await router.prepare('t');
    lessons = new Map([['w/forecast', ['book a flight']]]);
    await router.prepare('t');
    await router.prepare('t');
    assert.deepEqual(built, [undefined, ['book a flight']]);
    assert.match((await router.status('t')).provider, /fake/);
  });
});
