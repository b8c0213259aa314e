/** Each head's weight in the average, read off the held-out texts (router/head/head-weights.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HeldOutSample } from '../../router/head/cross-validation';
import type { HeadModel } from '../../router/head/head';
import { headWeights, meanLogProbability, SHRINK, simplexGrid } from '../../router/head/head-weights';
import type { JudgingHead } from '../../router/head/held-out-scores';
import { averagePredictions } from '../../router/head/head';

const KEYS = ['a', 'b'];

/** A held-out text of class `label` (−1: out of scope) to which the head gives its own class probability `own`. */
function text(label: number, own: number, chinese = false): HeldOutSample {
  const other = KEYS[label === 0 ? 1 : 0]!;
  if (label < 0)
    return { kind: 'none', label, chinese, card: false, none: own, ranked: [{ key: 'a', probability: 1 - own }] };
  return {
    kind: 'example',
    label,
    chinese,
    card: false,
    none: 0,
    ranked: [
      { key: KEYS[label]!, probability: own },
      { key: other, probability: 1 - own },
    ].sort((x, y) => y.probability - x.probability),
  };
}

function head(heldOut: HeldOutSample[], language?: 'zh' | 'en'): JudgingHead {
  return { model: { keys: KEYS } as unknown as HeadModel, heldOut, ...(language ? { language } : {}) };
}

describe('head weights', () => {
  it('simplexGrid - every split of the units, each summing to one', () => {
    const grid = simplexGrid(3, 20);
    assert.equal(grid.length, 231);
    assert.deepEqual(grid[0], [1, 0, 0]);
    assert.ok(grid.every((w) => Math.abs(w.reduce((a, b) => a + b, 0) - 1) < 1e-9));
    assert.equal(simplexGrid(2, 20).length, 21);
  });

  it('headWeights - the head that gives the held-out texts their own class counts more, halfway back to equal', () => {
    const sharp = head([text(0, 0.9), text(1, 0.8), text(-1, 0.9)]);
    const blurred = head([text(0, 0.3), text(1, 0.4), text(-1, 0.2)]);
    const weights = headWeights([sharp, blurred]);
    assert.deepEqual(weights, [1 - SHRINK / 2, SHRINK / 2]);
    assert.deepEqual(headWeights([blurred, sharp]), [SHRINK / 2, 1 - SHRINK / 2], 'by the texts, not the order');
  });

  it('headWeights - heads that read the texts alike keep equal weights; one head, or none held out, equal too', () => {
    const one = [text(0, 0.7), text(1, 0.6)];
    assert.deepEqual(headWeights([head(one), head(one), head(one)]), [1 / 3, 1 / 3, 1 / 3]);
    assert.deepEqual(headWeights([head(one)]), [1]);
    assert.deepEqual(headWeights([head([]), head([])]), [0.5, 0.5]);
  });

  it('headWeights - a one-language head is weighed on the texts of its language only', () => {
    // The multilingual head is poor on English texts; the English head is sharp on them and reads no Chinese.
    const multilingual = head([text(0, 0.3), text(1, 0.3), text(0, 0.9, true), text(1, 0.9, true)]);
    const english = head([text(0, 0.9), text(1, 0.9), text(0, 0.01, true), text(1, 0.01, true)], 'en');
    const [m, e] = headWeights([multilingual, english]);
    assert.ok(e! > m!, `the English head counts more: ${m} / ${e}`);
  });

  it('meanLogProbability - the weighted mean over the heads that read each text', () => {
    const truths = [
      [0.5, 0.1],
      [0.2, undefined],
    ];
    const value = meanLogProbability(truths, [0.5, 0.5]);
    assert.ok(Math.abs(value - (Math.log(0.3) + Math.log(0.2)) / 2) < 1e-12);
  });

  it('averagePredictions - weighted: the heavier head moves the average its way', () => {
    const same = () => false;
    const p = (a: number) => ({
      ranked: [
        { key: 'a', probability: a },
        { key: 'b', probability: 1 - a },
      ],
      none: 0,
      same,
      crossLingual: new Set<string>(),
    });
    const equal = averagePredictions([p(0.8), p(0.2)]);
    const weighted = averagePredictions([p(0.8), p(0.2)], [0.75, 0.25]);
    assert.equal(equal.ranked[0]!.probability, 0.5);
    assert.equal(weighted.ranked[0]!.key, 'a');
    assert.ok(Math.abs(weighted.ranked[0]!.probability - 0.65) < 1e-12);
  });
});
