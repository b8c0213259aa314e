/** The head's self-calibration: thresholds from held-out predictions (router/head/calibration.ts, cross-validation.ts). */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { seededRandom } from '../../util/random';
import {
  balancedThreshold,
  calibrate,
  DEFAULT_CALIBRATION,
  fittingSamples,
  thresholdFor,
  type CalibrationSample,
  type Outcome,
} from '../../router/head/calibration';
import { heldOutPredictions } from '../../router/head/cross-validation';
import { predict, trainHead, type HeadModel, type HeadTrainingInput } from '../../router/head/head';
import { calibrationSamples } from '../../router/head/held-out-scores';

const sample = (score: number, outcome: Outcome, crossLingual = false, card = false): CalibrationSample => ({
  score,
  outcome,
  crossLingual,
  ...(card ? { card } : {}),
});

describe('thresholdFor', () => {
  it('thresholdFor - accepts at most the share asked, midway between the last refused score and the next one up', async () => {
    const scores = Array.from({ length: 20 }, (_, i) => i / 20); // 0, 0.05, …, 0.95
    assert.equal(thresholdFor(scores, 0.05), 0.925); // accepts 0.95 only: 1 of 20
    assert.equal(thresholdFor(scores, 0.1), 0.875); // accepts 0.9 and 0.95
    assert.equal(thresholdFor(scores, 0), 0.951); // accepts nothing
    assert.equal(thresholdFor([], 0.05), 0);
    assert.equal(thresholdFor(scores, 1), 0);
  });
});

describe('balancedThreshold', () => {
  it('balancedThreshold - separable scores: the cut between the bad and the right ones', async () => {
    const samples = [
      sample(0.1, 'out_of_scope'),
      sample(0.2, 'out_of_scope'),
      sample(0.3, 'excluded'),
      sample(0.6, 'right'),
      sample(0.8, 'right'),
    ];
    assert.equal(balancedThreshold(samples), 0.45);
  });

  it('balancedThreshold - overlapping scores: the cut that keeps the most right answers for the fewest bad ones', async () => {
    // Right at 0.3…0.9, bad at 0.05…0.35: cutting at 0.325 keeps 7/7 right for 1/4 bad (0.75); 0.375 keeps 6/7 for 0/4 (0.857).
    const right = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9].map((s) => sample(s, 'right'));
    const bad = [0.05, 0.1, 0.2, 0.35].map((s) => sample(s, 'out_of_scope'));
    assert.equal(balancedThreshold([...right, ...bad]), 0.375);
  });

  it('balancedThreshold - each refusable kind counts the same, however many texts it has; wrong first choices are left out', async () => {
    // Right: 10 at 0.5, 10 at 0.3. Excluded: 60 at 0.35, 30 at 0.1. Out-of-scope: 10 at 0.2.
    // Cut at 0.25: all right kept, 2/3 of the excluded and none of the out-of-scope accepted → 1 − (2/3 + 0)/2 = 0.67;
    // cut at 0.425: half the right, nothing refusable → 0.5. Per kind, 0.25 wins (pooling the 100 refusable texts
    // would give 1 − 60/100 = 0.4 there, and choose 0.425: the many excluded texts would outweigh the other kind).
    const many = (n: number, score: number, outcome: Outcome) =>
      Array.from({ length: n }, () => sample(score, outcome));
    const samples = [
      ...many(10, 0.5, 'right'),
      ...many(10, 0.3, 'right'),
      ...many(60, 0.35, 'excluded'),
      ...many(30, 0.1, 'excluded'),
      ...many(10, 0.2, 'out_of_scope'),
    ];
    assert.equal(balancedThreshold(samples), 0.25);
    // Wrong first choices, however many and wherever they score, do not move it.
    assert.equal(balancedThreshold([...samples, ...many(50, 0.45, 'wrong'), ...many(50, 0.28, 'wrong')]), 0.25);
  });

  it('balancedThreshold - without right answers or without bad ones there is nothing to balance', async () => {
    assert.equal(balancedThreshold([sample(0.5, 'right')]), 0);
    assert.equal(balancedThreshold([sample(0.5, 'out_of_scope')]), 0);
    assert.equal(balancedThreshold([sample(0.5, 'right'), sample(0.4, 'wrong')]), 0);
  });
});

describe('calibrate', () => {
  const random = seededRandom(7);
  const many = (n: number, low: number, high: number, outcome: Outcome, crossLingual: boolean) =>
    Array.from({ length: n }, () => sample(low + (high - low) * random(), outcome, crossLingual));

  it('calibrate - same-language and cross-lingual texts get their own operating point', async () => {
    const samples = [
      ...many(60, 0.4, 0.9, 'right', false),
      ...many(60, 0, 0.3, 'out_of_scope', false),
      ...many(40, 0.15, 0.5, 'right', true),
      ...many(40, 0, 0.1, 'out_of_scope', true),
    ];
    // Every right answer kept where it can be (keepRight 1): the balanced point alone decides.
    const fit = calibrate(samples, { ...DEFAULT_CALIBRATION, keepRight: 1 });
    assert.ok(fit.same_language.accept > 0.3 && fit.same_language.accept <= 0.4, `same ${fit.same_language.accept}`);
    assert.ok(fit.cross_lingual.accept > 0.1 && fit.cross_lingual.accept <= 0.15, `cross ${fit.cross_lingual.accept}`);
    assert.equal(fit.same_language.right_accepted, 1);
    assert.equal(fit.cross_lingual.out_of_scope_accepted, 0);
    assert.deepEqual(fit.cross_lingual.samples, { right: 40, wrong: 0, out_of_scope: 40, excluded: 0 });
    assert.equal(fit.same_language.pooled, false);
  });

  it('calibrate - negatives far below every right answer: the head still refuses its least certain right answers (keepRight)', async () => {
    const samples = [...many(100, 0.2, 0.9, 'right', false), ...many(60, 0, 0.05, 'out_of_scope', false)];
    const balancedOnly = calibrate(samples, { ...DEFAULT_CALIBRATION, keepRight: 1 });
    assert.ok(balancedOnly.same_language.accept < 0.2, JSON.stringify(balancedOnly.same_language));
    const fit = calibrate(samples);
    assert.ok(fit.same_language.accept > 0.2, JSON.stringify(fit.same_language));
    assert.ok(
      Math.abs(fit.same_language.right_accepted - DEFAULT_CALIBRATION.keepRight) <= 0.01,
      JSON.stringify(fit.same_language),
    );
    // Where the negatives already demand more, keepRight changes nothing.
    const hard = [...many(100, 0.2, 0.9, 'right', false), ...many(60, 0.3, 0.6, 'out_of_scope', false)];
    assert.equal(
      calibrate(hard).same_language.accept,
      calibrate(hard, { ...DEFAULT_CALIBRATION, keepRight: 1 }).same_language.accept,
    );
  });

  it('calibrate - the target caps the out-of-scope texts accepted even where balance would accept more', async () => {
    // Right answers packed into 0.3–0.6, out-of-scope texts spread over 0–0.5: the balanced cut (~0.3) lets ~40 % of
    // them through, the 7 % target does not.
    const samples = [...many(100, 0.3, 0.6, 'right', false), ...many(100, 0, 0.5, 'out_of_scope', false)];
    const fit = calibrate(samples);
    assert.ok(fit.same_language.out_of_scope_accepted <= DEFAULT_CALIBRATION.target, JSON.stringify(fit.same_language));
    assert.ok(
      fit.same_language.accept >=
        thresholdFor(
          samples.filter((s) => s.outcome === 'out_of_scope').map((s) => s.score),
          DEFAULT_CALIBRATION.target,
        ),
    );
    const loose = calibrate(samples, { ...DEFAULT_CALIBRATION, target: 0.5 });
    assert.ok(loose.same_language.accept < fit.same_language.accept);
  });

  it('calibrate - a direction with too few texts of its own takes the pooled operating point', async () => {
    const samples = [
      ...many(60, 0.4, 0.9, 'right', false),
      ...many(60, 0, 0.3, 'out_of_scope', false),
      ...many(3, 0.2, 0.3, 'right', true),
    ];
    const fit = calibrate(samples);
    assert.equal(fit.cross_lingual.pooled, true);
    assert.equal(
      fit.cross_lingual.accept,
      calibrate(samples.map((s) => ({ ...s, crossLingual: false }))).same_language.accept,
    );
  });

  it('calibrate - the escalation band opens lower (the LLM judges it) and never above accept', async () => {
    const samples = [...many(60, 0.3, 0.9, 'right', false), ...many(60, 0, 0.6, 'out_of_scope', false)];
    const fit = calibrate(samples);
    assert.ok(fit.same_language.escalate <= fit.same_language.accept);
    assert.ok(fit.same_language.escalate < fit.same_language.accept);
  });

  it('fittingSamples - with enough card texts judged right, they stand for the right answers; the other outcomes all stay', async () => {
    const cards = Array.from({ length: 20 }, (_, i) => sample(0.2 + i / 100, 'right', false, true));
    const rest = [
      sample(0.9, 'right'),
      sample(0.8, 'wrong'),
      sample(0.7, 'wrong', false, true),
      sample(0.1, 'out_of_scope'),
      sample(0.3, 'excluded'),
    ];
    const fitted = fittingSamples([...cards, ...rest], 20);
    assert.equal(fitted.fittedOn, 'card_texts');
    assert.deepEqual(fitted.samples, [...cards, ...rest.slice(1)]);
    const few = fittingSamples([...cards.slice(1), ...rest], 20);
    assert.equal(few.fittedOn, 'all_texts');
    assert.equal(few.samples.length, 24);
  });

  it('calibrate - the right answers it is fitted on are the card texts: examples that score higher do not lift the threshold', async () => {
    // Examples held out with their paraphrases left in score high (0.5–0.9); card texts, phrased unlike any, lower
    // (0.15–0.6). keepRight refuses the least certain ~6 % of the card texts, not of all right answers (which would
    // refuse the lower half of the card texts).
    const cards = many(40, 0.15, 0.6, 'right', false).map((s) => ({ ...s, card: true }));
    const examples = many(400, 0.5, 0.9, 'right', false);
    const samples = [...examples, ...cards, ...many(60, 0, 0.05, 'out_of_scope', false)];
    const fit = calibrate(samples);
    assert.equal(fit.same_language.fitted_on, 'card_texts');
    assert.equal(
      fit.same_language.accept,
      thresholdFor(
        cards.map((s) => s.score),
        DEFAULT_CALIBRATION.keepRight,
      ),
    );
    assert.ok(
      fit.same_language.card_right_accepted >= 0.9 &&
        fit.same_language.card_right_accepted <= DEFAULT_CALIBRATION.keepRight,
      JSON.stringify(fit.same_language),
    );
    const allTexts = thresholdFor(
      [...examples, ...cards].map((s) => s.score),
      DEFAULT_CALIBRATION.keepRight,
    );
    assert.ok(allTexts > fit.same_language.accept + 0.1, `${allTexts} vs ${fit.same_language.accept}`);
    // Too few card texts judged right: all right answers count, as before.
    const fewCards = calibrate([
      ...examples,
      ...cards.slice(0, DEFAULT_CALIBRATION.minSamples - 1),
      ...many(60, 0, 0.05, 'out_of_scope', false),
    ]);
    assert.equal(fewCards.same_language.fitted_on, 'all_texts');
    assert.ok(fewCards.same_language.accept > 0.4, JSON.stringify(fewCards.same_language));
  });

  it('calibrate - same samples, same thresholds', async () => {
    const samples = [...many(50, 0.3, 0.9, 'right', false), ...many(50, 0, 0.5, 'excluded', false)];
    assert.deepEqual(calibrate(samples), calibrate([...samples].reverse()));
  });
});

/** Three well-separated classes and an out-of-scope cloud, in 12 dimensions. */
function synthetic(): HeadTrainingInput {
  const random = seededRandom(3);
  const dims = 12;
  const unit = (v: Float32Array) => v.map((x) => x / (Math.hypot(...v) || 1));
  const near = (axis: number) =>
    unit(Float32Array.from({ length: dims }, (_, i) => (i === axis ? 1 : 0) + 0.35 * (random() - 0.5)));
  const classes = ['a', 'b', 'c'].map((key, k) => {
    const vectors = Array.from({ length: 8 }, () => near(k));
    return {
      key,
      vectors,
      chinese: vectors.map(() => false),
      units: vectors.map((_, i) => (i < 6 ? i : -1)),
      excluded: [near(k)],
      excludedChinese: [false],
    };
  });
  const none = Array.from({ length: 15 }, () => near(3 + Math.floor(random() * 8)));
  return { classes, none, noneChinese: none.map(() => false), options: { maxIterations: 60 } };
}

describe('held-out predictions', () => {
  const input = synthetic();
  let full: HeadModel;
  before(async () => {
    full = await trainHead(input);
  });

  it('cross-validation - every text is predicted once, by a head that did not see it', async () => {
    const { samples: heldOut } = await heldOutPredictions(input, 4, full);
    const examples = heldOut.filter((s) => s.kind === 'example');
    assert.equal(examples.length, 24);
    assert.equal(heldOut.filter((s) => s.kind === 'none').length, 15);
    assert.equal(heldOut.filter((s) => s.kind === 'excluded').length, 3);
    // Held out, a text gets a lower probability for its own class than from the head that learned it.
    const own = (ranked: { key: string; probability: number }[], key: string) =>
      ranked.find((r) => r.key === key)?.probability ?? 0;
    const heldOutMean = examples.reduce((sum, s) => sum + own(s.ranked, full.keys[s.label]!), 0) / examples.length;
    const seen = input.classes.flatMap((c, k) =>
      c.vectors.map((v) => own(predict(full, v, false).ranked, full.keys[k]!)),
    );
    const seenMean = seen.reduce((a, b) => a + b, 0) / seen.length;
    assert.ok(heldOutMean < seenMean, `held out ${heldOutMean} vs seen ${seenMean}`);
  });

  it('held-out scores - right, wrong, out-of-scope and excluded outcomes, one sample per judged text', async () => {
    const { samples: heldOut } = await heldOutPredictions(input, 4, full);
    const samples = calibrationSamples([{ model: full, heldOut }]);
    const count = (o: Outcome) => samples.filter((s) => s.outcome === o).length;
    assert.equal(count('right') + count('wrong'), 24);
    assert.ok(count('right') >= 20, `right ${count('right')}`);
    assert.equal(count('out_of_scope'), 15);
    assert.ok(count('excluded') <= 3);
    // The card texts (unit −1: two per class here) are marked as such, and only they.
    assert.equal(heldOut.filter((s) => s.card).length, 6);
    assert.ok(heldOut.filter((s) => s.card).every((s) => s.kind === 'example'));
    assert.equal(samples.filter((s) => s.card).length, 6);
    // An English-only head judges no Chinese text: with only such a head, Chinese texts give no sample.
    const chinese = heldOut.map((s) => ({ ...s, chinese: true }));
    assert.equal(calibrationSamples([{ model: full, heldOut: chinese, language: 'en' }]).length, 0);
  });
});
