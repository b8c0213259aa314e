/** The judge's cost bounds (router/judge/bounded-judge.ts): read when free, busy past capacity, one at a time, timeout, cache. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BoundedJudge } from '../../router/judge/bounded-judge';
import type { JudgeProvider, JudgeQuestion } from '../../router/judge/question';
import { candidatesOf } from '../../router/candidates';
import { agentFromCard } from '../../bench/lib/routing-data';

const [candidate] = candidatesOf([
  agentFromCard(
    {
      agent_id: 'a',
      name: 'a',
      description: 'a',
      tags: [],
      capabilities: [{ name: 'forecast', description: 'Weather forecast' }],
    },
    't',
  ),
]);
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
  it('free - sequential traffic is always read, however many requests want reading', async () => {
    const { judge, seen } = provider(0.9, 2);
    const bounded = new BoundedJudge(judge, { timeoutMs: 1_000 });
    const kinds: string[] = [];
    for (let i = 0; i < 50; i++) kinds.push((await bounded.ask(question(`request ${i}`), 'r1')).kind);
    assert.deepEqual(new Set(kinds), new Set(['answered']));
    assert.equal(seen.calls, 50);
  });

  it('busy - a burst beyond what can be answered in time is shed, the most certain first; the rest are read one at a time', async () => {
    const { judge, seen } = provider(0.9, 40);
    const bounded = new BoundedJudge(judge, { timeoutMs: 200 });
    await bounded.ask(question('pace'), 'r1'); // one judgement measures the pace
    const room = bounded.load().capacity + 1;
    const certainty = (i: number) => 1 - i / 20;
    const burst = Array.from({ length: 20 }, (_, i) => bounded.ask(question(`burst ${i}`), 'r1', certainty(i)));
    const kinds = (await Promise.all(burst)).map((o) => o.kind);
    const busy = kinds.flatMap((k, i) => (k === 'busy' ? [certainty(i)] : []));
    const read = kinds.flatMap((k, i) => (k === 'answered' ? [certainty(i)] : []));
    assert.ok(busy.length > 0, 'the burst is shed in part');
    assert.ok(read.length <= room, `${read.length} read, room for ${room}`);
    // Every one read was less certain than every one shed, but the first, which found the judge free.
    assert.ok(Math.min(...busy) > Math.max(...read.slice(1)), JSON.stringify({ busy, read }));
    assert.equal(seen.mostAtOnce, 1);
    // On a loaded machine a turn may end after its caller stopped waiting (a timeout that was still read).
    const late = kinds.filter((k) => k === 'timeout').length;
    assert.ok(
      seen.calls >= 1 + read.length && seen.calls <= 1 + read.length + late,
      JSON.stringify({ calls: seen.calls, kinds }),
    );
  });

  it('cache - the same (revision, capability, request) is answered from the cache without a turn; a new revision asks again', async () => {
    const { judge, seen } = provider(0.7);
    const bounded = new BoundedJudge(judge, { timeoutMs: 1_000 });
    const first = await bounded.ask(question('rain tomorrow?'), 'r1');
    const again = await bounded.ask(question('rain tomorrow?'), 'r1');
    assert.deepEqual([first.kind, again.kind], ['answered', 'answered']);
    assert.ok(again.kind === 'answered' && again.cached && again.yes === 0.7);
    assert.equal(seen.calls, 1);
    await bounded.ask(question('rain tomorrow?'), 'r2');
    assert.equal(seen.calls, 2);
  });

  it('one at a time - concurrent requests are judged in line', async () => {
    const { judge, seen } = provider(0.5, 20);
    const bounded = new BoundedJudge(judge, { timeoutMs: 5_000 });
    const answers = await Promise.all(
      [1, 2, 3].map((i) => {
        return bounded.ask(question(`q${i}`), 'r1');
      }),
    );
    assert.deepEqual(
      answers.map((a) => a.kind),
      ['answered', 'answered', 'answered'],
    );
    assert.equal(seen.mostAtOnce, 1);
  });

  it('timeout - the caller stops waiting; the answer lands in the cache for the next time; a queued one past its time is not run', async () => {
    const { judge, seen } = provider(0.2, 150);
    const bounded = new BoundedJudge(judge, { timeoutMs: 50 });
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
    const bounded = new BoundedJudge(failing, { timeoutMs: 1_000 });
    const outcome = await bounded.ask(question('x'), 'r1');
    assert.ok(outcome.kind === 'error' && /endpoint down/.test(outcome.message));
    const silent = new BoundedJudge(provider(undefined).judge, { timeoutMs: 1_000 });
    assert.equal((await silent.ask(question('x'), 'r1')).kind, 'abstained');
  });

  describe('fill', () => {
    const request = {
      intent: 'forecast for Paris',
      candidate: candidate!,
      schema: { type: 'object', properties: { city: { type: 'string' } } },
      fields: ['city'],
      today: '2026-12-05',
    };
    const filling = (fill: JudgeProvider['fill']): JudgeProvider => ({ name: 'test', judge: async () => 0.9, fill });

    it("fill - the provider's fields, on the judge's line; no fill timeout or no generating provider: it does not fill", async () => {
      const bounded = new BoundedJudge(
        filling(async () => ({ city: 'Paris' })),
        { timeoutMs: 1_000, fillTimeoutMs: 1_000 },
      );
      assert.equal(bounded.fills, true);
      const outcome = await bounded.fill(request);
      assert.equal(outcome.kind, 'filled');
      assert.deepEqual(outcome.kind === 'filled' && outcome.fields, { city: 'Paris' });
      assert.equal(
        new BoundedJudge(
          filling(async () => ({})),
          { timeoutMs: 1_000 },
        ).fills,
        false,
      );
      assert.equal(new BoundedJudge(provider(0.9).judge, { timeoutMs: 1_000, fillTimeoutMs: 1_000 }).fills, false);
    });

    it('fill - past its timeout the generation is told to stop and the outcome is timeout; a failure is an error outcome', async () => {
      let stopped = false;
      const slow = filling(
        (_request, signal) =>
          new Promise((_resolve, reject) => {
            signal.addEventListener('abort', () => {
              stopped = true;
              reject(new Error('aborted'));
            });
          }),
      );
      const outcome = await new BoundedJudge(slow, { timeoutMs: 1_000, fillTimeoutMs: 30 }).fill(request);
      assert.equal(outcome.kind, 'timeout');
      assert.equal(stopped, true);
      const failing = await new BoundedJudge(
        filling(async () => Promise.reject(new Error('grammar'))),
        { timeoutMs: 1_000, fillTimeoutMs: 1_000 },
      ).fill(request);
      assert.deepEqual(failing.kind === 'error' && failing.message, 'grammar');
    });

    it('fill - takes its turn in line with judgements: never two uses of the model at once', async () => {
      let running = 0;
      let mostAtOnce = 0;
      const busy = async <T>(value: T) => {
        running++;
        mostAtOnce = Math.max(mostAtOnce, running);
        await new Promise((resolve) => setTimeout(resolve, 10));
        running--;
        return value;
      };
      const bounded = new BoundedJudge(
        { name: 'test', judge: () => busy(0.9), fill: () => busy({ city: 'Paris' }) },
        { timeoutMs: 2_000, fillTimeoutMs: 2_000 },
      );
      const outcomes = await Promise.all([
        bounded.ask(question('a'), 'r1'),
        bounded.fill(request),
        bounded.ask(question('b'), 'r1'),
        bounded.fill(request),
      ]);
      assert.deepEqual(
        outcomes.map((o) => o.kind),
        ['answered', 'filled', 'answered', 'filled'],
      );
      assert.equal(mostAtOnce, 1);
    });
  });
});
