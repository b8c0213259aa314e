/** The judge's cost bounds (router/judge/bounded-judge.ts): share, one at a time, timeout, cache. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BoundedJudge } from '../../router/judge/bounded-judge';
import type { JudgeProvider, JudgeQuestion } from '../../router/judge/question';
import { candidatesOf } from '../../router/candidates';
import { agentFromCard } from '../../bench/lib/routing-data';

const [candidate] = candidatesOf([agentFromCard({ agent_id: 'a', name: 'a', description: 'a', tags: [], capabilities: [{ name: 'forecast', description: 'Weather forecast' }] }, 't')]);
const question = (intent: string): JudgeQuestion => ({ intent, candidate: candidate! });

/** A provider that answers `yes` after `delayMs`, counting calls and the most judgements running at once. */
function provider(yes: number | undefined, delayMs = 0) {
  const seen = { calls: 0, running: 0, mostAtOnce: 0 };
  const judge: JudgeProvider = {
    name: 'test',
    async judge() {
      seen.calls++;
      seen.running++;
      seen.mostAtOnce = Math.max(seen.mostAtOnce, seen.running);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      seen.running--;
      return yes;
    },
  };
  return { judge, seen };
}

describe('BoundedJudge', () => {
  it('share - over many requests, at most that share reaches the model', async () => {
    const { judge, seen } = provider(0.9);
    const bounded = new BoundedJudge(judge, { share: 0.25, timeoutMs: 1_000 });
    const kinds: string[] = [];
    for (let i = 0; i < 100; i++) {
      bounded.requestSeen();
      kinds.push((await bounded.ask(question(`request ${i}`), 'r1')).kind);
    }
    assert.ok(seen.calls <= 26 && seen.calls >= 24, `${seen.calls} judgements for 100 requests at share 0.25`);
    assert.equal(kinds.filter((k) => k === 'over_share').length, 100 - seen.calls);
  });

  it('share - reads saved up over a quiet spell are spent back to back, at most 10', async () => {
    const { judge, seen } = provider(0.9);
    const bounded = new BoundedJudge(judge, { share: 0.25, timeoutMs: 1_000 });
    // 60 requests the router decides without the judge: 15 judgements earned, 10 kept.
    for (let i = 0; i < 60; i++) bounded.requestSeen();
    const kinds: string[] = [];
    for (let i = 0; i < 12; i++) kinds.push((await bounded.ask(question(`run ${i}`), 'r1')).kind);
    assert.deepEqual(kinds, [...Array(10).fill('answered'), 'over_share', 'over_share']);
    assert.equal(seen.calls, 10);
  });

  it('cache - the same (revision, capability, request) is answered from the cache at no share; a new revision asks again', async () => {
    const { judge, seen } = provider(0.7);
    const bounded = new BoundedJudge(judge, { share: 1, timeoutMs: 1_000 });
    bounded.requestSeen();
    const first = await bounded.ask(question('rain tomorrow?'), 'r1');
    const again = await bounded.ask(question('rain tomorrow?'), 'r1');
    assert.deepEqual([first.kind, again.kind], ['answered', 'answered']);
    assert.ok(again.kind === 'answered' && again.cached && again.yes === 0.7);
    assert.equal(seen.calls, 1);
    bounded.requestSeen();
    await bounded.ask(question('rain tomorrow?'), 'r2');
    assert.equal(seen.calls, 2);
  });

  it('one at a time - concurrent requests are judged in line', async () => {
    const { judge, seen } = provider(0.5, 20);
    const bounded = new BoundedJudge(judge, { share: 1, timeoutMs: 5_000 });
    const answers = await Promise.all(
      [1, 2, 3].map((i) => {
        bounded.requestSeen();
        return bounded.ask(question(`q${i}`), 'r1');
      }),
    );
    assert.deepEqual(answers.map((a) => a.kind), ['answered', 'answered', 'answered']);
    assert.equal(seen.mostAtOnce, 1);
  });

  it('timeout - the caller stops waiting; the answer lands in the cache for the next time; a queued one past its time is not run', async () => {
    const { judge, seen } = provider(0.2, 150);
    const bounded = new BoundedJudge(judge, { share: 1, timeoutMs: 50 });
    bounded.requestSeen();
    const slow = bounded.ask(question('slow'), 'r1');
    const queued = bounded.ask(question('queued'), 'r1');
    assert.equal((await slow).kind, 'timeout');
    assert.equal((await queued).kind, 'timeout');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(seen.calls, 1, 'the queued judgement was dropped, not run late');
    const later = await bounded.ask(question('slow'), 'r1');
    assert.ok(later.kind === 'answered' && later.cached && later.yes === 0.2);
  });

  it('errors and abstentions - reported as such, the head decides', async () => {
    const failing: JudgeProvider = { name: 'failing', judge: async () => Promise.reject(new Error('endpoint down')) };
    const bounded = new BoundedJudge(failing, { share: 1, timeoutMs: 1_000 });
    const outcome = await bounded.ask(question('x'), 'r1');
    assert.ok(outcome.kind === 'error' && /endpoint down/.test(outcome.message));
    const silent = new BoundedJudge(provider(undefined).judge, { share: 1, timeoutMs: 1_000 });
    assert.equal((await silent.ask(question('x'), 'r1')).kind, 'abstained');
  });
});
