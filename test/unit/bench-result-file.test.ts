/** Benchmark results record the commit they ran on and whether the work tree was dirty. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { provenance, writeResultFile } from '../../bench/lib/result-file';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** A throw-away repository with one commit. */
function scratchRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-provenance-'));
  git(dir, 'init', '-q');
  writeFileSync(join(dir, 'a.txt'), 'a\n');
  git(dir, 'add', 'a.txt');
  git(dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'one');
  return dir;
}

describe('bench result file', () => {
  it('provenance - the commit checked out, clean until a file changes', () => {
    const repo = scratchRepo();
    try {
      assert.deepEqual(provenance(repo), { commit: git(repo, 'rev-parse', 'HEAD'), dirty: false });
      writeFileSync(join(repo, 'a.txt'), 'changed\n');
      assert.deepEqual(provenance(repo), { commit: git(repo, 'rev-parse', 'HEAD'), dirty: true });
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });

  it('provenance - null outside a git work tree', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-no-git-'));
    try {
      assert.deepEqual(provenance(dir), { commit: null, dirty: null });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("writeResultFile - the JSON starts with this repository's commit and dirty flag, then the content", () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-results-'));
    try {
      const file = writeResultFile(dir, 'run', { benchmark: 'x', figure: 42 });
      assert.equal(file, join(dir, 'run.json'));
      const written = JSON.parse(readFileSync(file, 'utf8'));
      assert.deepEqual(Object.keys(written), ['commit', 'dirty', 'benchmark', 'figure']);
      assert.match(written.commit, /^[0-9a-f]{40}$/);
      assert.equal(typeof written.dirty, 'boolean');
      assert.equal(written.figure, 42);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('bench/results - every result file names the commit it measured', () => {
    const dir = resolve(__dirname, '../../bench/results');
    const files = readdirSync(dir).filter((name) => name.endsWith('.json'));
    assert.ok(files.length > 0);
    for (const name of files) {
      const { commit } = JSON.parse(readFileSync(join(dir, name), 'utf8')) as { commit?: unknown };
      assert.match(String(commit), /^[0-9a-f]{7,40}$/, `${name} has no commit`);
    }
  });
});
