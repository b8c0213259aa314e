/**
 * The head matcher over a fake embedding model: the head trains in a real worker thread; until it is ready,
 * requests after the wait window get no prediction (similarity answers them), requests inside it wait for the head.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { candidatesOf } from '../../router/candidates';
import type { EmbeddingProvider } from '../../router/embeddings/provider';
import { headMatcherFactory } from '../../router/head/head-matcher';
import { lexicalMatcherFactory } from '../../router/matcher';
import { VectorCache } from '../../router/semantic-index';
import { agentFromCard } from '../../bench/lib/routing-data';

const DIMS = 16;

/** Texts about weather point one way, about refunds another, anything else a third: enough for a head to learn. */
const fakeModel: EmbeddingProvider = {
  id: 'fake',
  async embedDocuments(texts) {
    return texts.map((t) => {
      const v = new Float32Array(DIMS);
      const axis = /weather|rain|天气|forecast/i.test(t)
        ? 0
        : /refund|退款|money back/i.test(t)
          ? 1
          : 2 + (t.length % (DIMS - 2));
      v[axis] = 1;
      v[(axis + 5) % DIMS] = 0.1;
      return v;
    });
  },
  async embedQuery(text) {
    return (await this.embedDocuments([text]))[0]!;
  },
};

const candidates = candidatesOf([
  agentFromCard(
    {
      agent_id: 'shop',
      name: 'shop',
      description: 'shop',
      tags: [],
      capabilities: [
        {
          name: 'forecast',
          description: 'Weather forecast',
          examples: ['will it rain', 'weather tomorrow', '明天天气'],
        },
        {
          name: 'refund',
          description: 'Refund an order',
          examples: ['refund my order', '我要退款', 'money back please'],
        },
      ],
    },
    't',
  ),
]);

function matcher(waitMs: number) {
  return headMatcherFactory([{ provider: fakeModel }], lexicalMatcherFactory(), new VectorCache(), { waitMs })(
    candidates,
  );
}

describe('head matcher', () => {
  it('head matcher - inside the wait window a request waits for the head and gets its prediction', async () => {
    const m = await matcher(60_000);
    const prediction = await m.classify!('is rain coming, weather?');
    assert.ok(prediction);
    assert.equal(prediction.ranked[0]!.key, 'shop/forecast');
  });

  it('head matcher - after the window a request does not wait: similarity answers until the head is ready', async () => {
    const m = await matcher(0);
    assert.equal(await m.classify!('refund please'), undefined);
    await m.ready!();
    const prediction = await m.classify!('refund please');
    assert.equal(prediction?.ranked[0]!.key, 'shop/refund');
  });
});

describe('head matcher lessons', () => {
  it('head matcher - a lesson (a request reported misrouted) crosses its capability for that same request only', async () => {
    const taught = candidates.map((c) => (c.key === 'shop/forecast' ? { ...c, misroutes: ['book a flight'] } : c));
    const m = await headMatcherFactory([{ provider: fakeModel }], lexicalMatcherFactory(), new VectorCache(), {
      waitMs: 60_000,
    })(taught);
    const same = await m.classify!('book a flight');
    assert.deepEqual(same?.crossed?.get('shop/forecast'), { clause: 'book a flight', learned: true });
    const weather = await m.classify!('will it rain');
    assert.equal(weather?.crossed?.size ?? 0, 0);
  });
});

/** A model whose embeddings wait for `open()` (or fail at `fail()`), whose queries are counted and can be held. */
function gatedModel(id: string) {
  let held: Promise<void> | undefined;
  const hold = () => {
    let release!: () => void;
    held = new Promise<void>((resolve) => (release = resolve));
    return () => {
      held = undefined;
      release();
    };
  };
  let open!: () => void;
  let fail!: (error: Error) => void;
  const gate = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  gate.catch(() => undefined);
  let queries = 0;
  const provider: EmbeddingProvider = {
    id,
    async embedDocuments(texts) {
      await gate;
      return fakeModel.embedDocuments(texts);
    },
    async embedQuery(text) {
      queries++;
      await gate;
      await held;
      return fakeModel.embedQuery(text);
    },
  };
  return { provider, open, fail, hold, queries: () => queries };
}

/** Two first models (the first one's queries can be held) and a late one. */
function threeHeads(errors: Error[] = []) {
  const first = gatedModel('fake-a');
  first.open();
  const late = gatedModel('fake-late');
  const models = [
    { provider: first.provider },
    { provider: { ...fakeModel, id: 'fake-b' } },
    { provider: late.provider },
  ];
  const build = headMatcherFactory(models, lexicalMatcherFactory(), new VectorCache(), {
    waitMs: 60_000,
    onError: (error) => errors.push(error),
  });
  return { build, first, late };
}

describe('head matcher late heads', () => {
  it('head matcher - the first two heads serve first; the late head joins with a calibration over all three, swapped whole', async () => {
    const { build, first, late } = threeHeads();
    const m = await build(candidates);
    await m.ready!();
    const before = m.head!();
    assert.deepEqual(before?.heads, ['fake-a', 'fake-b']);
    assert.deepEqual(before?.late, { models: ['fake-late'], state: 'training' });
    const early = await m.classify!('will it rain');
    assert.equal(early?.provider, 'fake-a+fake-b+head');
    assert.equal(early?.ranked[0]!.key, 'shop/forecast');
    assert.equal(early?.calibration, before?.calibration);
    assert.equal(late.queries(), 0, 'a late head not yet joined reads no request');

    // A decision under way when the swap happens keeps the set it started with.
    const release = first.hold();
    const during = m.classify!('refund my order');
    late.open();
    await m.full!();
    release();
    const kept = await during;
    assert.equal(kept?.provider, 'fake-a+fake-b+head');
    assert.equal(kept?.calibration, before?.calibration);

    const after = m.head!();
    assert.deepEqual(after?.heads, ['fake-a', 'fake-b', 'fake-late']);
    assert.deepEqual(after?.late, { models: ['fake-late'], state: 'joined' });
    assert.notEqual(after?.calibration, before?.calibration);
    const joined = await m.classify!('refund my order');
    assert.equal(joined?.provider, 'fake-a+fake-b+fake-late+head');
    assert.equal(joined?.ranked[0]!.key, 'shop/refund');
    assert.equal(joined?.calibration, after?.calibration);
    assert.equal(late.queries(), 1);
  });

  it('head matcher - a catalogue change while the late head trains discards it: the first heads keep serving', async () => {
    const { build, late } = threeHeads();
    const m = await build(candidates);
    await m.ready!();
    m.retire!();
    late.open();
    await m.full!();
    assert.deepEqual(m.head!()?.late, { models: ['fake-late'], state: 'discarded' });
    assert.deepEqual(m.head!()?.heads, ['fake-a', 'fake-b']);
    assert.equal((await m.classify!('will it rain'))?.provider, 'fake-a+fake-b+head');
    assert.equal(late.queries(), 0);
  });

  it('head matcher - a late head that fails leaves the first heads serving and says so', async () => {
    const errors: Error[] = [];
    const { build, late } = threeHeads(errors);
    const m = await build(candidates);
    await m.ready!();
    late.fail(new Error('model thread died'));
    await m.full!();
    const state = m.head!();
    assert.deepEqual(state?.heads, ['fake-a', 'fake-b']);
    assert.equal(state?.late?.state, 'failed');
    assert.match(state?.late?.error ?? '', /model thread died/);
    assert.ok(errors.some((e) => /late heads \(fake-late\) failed, the first ones serve/.test(e.message)));
    const prediction = await m.classify!('will it rain');
    assert.equal(prediction?.provider, 'fake-a+fake-b+head');
    assert.equal(prediction?.ranked[0]!.key, 'shop/forecast');
  });
});
