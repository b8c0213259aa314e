/**
 * The layout stays a stack of rooms: no import circle between files, and none between top-level folders (a folder
 * that imports another is above it, and nothing below imports back up). Type-only imports count: they tie the
 * code together as much as value imports do. Tests are left out (they may reach anywhere).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = resolve(__dirname, '../..');
const SKIPPED = new Set(['node_modules', 'dist', 'test', '.git']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (SKIPPED.has(name) || name.startsWith('.')) return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Relative imports of a file, type-only ones included, resolved to files. */
function importsOf(file: string, source: string): string[] {
  const specifiers = [
    ...source.matchAll(/(?:from|import|require(?:\.resolve)?)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g),
  ].map((m) => m[1]!);
  return specifiers.flatMap((specifier) => {
    const base = resolve(dirname(file), specifier);
    const found = [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
    return found ? [found] : [];
  });
}

function graph(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const file of sourceFiles(ROOT).filter((f) => relative(ROOT, f).includes(sep))) {
    edges.set(relative(ROOT, file), new Set(importsOf(file, readFileSync(file, 'utf8')).map((f) => relative(ROOT, f))));
  }
  return edges;
}

/** Every strongly connected group of more than one node (Tarjan): each is an import circle. */
function circles(edges: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1) found.push(group.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

function folderGraph(files: Map<string, Set<string>>): Map<string, Set<string>> {
  const top = (file: string) => file.split(sep)[0]!;
  const folders = new Map<string, Set<string>>();
  for (const [file, imports] of files) {
    const from = top(file);
    const targets = folders.get(from) ?? new Set<string>();
    for (const target of imports) if (top(target) !== from) targets.add(top(target));
    folders.set(from, targets);
  }
  return folders;
}

describe('import layers', () => {
  it('import layers - no two files import each other, directly or round about', () => {
    const files = graph();
    assert.ok(files.size > 100, `read ${files.size} source files`);
    assert.deepEqual(circles(files), []);
  });

  it('import layers - top-level folders form a stack: none imports one that imports it back', () => {
    const folders = folderGraph(graph());
    assert.ok(folders.has('rules') && folders.has('workflows'), 'read the folders');
    assert.deepEqual(circles(folders), []);
  });

  it('import layers - the circle finder finds a circle of three and ignores a chain', () => {
    const edges = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a', 'd'])],
      ['d', new Set<string>()],
    ]);
    assert.deepEqual(circles(edges), [['a', 'b', 'c']]);
  });
});
