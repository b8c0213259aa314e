/** The locked split (bench/lib/locked-split.ts): deterministic, stratified by kind, disjoint and covering. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { lockedSplit } from '../../bench/lib/locked-split';
import { loadClinc150, loadZhRouting } from '../../bench/lib/routing-data';
import { zhRoutingParts } from '../../bench/routing/parts';

/** The tuning part's texts in order, hashed: pins the assignment without storing it. */
function fingerprint(rows: readonly { text: string }[]): string {
  return createHash('sha256')
    .update(rows.map((r) => r.text).join('\n'))
    .digest('hex')
    .slice(0, 16);
}

function countByKind(rows: readonly { kind: string }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of rows) out[r.kind] = (out[r.kind] ?? 0) + 1;
  return out;
}

describe('locked split', () => {
  const zh = loadZhRouting().fit;
  const clinc = loadClinc150().fit;

  it('locked split - the same rows give the same parts, whatever their order', () => {
    const once = lockedSplit(zh);
    const reversed = lockedSplit([...zh].reverse());
    assert.deepEqual(new Set(reversed.tuning), new Set(once.tuning));
    assert.deepEqual(new Set(reversed.locked), new Set(once.locked));
  });

  it('locked split - every request in exactly one part', () => {
    for (const rows of [zh, clinc]) {
      const { tuning, locked } = lockedSplit(rows);
      assert.equal(tuning.length + locked.length, rows.length);
      const inTuning = new Set(tuning);
      assert.ok(locked.every((r) => !inTuning.has(r)));
      assert.deepEqual(new Set([...tuning, ...locked]), new Set(rows));
    }
  });

  it('locked split - each kind is halved (the locked part takes an odd one)', () => {
    for (const rows of [zh, clinc]) {
      const { tuning, locked } = lockedSplit(rows);
      const all = countByKind(rows);
      const tuned = countByKind(tuning);
      const held = countByKind(locked);
      for (const [kind, n] of Object.entries(all)) {
        assert.equal(tuned[kind], Math.floor(n / 2), kind);
        assert.equal(held[kind], Math.ceil(n / 2), kind);
      }
    }
  });

  it('locked split - the parts as first cut (a change to dev.jsonl, to CLINC150 val or to the rule shows here)', () => {
    assert.deepEqual(countByKind(lockedSplit(zh).tuning), {
      in_scope: 109,
      cross_lingual: 20,
      near_miss: 20,
      out_of_scope: 20,
    });
    assert.equal(fingerprint(lockedSplit(zh).tuning), 'e44a8fee021dece6');
    assert.equal(fingerprint(lockedSplit(clinc).tuning), 'e8be5cfbdf31b3d0');
  });

  it('locked split - the zh tuning part adds the cross-lingual requests; the locked part holds the new requests and params-holdout, less the texts the tuning part holds; the fresh part is apart from both', () => {
    const parts = zhRoutingParts(loadZhRouting());
    const sources = countByKind(parts.locked!.map((r) => ({ kind: r.source })));
    assert.deepEqual(sources, { dev: 169, 'locked-holdout': 168, 'params-holdout': 117 });
    const tuningSources = countByKind(parts.tuning!.map((r) => ({ kind: r.source })));
    assert.deepEqual(tuningSources, { dev: 169, 'tuning-crosslingual': 110 });
    const tuningTexts = new Set(parts.tuning!.map((r) => r.text));
    assert.ok(parts.locked!.every((r) => !tuningTexts.has(r.text)));
    const fresh = countByKind(parts.fresh!);
    assert.deepEqual(fresh, { in_scope: 36, cross_lingual: 33, near_miss: 20, out_of_scope: 14 });
    const seen = new Set([...tuningTexts, ...parts.locked!.map((r) => r.text)]);
    assert.ok(
      parts.fresh!.every((r) => !seen.has(r.text)),
      'no fresh request is in another part',
    );
  });
});
