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
