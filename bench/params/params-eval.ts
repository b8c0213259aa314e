/**
 * Scores parameter extraction against labelled parameters, given the right capability (oracle route).
 *
 * The rule for fields the labels do not have: the labels hold only what the text states, and never a value that
 * depends on the clock ("明天", "next Friday"), since no labeller knows when a request is sent. So an extracted
 * field the labels lack counts as wrong, unless its value changes with `now` (found by extracting twice with two
 * clocks): such a field is not scored at all. Everything else is strict: a labelled field is right only when the
 * value is deeply equal (objects key-order-free, arrays in order), and a request is exact only when every labelled
 * field is right and no scored extra field was output.
 */
import type { LabelledRequest } from '../lib/routing-data';

export type Extract = (
  text: string,
  schema: unknown,
  now: Date,
) => Promise<Record<string, unknown>> | Record<string, unknown>;

export function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return (
      ka.length === kb.length &&
      ka.every((k) => k in b && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
  }
  return a === b;
}

export interface RowScore {
  text: string;
  capability: string;
  exact: boolean;
  /** Labelled fields and whether each came out right. */
  right: string[];
  wrong: string[];
  missed: string[];
  /** Extracted, not labelled, not clock-dependent: counted wrong. */
  extra: string[];
  /** Extracted, not labelled, changes with the clock: not scored. */
  unscored: string[];
  got: Record<string, unknown>;
  want: Record<string, unknown>;
}

export function scoreRow(
  want: Record<string, unknown>,
  got: Record<string, unknown>,
  gotLater: Record<string, unknown>,
): Omit<RowScore, 'text' | 'capability'> {
  const right: string[] = [];
  const wrong: string[] = [];
  const missed: string[] = [];
  const extra: string[] = [];
  const unscored: string[] = [];
  for (const [k, v] of Object.entries(want)) {
    if (!(k in got)) missed.push(k);
    else if (sameValue(got[k], v)) right.push(k);
    else wrong.push(k);
  }
  for (const k of Object.keys(got)) {
    if (k in want) continue;
    if (sameValue(got[k], gotLater[k])) extra.push(k);
    else unscored.push(k);
  }
  return {
    exact: wrong.length === 0 && missed.length === 0 && extra.length === 0,
    right,
    wrong,
    missed,
    extra,
    unscored,
    got,
    want,
  };
}

/** A second clock, far enough from the first that every relative date or time resolves differently. */
export function laterClock(now: Date): Date {
  return new Date(now.getTime() + (40 * 24 + 7) * 3_600_000 + 13 * 60_000);
}

export async function scoreAll(rows: LabelledRequest[], schemas: Map<string, unknown>, extract: Extract, now: Date) {
  const labelled = rows.filter(
    (r) => r.expected && r.params && Object.keys(r.params).length > 0 && schemas.has(r.expected),
  );
  const scores: RowScore[] = [];
  for (const r of labelled) {
    const schema = schemas.get(r.expected!);
    const got = await extract(r.text, schema, now);
    const gotLater = await extract(r.text, schema, laterClock(now));
    scores.push({ text: r.text, capability: r.expected!, ...scoreRow(r.params!, got, gotLater) });
  }
  const count = (f: (s: RowScore) => number) => scores.reduce((n, s) => n + f(s), 0);
  const labelledFields = count((s) => Object.keys(s.want).length);
  const right = count((s) => s.right.length);
  const output = count((s) => s.right.length + s.wrong.length + s.extra.length);
  return {
    summary: {
      requests_with_params: scores.length,
      exact_match: round(count((s) => (s.exact ? 1 : 0)) / Math.max(1, scores.length)),
      field_recall: round(right / Math.max(1, labelledFields)),
      field_precision: round(right / Math.max(1, output)),
      labelled_fields: labelledFields,
      right_fields: right,
      wrong_fields: count((s) => s.wrong.length),
      missed_fields: count((s) => s.missed.length),
      extra_fields: count((s) => s.extra.length),
      unscored_clock_dependent_fields: count((s) => s.unscored.length),
    },
    rows: scores,
  };
}

function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
