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

describe('CardBorders', () => {
  const cases: [name: string, query: Float32Array, keys: string[], crossed: [string, string][]][] = [
    ['a request among the capability\'s own texts stays inside', at(0.05), ['invoice/issue'], []],
    ['a request nearer the exclusion clause than every own text crosses it, and the clause is named', at(0.5), ['invoice/issue'], [['invoice/issue', 'cancel an issued invoice']]],
    ['halfway (0.35 rad: nearer 0.1 than 0.6) stays inside: nearer is nearer, no margin', at(0.34), ['invoice/issue'], []],
    ['a capability without exclusions is never crossed', at(0.6), ['weather/forecast'], []],
    ['only the keys asked about are checked', at(0.6), ['weather/forecast'], []],
    ['an unknown key is ignored', at(0.6), ['nobody/nothing', 'invoice/issue'], [['invoice/issue', 'cancel an issued invoice']]],
  ];
  for (const [name, query, keys, crossed] of cases) {
    it(`CardBorders - ${name}`, () => {
      assert.deepEqual([...borders.crossed(query, keys)], crossed);
    });
  }
});
