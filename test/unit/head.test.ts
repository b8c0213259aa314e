/** The classifier head (router/head/head.ts) on small synthetic catalogues of seeded random vectors. */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { seededRandom } from '../../util/random';
import { groupScores } from '../../router/head/decide';
import {
  DEFAULT_HEAD_OPTIONS,
  SAME_SERVICE,
  features,
  predict,
  sameService,
  trainHead,
  type ClassTexts,
  type HeadModel,
  type HeadTrainingInput,
} from '../../router/head/head';

const DIMS = 24;

const prng = seededRandom;

function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

function unit(v: Float32Array): Float32Array {
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

function randomUnit(random: () => number): Float32Array {
  return unit(Float32Array.from({ length: DIMS }, () => gaussian(random)));
}

/** A unit vector near `centre`: centre + spread·(random unit direction) [+ shift], normalised. */
function near(random: () => number, centre: Float32Array, spread: number, shift?: Float32Array): Float32Array {
  const noise = randomUnit(random);
  return unit(centre.map((c, i) => c + spread * noise[i]! + (shift?.[i] ?? 0)));
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

const SPREAD = 0.5;
const KEYS = ['refund', 'weather', 'parcel', 'invoice', 'hotel'];

interface Catalogue {
  centres: Float32Array[];
  noneCentre: Float32Array;
  input: HeadTrainingInput;
}

function catalogue(seed: number, options: HeadTrainingInput['options'] = {}): Catalogue {
  const random = prng(seed);
  const centres = KEYS.map(() => randomUnit(random));
  const noneCentre = randomUnit(random);
  const classes: ClassTexts[] = KEYS.map((key, i) => {
    const vectors = Array.from({ length: 8 }, () => near(random, centres[i]!, SPREAD));
    return { key, vectors, chinese: vectors.map(() => false) };
  });
  const none = Array.from({ length: 20 }, () => near(random, noneCentre, SPREAD));
  return { centres, noneCentre, input: { classes, none, options } };
}

const base = catalogue(1);
let model: HeadModel;
before(async () => {
  model = await trainHead(base.input);
});

describe('trainHead / predict', () => {
  it('trainHead - the model has one row of weights per capability plus "none", and a prototype per capability', async () => {
    assert.deepEqual(model.keys, KEYS);
    assert.equal(model.dims, DIMS);
    assert.equal(model.weights.length, (KEYS.length + 1) * (DIMS + 1));
    assert.equal(model.prototypes.length, KEYS.length * DIMS);
    assert.equal(model.shortlist, DEFAULT_HEAD_OPTIONS.shortlist);
    assert.equal(model.language, null);
  });

  KEYS.forEach((key, i) => {
    it(`predict - a vector near ${key}'s centre ranks ${key} first, above "none"`, async () => {
      const random = prng(100 + i);
      for (let q = 0; q < 5; q++) {
        const prediction = predict(model, near(random, base.centres[i]!, SPREAD), false);
        assert.equal(prediction.ranked[0]!.key, key, JSON.stringify(prediction.ranked.slice(0, 2)));
        assert.ok(prediction.ranked[0]!.probability > prediction.none);
      }
      // The centre itself: a confident answer.
      assert.ok(predict(model, base.centres[i]!, false).ranked[0]!.probability > 0.8);
    });
  });

  it('predict - a vector near the "none" texts gets a high "none" probability', async () => {
    const random = prng(200);
    for (let q = 0; q < 5; q++) {
      const prediction = predict(model, near(random, base.noneCentre, SPREAD), false);
      assert.ok(prediction.none > 0.7, `none ${prediction.none}`);
      assert.ok(prediction.none > prediction.ranked[0]!.probability);
    }
  });

  const shortlists = [DEFAULT_HEAD_OPTIONS.shortlist, 3, 1];
  for (const shortlist of shortlists) {
    it(`predict - shortlist ${shortlist}: ranked (most probable first) and "none" sum to 1`, async () => {
      const m =
        shortlist === DEFAULT_HEAD_OPTIONS.shortlist ? model : await trainHead(catalogue(1, { shortlist }).input);
      const random = prng(300 + shortlist);
      const queries = [...base.centres, base.noneCentre, randomUnit(random), near(random, base.centres[0]!, 1.5)];
      for (const v of queries) {
        const { ranked, none } = predict(m, v, false);
        assert.equal(ranked.length, Math.min(shortlist, KEYS.length));
        assert.equal(new Set(ranked.map((r) => r.key)).size, ranked.length);
        for (let r = 1; r < ranked.length; r++) assert.ok(ranked[r - 1]!.probability >= ranked[r]!.probability);
        const total = ranked.reduce((sum, r) => sum + r.probability, none);
        assert.ok(Math.abs(total - 1) < 1e-9, `total ${total}`);
      }
    });
  }

  it('trainHead - excluded texts lower their capability where they lie', async () => {
    const random = prng(400);
    const elsewhere = randomUnit(random);
    const excluded = Array.from({ length: 6 }, () => near(random, elsewhere, SPREAD));
    const classes = base.input.classes.map((c) => (c.key === 'weather' ? { ...c, excluded } : c));
    const withExclusions = await trainHead({ ...base.input, classes });
    const probe = near(random, elsewhere, SPREAD);
    const weather = (m: HeadModel) => predict(m, probe, false).ranked.find((r) => r.key === 'weather')!.probability;
    assert.ok(weather(withExclusions) < weather(model), `${weather(withExclusions)} ≥ ${weather(model)}`);
    // Its own requests still go to it.
    assert.equal(predict(withExclusions, base.centres[1]!, false).ranked[0]!.key, 'weather');
  });

  it('trainHead - deterministic: the same catalogue trains the same model', async () => {
    const again = await trainHead(catalogue(1).input);
    assert.deepEqual(again.weights, model.weights);
    assert.deepEqual(again.prototypes, model.prototypes);
  });
});

describe('language direction', () => {
  /** A catalogue whose Chinese texts lie along +direction and English ones along −direction. */
  async function bilingual(zh: number, en: number, minPerLanguage: number, seed = 7) {
    const random = prng(seed);
    const direction = randomUnit(random);
    const plus = direction.map((x) => 0.6 * x);
    const minus = direction.map((x) => -0.6 * x);
    const centres = KEYS.map(() => randomUnit(random));
    // Texts dealt round the classes: the i-th Chinese text to class i mod 5, the same for English.
    const classes: ClassTexts[] = KEYS.map((key) => ({ key, vectors: [], chinese: [] }));
    for (let i = 0; i < zh + en; i++) {
      const chinese = i < zh;
      const c = classes[i % KEYS.length]!;
      c.vectors.push(near(random, centres[i % KEYS.length]!, SPREAD, chinese ? plus : minus));
      c.chinese.push(chinese);
    }
    const none = Array.from({ length: 10 }, () => randomUnit(random));
    return { direction, centres, plus, model: await trainHead({ classes, none, options: { minPerLanguage } }) };
  }

  const cases: [zh: number, en: number, minPerLanguage: number, projected: boolean][] = [
    [10, 10, 4, true],
    [4, 4, 4, true],
    [3, 12, 4, false],
    [12, 3, 4, false],
    [0, 15, 4, false],
    [15, 0, 4, false],
    [6, 6, 7, false],
    [7, 7, 7, true],
  ];
  for (const [zh, en, minPerLanguage, projected] of cases) {
    it(`language - ${zh} Chinese and ${en} English texts, minPerLanguage ${minPerLanguage}: ${projected ? 'projected out' : 'kept (null)'}`, async () => {
      const { direction, model: m } = await bilingual(zh, en, minPerLanguage);
      const random = prng(500);
      const probes = [randomUnit(random), randomUnit(random), direction];
      if (!projected) {
        assert.equal(m.language, null);
        // Without a language direction, features only centre and normalise.
        for (const v of probes) {
          const want = unit(v.map((x, i) => x - m.mean[i]!));
          features(m, v).forEach((x, i) => assert.ok(Math.abs(x - want[i]!) < 1e-6));
        }
        return;
      }
      assert.ok(m.language);
      assert.ok(Math.abs(Math.hypot(...m.language) - 1) < 1e-5);
      // Chinese minus English: it points along the direction the texts were shifted by.
      assert.ok(dot(m.language, direction) > 0.8, `cos ${dot(m.language, direction)}`);
      for (const v of probes) {
        const f = features(m, v);
        assert.ok(Math.abs(dot(f, m.language)) < 1e-5, `along ${dot(f, m.language)}`);
        assert.ok(Math.abs(Math.hypot(...f) - 1) < 1e-5);
      }
    });
  }

  it('language - a Chinese request finds a capability whose examples are all English', async () => {
    // 'refund' gets English examples only; every other class has both languages.
    const random = prng(11);
    const direction = randomUnit(random);
    const centres = KEYS.map(() => randomUnit(random));
    const shift = (chinese: boolean) => direction.map((x) => (chinese ? 0.8 : -0.8) * x);
    const classes: ClassTexts[] = KEYS.map((key, i) => {
      const chinese = Array.from({ length: 8 }, (_, j) => i !== 0 && j % 2 === 0);
      return { key, chinese, vectors: chinese.map((zh) => near(random, centres[i]!, SPREAD, shift(zh))) };
    });
    const none = Array.from({ length: 10 }, () => randomUnit(random));
    const m = await trainHead({ classes, none });
    assert.ok(m.language);
    for (let q = 0; q < 5; q++) {
      const prediction = predict(m, near(random, centres[0]!, SPREAD, shift(true)), true);
      assert.equal(prediction.ranked[0]!.key, 'refund', JSON.stringify(prediction.ranked.slice(0, 2)));
    }
  });
});

describe('sameService', () => {
  const random = prng(21);
  const centres = [randomUnit(random), randomUnit(random), randomUnit(random)];
  const shared = Array.from({ length: 6 }, () => near(random, centres[0]!, SPREAD));
  const classes: ClassTexts[] = [
    { key: 'agent-a/track', vectors: shared, chinese: shared.map(() => true) },
    { key: 'agent-b/track', vectors: shared.map((v) => Float32Array.from(v)), chinese: shared.map(() => true) },
    {
      key: 'agent-c/weather',
      vectors: Array.from({ length: 6 }, () => near(random, centres[1]!, SPREAD)),
      chinese: Array(6).fill(true),
    },
    {
      key: 'agent-d/refund',
      vectors: Array.from({ length: 6 }, () => near(random, centres[2]!, SPREAD)),
      chinese: Array(6).fill(true),
    },
  ];
  let m: HeadModel;
  before(async () => {
    m = await trainHead({ classes, none: Array.from({ length: 10 }, () => randomUnit(random)) });
  });

  const cases: [a: string, b: string, same: boolean][] = [
    ['agent-a/track', 'agent-b/track', true],
    ['agent-b/track', 'agent-a/track', true],
    ['agent-a/track', 'agent-a/track', true],
    ['agent-a/track', 'agent-c/weather', false],
    ['agent-c/weather', 'agent-d/refund', false],
    ['agent-a/track', 'agent-x/unknown', false],
    ['agent-x/unknown', 'agent-x/unknown', false],
  ];
  for (const [a, b, want] of cases) {
    it(`sameService - ${a} and ${b}: ${want ? 'the same service' : 'different'}`, async () => {
      assert.equal(sameService(m, a, b), want);
      assert.equal(predict(m, centres[0]!, false).same(a, b), want);
    });
  }

  it(`sameService - distinct classes' prototypes are below the ${SAME_SERVICE} cosine`, async () => {
    for (let i = 0; i < classes.length; i++) {
      for (let j = i + 1; j < classes.length; j++) {
        const cos = dot(
          m.prototypes.subarray(i * DIMS, (i + 1) * DIMS),
          m.prototypes.subarray(j * DIMS, (j + 1) * DIMS),
        );
        assert.equal(cos >= SAME_SERVICE, i === 0 && j === 1, `${classes[i]!.key} · ${classes[j]!.key} = ${cos}`);
      }
    }
  });

  it('sameService - replicas split their probability, and grouping adds it back up', async () => {
    const prediction = predict(m, near(random, centres[0]!, SPREAD), false);
    const [first, second] = prediction.ranked;
    assert.deepEqual(new Set([first!.key, second!.key]), new Set(['agent-a/track', 'agent-b/track']));
    assert.ok(Math.abs(first!.probability - second!.probability) < 1e-3);
    const [group] = groupScores(prediction.ranked, prediction.same);
    assert.equal(group!.keys.length, 2);
    assert.ok(Math.abs(group!.probability - (first!.probability + second!.probability)) < 1e-12);
  });
});
