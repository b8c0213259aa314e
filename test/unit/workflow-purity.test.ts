/**
 * Workflows must be deterministic: no Node built-ins or I/O libraries anywhere in what `workflows/` imports
 * (type-only imports are erased and allowed).
 */
import assert from 'node:assert/strict';
import { builtinModules } from 'node:module';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = resolve(__dirname, '../..');
const ALLOWED_PACKAGES = new Set([
  '@temporalio/workflow',
  '@temporalio/common',
  // Temporal's workflow-side tracing interceptors, written for the workflow sandbox (workflows/otel-interceptors.ts).
  '@temporalio/interceptors-opentelemetry/lib/workflow',
]);
const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/** Value imports (not `import type`) and re-exports of one file. */
function valueImports(source: string): string[] {
  const specifiers: string[] = [];
  const pattern =
    /^\s*(import|export)\s+(?!type\b)[^'";]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)/gm;
  for (const match of source.matchAll(pattern)) specifiers.push((match[2] ?? match[3] ?? match[4])!);
  return specifiers;
}

function resolveLocal(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) if (existsSync(candidate)) return candidate;
  throw new Error(`cannot resolve ${specifier} from ${from}`);
}

/** Every file reachable from `workflows/` through value imports, with the packages each one imports. */
function reachable(): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const queue = readdirSync(join(ROOT, 'workflows'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(ROOT, 'workflows', f));
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    const packages: string[] = [];
    for (const specifier of valueImports(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('.')) queue.push(resolveLocal(file, specifier));
      else packages.push(specifier);
    }
    seen.set(file, packages);
  }
  return seen;
}

describe('workflow purity', () => {
  it('workflow purity - workflows reach only the workflow SDK, no Node built-ins or I/O packages', () => {
    const files = reachable();
    assert.ok(files.size >= 2, 'found the workflow files');
    for (const [file, packages] of files) {
      for (const pkg of packages) {
        assert.ok(!BUILTINS.has(pkg), `${relative(ROOT, file)} imports the Node built-in ${pkg}`);
        assert.ok(ALLOWED_PACKAGES.has(pkg), `${relative(ROOT, file)} imports ${pkg}, which workflows may not use`);
      }
    }
  });

  it('workflow purity - the scanner sees value imports and skips type-only ones', () => {
    const source =
      "import type { A } from 'node:fs';\nimport { b } from 'mongoose';\nimport './side';\nexport { c } from '../d';";
    assert.deepEqual(valueImports(source), ['mongoose', './side', '../d']);
  });
});
