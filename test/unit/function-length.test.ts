/**
 * Functions fit a screen: no function, method, accessor or arrow in the source (tests left out) spans more than
 * MAX_LINES lines, measured from its first token to its last with the TypeScript compiler's parser.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

const ROOT = resolve(__dirname, '../..');
const SKIPPED = new Set(['node_modules', 'dist', 'test', '.git']);
const MAX_LINES = 80;

/**
 * Long functions not shortened yet, with their length today: each may only shrink (the test fails if one grows, and
 * names the entry to drop once it fits). Keyed `file:name`.
 */
const ALLOWED = new Map<string, number>([]);

interface Measured {
  key: string;
  line: number;
  lines: number;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (SKIPPED.has(name) || name.startsWith('.')) return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

function propertyName(name: ts.PropertyName | ts.BindingName, file: ts.SourceFile): string {
  return ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isPrivateIdentifier(name)
    ? name.text
    : name.getText(file);
}

/** A readable name: the declared one, else what the function is assigned to or passed to. */
function nameOf(node: ts.FunctionLikeDeclaration, file: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return `${ownerOf(node, file)}.constructor`;
  if (node.name)
    return ts.isClassLike(node.parent)
      ? `${ownerOf(node, file)}.${propertyName(node.name, file)}`
      : propertyName(node.name, file);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return propertyName(parent.name, file);
  if (ts.isCallExpression(parent) || ts.isNewExpression(parent))
    return `${parent.expression.getText(file)}(…) callback`;
  return `anonymous function`;
}

function ownerOf(node: ts.Node, file: ts.SourceFile): string {
  const owner = node.parent;
  return ts.isClassLike(owner) && owner.name ? owner.name.getText(file) : 'class';
}

function measure(path: string): Measured[] {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Measured[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const first = file.getLineAndCharacterOfPosition(fn.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(fn.getEnd()).line;
      found.push({
        key: `${relative(ROOT, path).split(sep).join('/')}:${nameOf(fn, file)}`,
        line: first + 1,
        lines: last - first + 1,
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('function length', () => {
  const measured = sourceFiles(ROOT).flatMap(measure);

  it('reads the source', () => {
    assert.ok(measured.length > 1000, `only ${measured.length} functions found`);
  });

  it(`no function over ${MAX_LINES} lines outside the allow-list, and none on it longer than listed`, () => {
    const faults = measured.flatMap(({ key, line, lines }) => {
      const allowed = ALLOWED.get(key);
      if (lines <= MAX_LINES) return [];
      if (allowed === undefined) return [`${key} (line ${line}): ${lines} lines, over ${MAX_LINES}`];
      return lines > allowed ? [`${key} (line ${line}): ${lines} lines, grew past its allowed ${allowed}`] : [];
    });
    assert.deepEqual(faults, []);
  });

  it('lists on the allow-list only functions still over the limit', () => {
    const longest = new Map<string, number>();
    for (const { key, lines } of measured) longest.set(key, Math.max(longest.get(key) ?? 0, lines));
    const stale = [...ALLOWED.keys()].filter((key) => (longest.get(key) ?? 0) <= MAX_LINES);
    assert.deepEqual(stale, [], 'these fit now: drop them from ALLOWED');
  });
});
