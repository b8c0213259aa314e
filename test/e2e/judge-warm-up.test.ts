/**
 * The local judge holds a catalogue's cards before anyone asks (router/judge/warm-up.ts), with the real model
 * (Qwen2.5-Coder-1.5B-Instruct Q4_K_M through node-llama-cpp) where `npm run models -- --judge` has put it in the
 * cache; skipped, saying so, where not. What is checked is what the model's sequences hold, not how long it takes
 * (timing is the benchmark's business).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { loadZhRouting } from '../../bench/lib/routing-data';
import { candidatesOf } from '../../router/candidates';
import { localJudgeModel } from '../helpers/local-judge-model';
import { LocalJudge } from '../../router/judge/local-judge';

const { modelPath, missing } = localJudgeModel();

const cards = candidatesOf(loadZhRouting('t').agents);
const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('local judge warm-up (real model)', { skip: missing }, () => {
  const judge = missing ? undefined : new LocalJudge({ modelPath: modelPath!, threads: 2 });
  after(async () => judge?.close());

  it("warm-up - once a catalogue is held, a judgement of any of its cards evaluates only the request's tokens", async () => {
    const catalogue = { tenant: 't', revision: 'r1', candidates: cards.slice(0, 6) };
    await judge!.hold(catalogue);
    assert.deepEqual(
      { ...judge!.warming(), slots: undefined },
      { tenant: 't', revision: 'r1', state: 'done', cards: 6, chosen: 6, held: 6, slots: undefined },
    );
    for (const candidate of [cards[0]!, cards[5]!, cards[2]!]) {
      const yes = await judge!.judge({ intent: '帮我查一下明天上海的天气', candidate });
      assert.ok(yes !== undefined, 'the model answered yes or no');
      const read = judge!.lastRead!;
      assert.ok(read.hit, `${candidate.key}: its prefix was held (${JSON.stringify(read)})`);
      assert.equal(read.evaluated, read.prompt - read.prefix, 'only the request and the question were evaluated');
      assert.ok(read.prefix > read.evaluated, `the card (${read.prefix} tokens) was not evaluated again`);
    }
  });

  it('warm-up - a live judgement waits for the warm-up step in progress at most, not for the rest of the catalogue', async () => {
    const catalogue = { tenant: 't', revision: 'r2', candidates: cards.slice(6, 14) };
    const warming = judge!.hold(catalogue);
    while ((judge!.warming()?.held ?? 0) < 1) await pause();
    const before = judge!.warming()!.held;
    // A card outside the catalogue: the live reading adds none of the catalogue's to the count.
    await judge!.judge({ intent: '帮我查一下明天上海的天气', candidate: cards[20]! });
    const during = judge!.warming()!;
    assert.ok(during.held <= before + 1, `held ${before} when asked, ${during.held} when answered`);
    assert.equal(during.state, 'warming', 'the warm-up was still going when the live judgement was answered');
    assert.equal(judge!.lastRead!.hit, false, 'the outside card was read cold');
    await warming;
    assert.equal(judge!.warming()!.state, 'done');
    assert.equal(judge!.warming()!.held, 8);
  });
});
