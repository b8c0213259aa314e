/** ROUTER_JUDGE=auto's timed probe (router/judge/judge-probe.ts): the judge goes on only where it answers in time. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BoundedJudge } from '../../router/judge/bounded-judge';
import { switchByProbe } from '../../router/judge/create-judge';
import type { JudgeStatus } from '../../router/judge/judge-auto';
import { PROBE_QUESTION, probeFits, probeJudge } from '../../router/judge/judge-probe';
import type { JudgeProvider } from '../../router/judge/question';

/** A judge whose first reading of a card takes `firstMs` and each later one `heldMs` (as the local model's prefix cache). */
function timedProvider(heldMs: number, firstMs = heldMs): JudgeProvider & { calls: number } {
  const seen = new Set<string>();
  return {
    name: 'timed',
    calls: 0,
    async judge(question) {
      this.calls++;
      const ms = seen.has(question.candidate.key) ? heldMs : firstMs;
      seen.add(question.candidate.key);
      await new Promise((resolve) => setTimeout(resolve, ms));
      return 0.9;
    },
  };
}

const failing: JudgeProvider = {
  name: 'failing',
  judge: () => Promise.reject(new Error('model crashed')),
};

const status: JudgeStatus = { setting: 'auto', active: 'local', why: 'installed, 2 CPU cores, 20.0 GiB free' };
const quiet = { info: () => {}, warn: () => {} };

describe('judge probe', () => {
  it('probeFits - a held card judged within half the timeout fits; slower does not, saying how to keep it on', () => {
    assert.equal(probeFits(1_500, 3_000).fits, true);
    const slow = probeFits(2_400, 3_000);
    assert.equal(slow.fits, false);
    assert.match(
      slow.why,
      /took 2400 ms on this host; ROUTER_JUDGE_TIMEOUT_MS 3000 needs at most 1500 ms \(ROUTER_JUDGE=local keeps it on\)/,
    );
  });

  it('probeJudge - times the held card, not its first reading', async () => {
    const provider = timedProvider(0, 300);
    const result = await probeJudge(provider, { timeoutMs: 200 });
    assert.equal(result.fits, true, result.why);
    assert.ok(result.ms! < 100, `the held judgement was timed: ${result.ms}`);
    assert.equal(provider.calls, 2);
  });

  it('probeJudge - too slow on every attempt: off, after each attempt, the fastest reported', async () => {
    const heard: number[] = [];
    const result = await probeJudge(timedProvider(120), {
      timeoutMs: 100,
      attempts: 2,
      retryMs: 1,
      onAttempt: (n) => heard.push(n),
    });
    assert.equal(result.fits, false);
    assert.deepEqual(heard, [1, 2]);
    assert.match(result.why, /fastest of 2 probes/);
  });

  it('probeJudge - a judge that fails or hangs is off, saying why', async () => {
    const failed = await probeJudge(failing, { timeoutMs: 3_000, attempts: 2, retryMs: 1 });
    assert.deepEqual(failed, { fits: false, why: 'the probe judgement failed 2 times (model crashed)' });
    const hung = await probeJudge(timedProvider(10_000), { timeoutMs: 3_000, attempts: 1, limitMs: 20 });
    assert.match(hung.why, /no answer within 20 ms/);
  });

  it('switchByProbe - the judge reads nothing until the probe fits, then reads; the status says what happened', async () => {
    const judge = new BoundedJudge(timedProvider(0), { timeoutMs: 1_000, startsOff: true });
    assert.deepEqual(await judge.ask(PROBE_QUESTION, 'r1'), { kind: 'off' });
    const statuses: JudgeStatus[] = [];
    await switchByProbe(judge, 1_000, status, quiet, (s) => statuses.push(s));
    assert.equal(statuses[0]!.probing, true);
    assert.equal(statuses[0]!.active, 'off');
    assert.equal(statuses[1]!.active, 'local');
    assert.equal(typeof statuses[1]!.probe_ms, 'number');
    assert.equal((await judge.ask(PROBE_QUESTION, 'r1')).kind, 'answered');
  });

  it('switchByProbe - a host too slow keeps the judge off, and it fills nothing', async () => {
    const judge = new BoundedJudge(timedProvider(60), { timeoutMs: 100, startsOff: true, fillTimeoutMs: 1_000 });
    const statuses: JudgeStatus[] = [];
    await switchByProbe(judge, 100, status, quiet, (s) => statuses.push(s), { attempts: 1 });
    assert.equal(statuses.at(-1)!.active, 'off');
    assert.match(
      statuses.at(-1)!.why,
      /^installed, 2 CPU cores, 20\.0 GiB free; a judgement of a held card took \d+ ms/,
    );
    assert.deepEqual(await judge.ask(PROBE_QUESTION, 'r1'), { kind: 'off' });
    assert.equal(judge.fills, false);
  });
});
