/** Card borders (router/head/card-borders.ts): a request nearer to a card's exclusion clause than to its own texts. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CardBorders } from '../../router/head/card-borders';
import type { HeadTrainingInput } from '../../router/head/head';

/** A unit vector at `angle` in the plane. */
function at(angle: number): Float32Array {
  return Float32Array.from([Math.cos(angle), Math.sin(angle)]);
}

const input: HeadTrainingInput = {
  classes: [
    // Issues invoices (texts around 0 rad); its card says it does not cancel them (a clause at 0.6 rad).
    { key: 'invoice/issue', vectors: [at(0), at(0.1), at(-0.1)], chinese: [false, false, false], excluded: [at(0.6)] },
    // No exclusions: never crossed.
    { key: 'weather/forecast', vectors: [at(2), at(2.1)], chinese: [false, false] },
  ],
  none: [],
};
const borders = CardBorders.of(input, [['cancel an issued invoice'], []]);
const crossing = (clause: string) => ({ clause, learned: false });

describe('CardBorders', () => {
  const cases: [
    name: string,
    query: Float32Array,
    keys: string[],
    crossed: [string, { clause: string; learned: boolean }][],
  ][] = [
    ["a request among the capability's own texts stays inside", at(0.05), ['invoice/issue'], []],
    [
      'a request nearer the exclusion clause than every own text crosses it, and the clause is named',
      at(0.5),
      ['invoice/issue'],
      [['invoice/issue', crossing('cancel an issued invoice')]],
    ],
    [
      'halfway (0.35 rad: nearer 0.1 than 0.6) stays inside: nearer is nearer, no margin',
      at(0.34),
      ['invoice/issue'],
      [],
    ],
    ['a capability without exclusions is never crossed', at(0.6), ['weather/forecast'], []],
    ['only the keys asked about are checked', at(0.6), ['weather/forecast'], []],
    [
      'an unknown key is ignored',
      at(0.6),
      ['nobody/nothing', 'invoice/issue'],
      [['invoice/issue', crossing('cancel an issued invoice')]],
    ],
  ];
  it('CardBorders - a lesson (a request reported misrouted) draws a border only around nearly the same request', () => {
    const reported = at(-0.6);
    const taught = CardBorders.of(
      input,
      [['cancel an issued invoice'], []],
      [[{ text: 'refund an invoice', vector: reported }], [{ text: 'rain in Paris', vector: at(2.05) }]],
    );
    assert.deepEqual(
      [...taught.crossed(at(-0.6 + 0.1), ['invoice/issue'])],
      [['invoice/issue', { clause: 'refund an invoice', learned: true }]],
    );
    // 0.35 rad from the reported request (cosine 0.94): not the same request, no border.
    assert.deepEqual([...taught.crossed(at(-0.95), ['invoice/issue'])], []);
    // A capability without exclusions gets a border from its lessons alone; the card's clause still wins first.
    assert.deepEqual(
      [...taught.crossed(at(2.05), ['weather/forecast'])],
      [['weather/forecast', { clause: 'rain in Paris', learned: true }]],
    );
    assert.deepEqual(
      [...taught.crossed(at(0.5), ['invoice/issue'])],
      [['invoice/issue', crossing('cancel an issued invoice')]],
    );
  });

  it('CardBorders - gaps: the nearest fence on the best cards (clauses, counter-examples, lessons) less the nearest own text', () => {
    const near = (found: { gap: number; fence: string } | undefined, gap: number, fence: string) => {
      assert.ok(found && Math.abs(found.gap - gap) < 1e-6, `gap ${found?.gap} against ${gap}`);
      assert.equal(found.fence, fence);
    };
    // 0.3 rad: own text at 0.1 (cos 0.2), the clause at 0.6 (cos 0.3).
    near(
      borders.gaps(at(0.3), ['invoice/issue']).get('invoice/issue'),
      Math.cos(0.3) - Math.cos(0.2),
      'cancel an issued invoice',
    );
    // A card without fences has no gap of its own, but a runner-up's fence counts for it.
    assert.equal(borders.gaps(at(2), ['weather/forecast']).get('weather/forecast'), undefined);
    near(
      borders.gaps(at(1.5), ['weather/forecast', 'invoice/issue']).get('weather/forecast'),
      Math.cos(0.9) - Math.cos(0.5),
      'cancel an issued invoice',
    );
    // Counter-examples and lessons fence a card in too.
    const fenced = CardBorders.of(
      input,
      [['cancel an issued invoice'], []],
      [[], [{ text: 'rain last year', vector: at(2.3) }]],
      [[], [{ text: 'hourly rain', vector: at(1.9) }]],
    );
    near(
      fenced.gaps(at(2.2), ['weather/forecast']).get('weather/forecast'),
      Math.cos(0.1) - Math.cos(0.1),
      'rain last year',
    );
    near(
      fenced.gaps(at(1.85), ['weather/forecast']).get('weather/forecast'),
      Math.cos(0.05) - Math.cos(0.15),
      'hourly rain',
    );
    assert.equal(fenced.gaps(at(0), ['weather/forecast']).get('nobody/nothing'), undefined);
  });

  it("CardBorders - gaps weigh like with like: only fences in the language most of the capability's own texts are in", () => {
    const mixed: HeadTrainingInput = {
      classes: [
        // An English card (one short Chinese tag), fenced by an English clause at 0.8 rad.
        { key: 'hr/leave', vectors: [at(0), at(0.1), at(1.2)], chinese: [false, false, true], excluded: [at(0.8)] },
        // A Chinese card, fenced by a Chinese clause at 0.35 rad: near the request, but in another language than hr/leave.
        { key: 'calls/notify', vectors: [at(1), at(1.1), at(0.9)], chinese: [true, true, true], excluded: [at(0.35)] },
      ],
      none: [],
    };
    const twoLanguages = CardBorders.of(mixed, [['approve leave'], ['在预约时间外致电']]);
    const gaps = twoLanguages.gaps(at(0.3), ['hr/leave', 'calls/notify']);
    // hr/leave: its English clause (cos 0.5) less its nearest English text (cos 0.2); the nearer Chinese fence is not weighed.
    assert.equal(gaps.get('hr/leave')?.fence, 'approve leave');
    assert.ok(Math.abs(gaps.get('hr/leave')!.gap - (Math.cos(0.5) - Math.cos(0.2))) < 1e-6);
    // calls/notify: the Chinese clause against its Chinese texts.
    assert.equal(gaps.get('calls/notify')?.fence, '在预约时间外致电');
    assert.ok(Math.abs(gaps.get('calls/notify')!.gap - (Math.cos(0.05) - Math.cos(0.6))) < 1e-6);
    // No fence in a capability's language: no gap.
    const unfenced = { ...mixed, classes: [{ ...mixed.classes[0]!, excluded: [] }, mixed.classes[1]!] };
    assert.equal(
      CardBorders.of(unfenced, [[], ['在预约时间外致电']])
        .gaps(at(0.3), ['hr/leave', 'calls/notify'])
        .get('hr/leave'),
      undefined,
    );
  });

  for (const [name, query, keys, crossed] of cases) {
    it(`CardBorders - ${name}`, () => {
      assert.deepEqual([...borders.crossed(query, keys)], crossed);
    });
  }
});
