/** Each tenant's matchers across catalogue changes (router/tenant-matchers.ts): the previous ready head serves meanwhile. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IntentMatcher } from '../../router/matcher';
import { TenantMatchers } from '../../router/tenant-matchers';

/** A matcher whose head becomes ready when `train()` is called. */
function controllable(name: string) {
  let train!: () => void;
  const trained = new Promise<void>((resolve) => (train = resolve));
  let ready = false;
  void trained.then(() => (ready = true));
  const matcher: IntentMatcher = {
    provider: name,
    score: async () => new Map(),
    classify: async () => (ready ? { ranked: [], none: 1, same: () => false, crossLingual: new Set() } : undefined),
    ready: () => trained,
    head: () => (ready ? { calibration: { target: 0.05 } as never } : undefined),
  };
  return { matcher, train };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('tenant matchers', () => {
  it('tenant matchers - the same revision reuses its matcher; a new one builds while the previous ready head serves', async () => {
    const made = [controllable('first'), controllable('second')];
    let builds = 0;
    const matchers = new TenantMatchers(async () => made[builds++]!.matcher);
    const one = matchers.choose('t', 'rev-1', () => []);
    assert.equal(await one.current, made[0]!.matcher);
    assert.equal(matchers.status('t', 'p').state, 'training');
    made[0]!.train();
    await settle();
    assert.equal(matchers.status('t', 'p').state, 'ready');
    assert.equal(matchers.status('t', 'p').serving?.revision, 'rev-1');
    matchers.choose('t', 'rev-1', () => []);
    assert.equal(builds, 1, 'an unchanged revision (liveness, heartbeats) builds nothing');

    const two = matchers.choose('t', 'rev-2', () => []);
    await settle();
    assert.equal(builds, 2);
    assert.equal(two.previous, made[0]!.matcher);
    assert.equal(two.previousRevision, 'rev-1');
    const during = matchers.status('t', 'p');
    assert.deepEqual(
      [during.state, during.serving?.revision, during.training?.revision],
      ['training', 'rev-1', 'rev-2'],
    );
    made[1]!.train();
    await settle();
    const after = matchers.choose('t', 'rev-2', () => []);
    assert.equal(after.previous, undefined);
    assert.equal(after.built, made[1]!.matcher);
    assert.equal(matchers.status('t', 'p').serving?.revision, 'rev-2');
  });

  it('tenant matchers - a revision whose head is ready and serves is announced with its candidates (the judge holds them), a stale one is not', async () => {
    const made = [controllable('first'), controllable('second')];
    let builds = 0;
    const served: string[] = [];
    let clock = 0;
    const matchers = new TenantMatchers(
      async () => made[builds++]!.matcher,
      () => new Date(++clock * 1000),
      (tenant, revision, candidates) => served.push(`${tenant} ${revision} ${candidates.length}`),
    );
    matchers.choose('t', 'rev-1', () => [{} as never, {} as never]);
    matchers.choose('t', 'rev-2', () => [{} as never]);
    await settle();
    assert.deepEqual(served, [], 'nothing while heads train');
    made[1]!.train();
    await settle();
    made[0]!.train();
    await settle();
    assert.deepEqual(served, ['t rev-2 1'], 'the older revision, ready after the newer, does not serve');
  });

  it('tenant matchers - a failed build is reported and retried on the next request; the previous head keeps serving', async () => {
    const first = controllable('first');
    let builds = 0;
    const matchers = new TenantMatchers(async () => {
      builds++;
      if (builds === 1) return first.matcher;
      throw new Error('embedding endpoint down');
    });
    matchers.choose('t', 'rev-1', () => []);
    first.train();
    await settle();
    const failing = matchers.choose('t', 'rev-2', () => []);
    await assert.rejects(failing.current, /endpoint down/);
    await settle();
    assert.equal(failing.previous, first.matcher);
    assert.equal(matchers.status('t', 'p').state, 'ready');
    matchers.choose('t', 'rev-2', () => []);
    assert.equal(builds, 3);
  });
});

describe('tenant matchers late heads', () => {
  it('tenant matchers - full_at once the late heads joined; a catalogue change retires the previous build', async () => {
    let joined!: () => void;
    const full = new Promise<void>((resolve) => (joined = resolve));
    let late: 'training' | 'joined' | 'discarded' = 'training';
    let retired = 0;
    const first: IntentMatcher = {
      provider: 'three',
      score: async () => new Map(),
      classify: async () => undefined,
      ready: async () => undefined,
      full: () => full,
      retire: () => {
        retired++;
        late = 'discarded';
      },
      head: () => ({ heads: late === 'joined' ? ['a', 'b', 'c'] : ['a', 'b'], late: { models: ['c'], state: late } }),
    };
    const second = controllable('second');
    let builds = 0;
    const matchers = new TenantMatchers(async () => (builds++ === 0 ? first : second.matcher));
    matchers.choose('t', 'rev-1', () => []);
    await settle();
    const serving = matchers.status('t', 'p').serving;
    assert.deepEqual([serving?.heads, serving?.late?.state, serving?.full_at], [['a', 'b'], 'training', undefined]);
    late = 'joined';
    joined();
    await settle();
    const full1 = matchers.status('t', 'p').serving;
    assert.deepEqual(full1?.heads, ['a', 'b', 'c']);
    assert.ok(full1?.full_at && full1.ready_at && full1.full_at >= full1.ready_at);

    matchers.choose('t', 'rev-2', () => []);
    await settle();
    assert.equal(retired, 1, 'the superseded build is told the catalogue moved on');
    assert.equal(matchers.status('t', 'p').serving?.revision, 'rev-1', 'and keeps serving until the new head is ready');
  });
});
