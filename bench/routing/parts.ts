/**
 * The parts bench:routing reports for each set (docs/routing.md, "Tuning and locked parts"):
 * - zh-routing: `tuning` = dev's tuning half + tuning-crosslingual.jsonl; `locked` = dev's locked half +
 *   locked-holdout.jsonl + params-holdout.jsonl (less any text the tuning part holds); `fresh` = fresh.jsonl,
 *   requests written after the router's rules were last changed (a second view of unseen data, never tuned on).
 * - clinc150: `tuning` and `locked` = the halves of val + oos_val; unless --val, also `test` (test + oos_test, the
 *   fixed sample, or all with --full), as before.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lockedSplit } from '../lib/locked-split';
import { DATA_DIR, type LabelledRequest, type RoutingDataset } from '../lib/routing-data';

/** A request and the file it came from (so the locked part can be read by source too). */
export interface PartRequest extends LabelledRequest {
  source: string;
}

export type Parts = Record<string, PartRequest[]>;

function readJsonl(path: string): LabelledRequest[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as LabelledRequest);
}

const from = (source: string, rows: readonly LabelledRequest[]): PartRequest[] => rows.map((r) => ({ ...r, source }));

export function zhRoutingParts(set: RoutingDataset): Parts {
  const dev = lockedSplit(from('dev', set.fit));
  const dir = join(DATA_DIR, 'zh-routing');
  const extra = [
    ...from('locked-holdout', readJsonl(join(dir, 'locked-holdout.jsonl'))),
    ...from('params-holdout', readJsonl(join(dir, 'params-holdout.jsonl'))),
  ];
  // params-holdout repeats two dev texts; where dev's copy is in the tuning part, it is not locked.
  const tuning = [...dev.tuning, ...from('tuning-crosslingual', readJsonl(join(dir, 'tuning-crosslingual.jsonl')))];
  const tuned = new Set(tuning.map((r) => r.text));
  return {
    tuning,
    locked: [...dev.locked, ...extra.filter((r) => !tuned.has(r.text))],
    fresh: from('fresh', readJsonl(join(dir, 'fresh.jsonl'))),
  };
}

export function clincParts(set: RoutingDataset, options: { val: boolean; full: boolean }): Parts {
  const val = lockedSplit(from('val', set.fit));
  if (options.val) return { tuning: val.tuning, locked: val.locked };
  return { tuning: val.tuning, locked: val.locked, test: from('test', testSample(set.test ?? [], options.full)) };
}

/** Every 9th in-scope test request and every 4th out-of-scope one (500 + 250), or all of them. */
function testSample(test: readonly LabelledRequest[], full: boolean): LabelledRequest[] {
  if (full) return [...test];
  return [
    ...test.filter((r) => r.expected !== null).filter((_, i) => i % 9 === 0),
    ...test.filter((r) => r.expected === null).filter((_, i) => i % 4 === 0),
  ];
}

/** Each part cut to `limit` requests (--limit), for quick runs. */
export function limitParts(parts: Parts, limit?: number): Parts {
  if (!limit) return parts;
  return Object.fromEntries(Object.entries(parts).map(([name, rows]) => [name, rows.slice(0, limit)]));
}
