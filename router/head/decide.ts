/**
 * What the router does with a head's probabilities. Capabilities that are the same service offered by several
 * agents (near-identical cards) share their probability as one group, so replicas never split a clear answer.
 * Then, with p₁ and p₂ the best two groups' probabilities, against the operating point of the best group's
 * language direction (the request in its card's language, or cross-lingual: those score lower for the same fit):
 *   - p₁ ≥ accept → route to the best group;
 *   - p₁ < accept, but the two close (p₂ ≥ ambiguity·p₁) and together ≥ accept → ambiguous: ask which, naming both;
 *   - escalate ≤ p₁ < accept → the escalation band, where an LLM decides (without one, escalate = accept: no band);
 *   - below → refuse.
 * A close runner-up never turns a confident answer into a question: the accept threshold is calibrated on the
 * best group's probability alone, and the question replaces a refusal, not a routed answer (CLINC150 val: asking
 * whenever p₂ ≥ 0.8·p₁ refused 60 requests whose first choice was right, 1.1 points of in-scope, for none of its
 * out-of-scope requests).
 * A request the best group's card excludes (card-borders.ts) is refused first.
 * The operating points are fitted per catalogue when its head trains (calibration.ts), unless set explicitly.
 */
import type { Calibration } from './calibration';
import type { Crossing, HeadScore } from './head';

export interface OperatingPoint {
  accept: number;
  escalate: number;
}

export interface HeadThresholds {
  /** For a request in the language of the best group's card. */
  sameLanguage: OperatingPoint;
  /** For a request in the other language than the best group's card. */
  crossLingual: OperatingPoint;
  /** p₂/p₁ from which the best two count as too close to pick one. */
  ambiguity: number;
}

export interface ScoredGroup {
  keys: string[];
  probability: number;
  /** The group's card is written in the other language than the request. */
  crossLingual?: boolean;
}

export type HeadVerdict =
  | { kind: 'accept'; group: ScoredGroup }
  | { kind: 'ambiguous'; groups: [ScoredGroup, ScoredGroup] }
  | { kind: 'escalate'; groups: ScoredGroup[] }
  | { kind: 'refuse'; best?: ScoredGroup; crossed?: CrossedBorder };

/** The best capability's card excludes the request: which, and the clause (card-borders.ts). */
export interface CrossedBorder {
  key: string;
  clause: string;
  /** The clause's word the request names, when that put it across (fence-words.ts). */
  word?: string;
}

/** Groups of the same service, best first: each capability joins the first better one it is the same as. */
export function groupScores(
  ranked: readonly HeadScore[],
  same: (a: string, b: string) => boolean,
  crossLingual: ReadonlySet<string> = new Set(),
): ScoredGroup[] {
  const groups: ScoredGroup[] = [];
  for (const { key, probability } of ranked) {
    const group = groups.find((g) => same(g.keys[0]!, key));
    if (group) {
      group.keys.push(key);
      group.probability += probability;
    } else groups.push({ keys: [key], probability, ...(crossLingual.has(key) ? { crossLingual: true } : {}) });
  }
  return groups.sort((a, b) => b.probability - a.probability);
}

/** The operating point a group is judged by: that of its language direction. */
export function operatingPointOf(group: ScoredGroup, thresholds: HeadThresholds): OperatingPoint {
  return group.crossLingual ? thresholds.crossLingual : thresholds.sameLanguage;
}

/** Groups offered to the LLM in the escalation band. */
const ESCALATION_SHORTLIST = 5;

/**
 * `crossed`: capabilities whose card excludes the request (card-borders.ts). When the best group's card's own words
 * exclude it, the request is refused, naming the clause: what the nearest capability says it does not do, no
 * other does better (on zh/en dev, taking the runner-up instead let most such near misses through). A group crossed
 * by a lesson (a request its agent reported misrouted), or a crossed runner-up, is only left out: the next one
 * may take the request.
 */
export function decideByHead(
  ranked: readonly ScoredGroup[],
  thresholds: HeadThresholds,
  crossed: ReadonlyMap<string, Crossing> = new Map(),
): HeadVerdict {
  const top = ranked[0];
  const border = top && crossed.get(top.keys[0]!);
  if (top && border && !border.learned)
    return {
      kind: 'refuse',
      best: top,
      crossed: { key: top.keys[0]!, clause: border.clause, ...(border.word ? { word: border.word } : {}) },
    };
  const groups = ranked.filter((g) => !crossed.has(g.keys[0]!));
  const [first, second] = groups;
  if (!first) return { kind: 'refuse' };
  const { accept, escalate } = operatingPointOf(first, thresholds);
  const p1 = first.probability;
  const p2 = second?.probability ?? 0;
  if (p1 >= accept) return { kind: 'accept', group: first };
  if (second && p2 >= thresholds.ambiguity * p1 && p1 + p2 >= accept)
    return { kind: 'ambiguous', groups: [first, second] };
  if (p1 >= escalate) return { kind: 'escalate', groups: groups.slice(0, ESCALATION_SHORTLIST) };
  return { kind: 'refuse', best: first };
}

/** Thresholds set by configuration (ROUTER_HEAD_ACCEPT, ROUTER_HEAD_ESCALATE): they override the fitted ones. */
export interface HeadSettings {
  accept?: number;
  escalate?: number;
  ambiguity: number;
}

export const DEFAULT_HEAD_SETTINGS: HeadSettings = { ambiguity: 0.8 };

/**
 * Without a calibration (none fitted) and for explicit thresholds: a cross-lingual request is held to the
 * thresholds divided by this (fitted on CLINC150 val and zh dev for Router 2.0).
 */
export const CROSS_LINGUAL_FACTOR = 1.5;
/** Thresholds when no calibration was fitted (Router 2.0's fixed ones). */
const UNCALIBRATED: OperatingPoint = { accept: 0.3, escalate: 0.2 };

/**
 * The thresholds a decision uses: the catalogue's calibration, with explicit settings taking over; without an LLM
 * there is no escalation band (escalate = accept), so a request is decided by the calibrated score alone.
 */
export type ThresholdSource = 'fitted' | 'configured' | 'uncalibrated';

export function resolveThresholds(
  calibration: Calibration | undefined,
  settings: HeadSettings,
  withLlm: boolean,
): HeadThresholds & { source: ThresholdSource } {
  const fitted = (direction: 'same_language' | 'cross_lingual', factor: number): OperatingPoint => {
    const base = calibration
      ? calibration[direction]
      : { accept: UNCALIBRATED.accept / factor, escalate: UNCALIBRATED.escalate / factor };
    const accept = settings.accept === undefined ? base.accept : settings.accept / factor;
    const escalate = settings.escalate === undefined ? base.escalate : settings.escalate / factor;
    return { accept, escalate: withLlm ? Math.min(escalate, accept) : accept };
  };
  return {
    sameLanguage: fitted('same_language', 1),
    crossLingual: fitted('cross_lingual', CROSS_LINGUAL_FACTOR),
    ambiguity: settings.ambiguity,
    source: settings.accept !== undefined ? 'configured' : calibration ? 'fitted' : 'uncalibrated',
  };
}
