/** The head's verdict (router/head/decide.ts): replicas grouped, then accept / ambiguous / escalate / refuse. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Calibration } from '../../router/head/calibration';
import {
  CROSS_LINGUAL_FACTOR,
  decideByHead,
  DEFAULT_HEAD_SETTINGS,
  groupScores,
  resolveThresholds,
  type HeadThresholds,
  type HeadVerdict,
  type ScoredGroup,
} from '../../router/head/decide';
import type { HeadScore } from '../../router/head/head';

/** The router's defaults (router/router.ts DEFAULT_HEAD_THRESHOLDS). */
const THRESHOLDS: HeadThresholds = {
  sameLanguage: { accept: 0.5, escalate: 0.3 },
  crossLingual: { accept: 0.5, escalate: 0.3 },
  ambiguity: 0.8,
};

/** `same` from pairs of keys that are replicas of one service (symmetric, not transitive). */
function sameFrom(pairs: [string, string][]): (a: string, b: string) => boolean {
  const set = new Set(pairs.flatMap(([a, b]) => [`${a}|${b}`, `${b}|${a}`]));
  return (a, b) => set.has(`${a}|${b}`);
}

const never = sameFrom([]);

function scores(entries: [string, number][]): HeadScore[] {
  return entries.map(([key, probability]) => ({ key, probability }));
}

/** A verdict reduced to its kind and the keys of its groups, for comparison. */
function summary(verdict: HeadVerdict): { kind: string; keys: string[][] } {
  switch (verdict.kind) {
    case 'accept':
      return { kind: 'accept', keys: [verdict.group.keys] };
    case 'ambiguous':
    case 'escalate':
      return { kind: verdict.kind, keys: verdict.groups.map((g) => g.keys) };
    case 'refuse':
      return { kind: 'refuse', keys: verdict.best ? [verdict.best.keys] : [] };
  }
}

describe('groupScores', () => {
  it('groupScores - without replicas every capability is its own group, best first', () => {
    const groups = groupScores(
      scores([
        ['a', 0.2],
        ['b', 0.5],
        ['c', 0.1],
      ]),
      never,
    );
    assert.deepEqual(groups, [
      { keys: ['b'], probability: 0.5 },
      { keys: ['a'], probability: 0.2 },
      { keys: ['c'], probability: 0.1 },
    ]);
  });

  it('groupScores - replicas add up, and a group of replicas can overtake a single better capability', () => {
    const groups = groupScores(
      scores([
        ['x', 0.4],
        ['a1', 0.3],
        ['a2', 0.25],
      ]),
      sameFrom([['a1', 'a2']]),
    );
    assert.deepEqual(
      groups.map((g) => g.keys),
      [['a1', 'a2'], ['x']],
    );
    assert.ok(Math.abs(groups[0]!.probability - 0.55) < 1e-12);
    assert.equal(groups[1]!.probability, 0.4);
  });

  it('groupScores - a capability joins the first group whose leader it is the same as (sameness is not chained)', () => {
    // a ~ b and b ~ c, but not a ~ c: c does not join a's group through b.
    const groups = groupScores(
      scores([
        ['a', 0.4],
        ['b', 0.3],
        ['c', 0.2],
      ]),
      sameFrom([
        ['a', 'b'],
        ['b', 'c'],
      ]),
    );
    assert.deepEqual(
      groups.map((g) => g.keys),
      [['a', 'b'], ['c']],
    );
  });

  it('groupScores - empty input gives no group, and the input is not modified', () => {
    assert.deepEqual(groupScores([], never), []);
    const ranked = scores([
      ['a', 0.3],
      ['b', 0.3],
    ]);
    groupScores(ranked, sameFrom([['a', 'b']]));
    assert.deepEqual(
      ranked,
      scores([
        ['a', 0.3],
        ['b', 0.3],
      ]),
    );
  });
});

interface Case {
  name: string;
  ranked: [string, number][];
  replicas?: [string, string][];
  thresholds?: HeadThresholds;
  kind: HeadVerdict['kind'];
  keys: string[][];
}

const cases: Case[] = [
  { name: 'empty input', ranked: [], kind: 'refuse', keys: [] },
  {
    name: 'one clear winner',
    ranked: [
      ['a', 0.9],
      ['b', 0.05],
    ],
    kind: 'accept',
    keys: [['a']],
  },
  {
    name: 'p₁ exactly at accept',
    ranked: [
      ['a', 0.5],
      ['b', 0.1],
    ],
    kind: 'accept',
    keys: [['a']],
  },
  {
    name: 'p₁ just below accept',
    ranked: [
      ['a', 0.4999],
      ['b', 0.1],
    ],
    kind: 'escalate',
    keys: [['a'], ['b']],
  },
  {
    name: 'p₁ exactly at escalate',
    ranked: [
      ['a', 0.3],
      ['b', 0.1],
    ],
    kind: 'escalate',
    keys: [['a'], ['b']],
  },
  {
    name: 'p₁ just below escalate',
    ranked: [
      ['a', 0.2999],
      ['b', 0.1],
    ],
    kind: 'refuse',
    keys: [['a']],
  },
  { name: 'a single capability, low', ranked: [['a', 0.05]], kind: 'refuse', keys: [['a']] },
  {
    name: 'the best two close and together above accept',
    ranked: [
      ['a', 0.45],
      ['b', 0.4],
      ['c', 0.1],
    ],
    kind: 'ambiguous',
    keys: [['a'], ['b']],
  },
  {
    name: 'p₂ exactly at ambiguity·p₁, p₁ below accept',
    ranked: [
      ['a', 0.3125],
      ['b', 0.25],
    ],
    kind: 'ambiguous',
    keys: [['a'], ['b']],
  },
  {
    name: 'p₂ just below ambiguity·p₁',
    ranked: [
      ['a', 0.3125],
      ['b', 0.2499],
    ],
    kind: 'escalate',
    keys: [['a'], ['b']],
  },
  {
    name: 'close, but p₁ alone reaches accept: a confident answer is not turned into a question',
    ranked: [
      ['a', 0.5],
      ['b', 0.45],
    ],
    kind: 'accept',
    keys: [['a']],
  },
  {
    name: 'a tie above accept is still accepted',
    ranked: [
      ['a', 0.5],
      ['b', 0.5],
    ],
    kind: 'accept',
    keys: [['a']],
  },
  {
    name: 'close, both below escalate, but together above accept',
    ranked: [
      ['a', 0.28],
      ['b', 0.25],
    ],
    kind: 'ambiguous',
    keys: [['a'], ['b']],
  },
  {
    name: 'close but together below accept',
    ranked: [
      ['a', 0.2],
      ['b', 0.19],
    ],
    kind: 'refuse',
    keys: [['a']],
  },
  {
    name: 'close, together below accept, in the escalation band',
    ranked: [
      ['a', 0.33],
      ['b', 0.15],
      ['c', 0.14],
    ],
    kind: 'escalate',
    keys: [['a'], ['b'], ['c']],
  },
  {
    name: 'two capabilities that would be ambiguous…',
    ranked: [
      ['a1', 0.3],
      ['a2', 0.25],
      ['b', 0.2],
    ],
    kind: 'ambiguous',
    keys: [['a1'], ['a2']],
  },
  {
    name: '…are accepted as one group when they are replicas',
    ranked: [
      ['a1', 0.3],
      ['a2', 0.25],
      ['b', 0.2],
    ],
    replicas: [['a1', 'a2']],
    kind: 'accept',
    keys: [['a1', 'a2']],
  },
  {
    name: 'three replicas, each below escalate, add up to accept',
    ranked: [
      ['a1', 0.2],
      ['a2', 0.18],
      ['a3', 0.15],
      ['b', 0.05],
    ],
    replicas: [
      ['a1', 'a2'],
      ['a1', 'a3'],
    ],
    kind: 'accept',
    keys: [['a1', 'a2', 'a3']],
  },
  {
    name: 'replicas that overtake the best single capability',
    ranked: [
      ['x', 0.35],
      ['a1', 0.3],
      ['a2', 0.25],
    ],
    replicas: [['a1', 'a2']],
    kind: 'accept',
    keys: [['a1', 'a2']],
  },
  {
    name: 'two services, each offered twice, close',
    ranked: [
      ['a1', 0.28],
      ['b1', 0.26],
      ['a2', 0.18],
      ['b2', 0.15],
    ],
    replicas: [
      ['a1', 'a2'],
      ['b1', 'b2'],
    ],
    kind: 'ambiguous',
    keys: [
      ['a1', 'a2'],
      ['b1', 'b2'],
    ],
  },
  {
    name: 'the escalation band offers at most five groups',
    ranked: [
      ['a', 0.35],
      ['b', 0.12],
      ['c', 0.11],
      ['d', 0.1],
      ['e', 0.09],
      ['f', 0.08],
      ['g', 0.07],
    ],
    kind: 'escalate',
    keys: [['a'], ['b'], ['c'], ['d'], ['e']],
  },
  {
    name: 'thresholds that never refuse (the routing evaluation) accept even a tie',
    ranked: [
      ['a', 0.01],
      ['b', 0.01],
    ],
    thresholds: {
      sameLanguage: { accept: 0, escalate: 0 },
      crossLingual: { accept: 0, escalate: 0 },
      ambiguity: Number.POSITIVE_INFINITY,
    },
    kind: 'accept',
    keys: [['a']],
  },
  {
    name: 'stricter thresholds turn an accept into an escalation',
    ranked: [
      ['a', 0.7],
      ['b', 0.2],
    ],
    thresholds: {
      sameLanguage: { accept: 0.9, escalate: 0.6 },
      crossLingual: { accept: 0.9, escalate: 0.6 },
      ambiguity: 0.8,
    },
    kind: 'escalate',
    keys: [['a'], ['b']],
  },
];

describe('decideByHead', () => {
  for (const c of cases) {
    it(`decideByHead - ${c.name} → ${c.kind}`, () => {
      const groups = groupScores(scores(c.ranked), sameFrom(c.replicas ?? []));
      const verdict = decideByHead(groups, c.thresholds ?? THRESHOLDS);
      assert.deepEqual(summary(verdict), { kind: c.kind, keys: c.keys });
    });
  }

  it('decideByHead - the verdict carries the groups with their summed probabilities', () => {
    const groups: ScoredGroup[] = [
      { keys: ['a1', 'a2'], probability: 0.7 },
      { keys: ['b'], probability: 0.2 },
    ];
    assert.deepEqual(decideByHead(groups, THRESHOLDS), { kind: 'accept', group: groups[0] });
    const low: ScoredGroup[] = [{ keys: ['a'], probability: 0.1 }];
    assert.deepEqual(decideByHead(low, THRESHOLDS), { kind: 'refuse', best: low[0] });
    assert.deepEqual(decideByHead([], THRESHOLDS), { kind: 'refuse' });
  });
});

describe('decideByHead with crossed card borders', () => {
  const clause = 'cancel an invoice already issued';
  it("decideByHead - a request the best capability's card excludes is refused, naming the clause, however probable", () => {
    const groups: ScoredGroup[] = [
      { keys: ['a'], probability: 0.8 },
      { keys: ['b'], probability: 0.15 },
    ];
    assert.deepEqual(decideByHead(groups, THRESHOLDS, new Map([['a', { clause, learned: false }]])), {
      kind: 'refuse',
      best: groups[0],
      crossed: { key: 'a', clause },
    });
    const strongSecond: ScoredGroup[] = [
      { keys: ['a'], probability: 0.62 },
      { keys: ['b'], probability: 0.55 },
    ];
    assert.equal(decideByHead(strongSecond, THRESHOLDS, new Map([['a', { clause, learned: false }]])).kind, 'refuse');
  });

  it('decideByHead - a lesson (a request reported misrouted) only leaves its capability out: the next one may take it', () => {
    const groups: ScoredGroup[] = [
      { keys: ['a'], probability: 0.62 },
      { keys: ['b'], probability: 0.55 },
    ];
    assert.deepEqual(
      decideByHead(groups, THRESHOLDS, new Map([['a', { clause: 'a request reported misrouted', learned: true }]])),
      { kind: 'accept', group: groups[1] },
    );
    const weak: ScoredGroup[] = [
      { keys: ['a'], probability: 0.62 },
      { keys: ['b'], probability: 0.1 },
    ];
    assert.deepEqual(
      decideByHead(weak, THRESHOLDS, new Map([['a', { clause: 'a request reported misrouted', learned: true }]])),
      { kind: 'refuse', best: weak[1] },
    );
  });

  it('decideByHead - a crossed runner-up is left out: it cannot make the best ambiguous', () => {
    const close: ScoredGroup[] = [
      { keys: ['a'], probability: 0.45 },
      { keys: ['b'], probability: 0.4 },
    ];
    assert.equal(decideByHead(close, THRESHOLDS).kind, 'ambiguous');
    assert.deepEqual(decideByHead(close, THRESHOLDS, new Map([['b', { clause, learned: false }]])), {
      kind: 'escalate',
      groups: [close[0]],
    });
  });
});

describe('head decision across languages', () => {
  const thresholds: HeadThresholds = {
    sameLanguage: { accept: 0.45, escalate: 0.3 },
    crossLingual: { accept: 0.3, escalate: 0.2 },
    ambiguity: 0.8,
  };
  it('head decide - a cross-lingual group is held to the cross-lingual operating point; a same-language one is not', () => {
    assert.equal(decideByHead([{ keys: ['a'], probability: 0.35, crossLingual: true }], thresholds).kind, 'accept');
    assert.equal(decideByHead([{ keys: ['a'], probability: 0.35 }], thresholds).kind, 'escalate');
    assert.equal(decideByHead([{ keys: ['a'], probability: 0.19, crossLingual: true }], thresholds).kind, 'refuse');
  });

  it('head decide - groupScores marks a group cross-lingual by its best capability', () => {
    const groups = groupScores(
      [
        { key: 'zh/a', probability: 0.5 },
        { key: 'en/b', probability: 0.2 },
      ],
      () => false,
      new Set(['zh/a']),
    );
    assert.deepEqual(
      groups.map((g) => g.crossLingual === true),
      [true, false],
    );
  });
});

describe('resolveThresholds', () => {
  const fitted = (accept: number, escalate: number) => ({
    accept,
    escalate,
    samples: { right: 50, wrong: 5, out_of_scope: 50, excluded: 5 },
    right_accepted: 0.9,
    card_right_accepted: 0.9,
    out_of_scope_accepted: 0.04,
    excluded_accepted: 0.5,
    pooled: false,
    fitted_on: 'card_texts' as const,
  });
  const calibration: Calibration = {
    target: 0.05,
    keep_right: 0.95,
    same_language: fitted(0.25, 0.1),
    cross_lingual: fitted(0.12, 0.05),
  };

  it('resolveThresholds - the fitted operating points decide; without an LLM there is no escalation band', () => {
    const t = resolveThresholds(calibration, DEFAULT_HEAD_SETTINGS, false);
    assert.deepEqual(
      [t.sameLanguage, t.crossLingual, t.source],
      [{ accept: 0.25, escalate: 0.25 }, { accept: 0.12, escalate: 0.12 }, 'fitted'],
    );
    assert.equal(decideByHead([{ keys: ['a'], probability: 0.2 }], t).kind, 'refuse');
    assert.equal(decideByHead([{ keys: ['a'], probability: 0.26 }], t).kind, 'accept');
  });

  it('resolveThresholds - with an LLM the band opens at the fitted escalate threshold', () => {
    const t = resolveThresholds(calibration, DEFAULT_HEAD_SETTINGS, true);
    assert.deepEqual(
      [t.sameLanguage, t.crossLingual],
      [
        { accept: 0.25, escalate: 0.1 },
        { accept: 0.12, escalate: 0.05 },
      ],
    );
    assert.equal(decideByHead([{ keys: ['a'], probability: 0.2 }], t).kind, 'escalate');
  });

  it('resolveThresholds - explicit thresholds override the fitted ones (cross-lingual ones divided by the factor)', () => {
    const t = resolveThresholds(calibration, { ...DEFAULT_HEAD_SETTINGS, accept: 0.6, escalate: 0.3 }, true);
    assert.deepEqual(
      [t.sameLanguage, t.crossLingual, t.source],
      [
        { accept: 0.6, escalate: 0.3 },
        { accept: 0.6 / CROSS_LINGUAL_FACTOR, escalate: 0.3 / CROSS_LINGUAL_FACTOR },
        'configured',
      ],
    );
  });

  it('resolveThresholds - without a calibration, Router 2.0’s fixed thresholds', () => {
    const t = resolveThresholds(undefined, DEFAULT_HEAD_SETTINGS, true);
    assert.deepEqual([t.sameLanguage, t.source], [{ accept: 0.3, escalate: 0.2 }, 'uncalibrated']);
  });
});
