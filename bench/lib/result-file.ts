/**
 * A benchmark's JSON result, stamped with the code it measured: the commit checked out and whether the work tree
 * had uncommitted changes. A figure without them cannot be tied to a design.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

export interface Provenance {
  /** `git rev-parse HEAD`, or null outside a git work tree. */
  commit: string | null;
  /** `git status --porcelain` printed anything, or null outside a git work tree. */
  dirty: boolean | null;
}

export function provenance(cwd: string = ROOT): Provenance {
  try {
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return { commit: git('rev-parse', 'HEAD').trim(), dirty: git('status', '--porcelain').trim() !== '' };
  } catch {
    return { commit: null, dirty: null };
  }
}

/** Writes `<dir>/<name>.json` with the provenance first, then `content`; returns its path. */
export function writeResultFile(dir: string, name: string, content: object): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.json`);
  writeFileSync(file, `${JSON.stringify({ ...provenance(), ...content }, null, 2)}\n`);
  return file;
}
