/**
 * The locked split (docs/routing.md, "Tuning and locked parts"): a labelled set cut once into a tuning part, the
 * only one a change may be tuned on, and a locked part, which decides whether the change is kept.
 *
 * The rule: within each `kind`, order the requests by SHA-256 of `SPLIT_SALT + "\n" + text` (hex, ties by text);
 * the first half (rounded down) is the tuning part, the rest the locked part. Stratified by kind, so both parts keep
 * the set's proportions; a function of the texts alone, so anyone can recompute it.
 */
import { createHash } from 'node:crypto';

export const SPLIT_SALT = 'agent-reach/router-4/locked-split/v1';

export interface Split<T> {
  tuning: T[];
  locked: T[];
}

function splitKey(text: string): string {
  return createHash('sha256').update(`${SPLIT_SALT}\n${text}`).digest('hex');
}

function byKey(a: { key: string; text: string }, b: { key: string; text: string }): number {
  if (a.key !== b.key) return a.key < b.key ? -1 : 1;
  return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
}

/** Applies the rule; each part keeps the input's order. */
export function lockedSplit<T extends { text: string; kind: string }>(rows: readonly T[]): Split<T> {
  const tuningRows = new Set<T>();
  for (const kind of new Set(rows.map((r) => r.kind))) {
    const ordered = rows
      .filter((r) => r.kind === kind)
      .map((row) => ({ row, text: row.text, key: splitKey(row.text) }))
      .sort(byKey);
    for (const { row } of ordered.slice(0, Math.floor(ordered.length / 2))) tuningRows.add(row);
  }
  return { tuning: rows.filter((r) => tuningRows.has(r)), locked: rows.filter((r) => !tuningRows.has(r)) };
}
