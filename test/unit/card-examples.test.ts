/** What the router's status says of a catalogue's cards: their examples, and the capabilities with few. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CapabilityCandidate } from '../../router/candidates';
import { cardExamples, FEW_EXAMPLES, LISTED_AT_MOST } from '../../router/card-examples';
import { testCandidate } from '../helpers/candidate';

function capability(key: string, examples: number): CapabilityCandidate {
  return testCandidate(key, { examples: Array.from({ length: examples }, (_, i) => `${key} ${i}`) });
}

describe('card examples', () => {
  it('card examples - min, median and max, and the capabilities under the bar listed fewest first', () => {
    const report = cardExamples([
      capability('weather/forecast', 12),
      capability('refunds/request_refund', 3),
      capability('refunds/query_refund', 9),
      capability('weather/alerts', 3),
    ]);
    assert.deepEqual(report, {
      capabilities: 4,
      examples: { min: 3, median: 6, max: 12 },
      few_examples: {
        under: FEW_EXAMPLES,
        count: 3,
        capabilities: [
          { capability: 'refunds/request_refund', examples: 3 },
          { capability: 'weather/alerts', examples: 3 },
          { capability: 'refunds/query_refund', examples: 9 },
        ],
      },
    });
  });

  it('card examples - a capability at the bar is not listed; the median of an odd count is its middle', () => {
    const report = cardExamples([capability('a/x', FEW_EXAMPLES), capability('a/y', 20), capability('a/z', 0)]);
    assert.deepEqual(report?.examples, { min: 0, median: FEW_EXAMPLES, max: 20 });
    assert.deepEqual(report?.few_examples.capabilities, [{ capability: 'a/z', examples: 0 }]);
  });

  it('card examples - the list is bounded and the count says how many there are; an empty catalogue has no report', () => {
    const many = Array.from({ length: LISTED_AT_MOST + 15 }, (_, i) =>
      capability(`a/c${String(i).padStart(2, '0')}`, 1),
    );
    const report = cardExamples(many);
    assert.equal(report?.few_examples.count, LISTED_AT_MOST + 15);
    assert.equal(report?.few_examples.capabilities.length, LISTED_AT_MOST);
    assert.equal(report?.few_examples.capabilities[0]?.capability, 'a/c00');
    assert.equal(cardExamples([]), undefined);
  });
});
