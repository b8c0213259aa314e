/**
 * The configuration reference, from the zod schema of the environment (`envSchema` in platform/config.ts): one row
 * per variable, in the schema's order, with the doc comment written above it. The comment's `@default` tag is checked
 * against the schema's real default, so the table cannot quote a stale one.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import type { z } from 'zod';
import { envSchema } from '../../platform/config';
import { cell } from './markers';

const CONFIG_FILE = resolve(__dirname, '../../platform/config.ts');

interface Documented {
  name: string;
  text: string;
  /** The `@default` tag, e.g. `false (embedded mode: true)`; absent for optional variables. */
  defaultTag?: string;
}

/** The doc comment above each property of the `envSchema = z.object({…})` literal. */
export function documentedVariables(source: string = readFileSync(CONFIG_FILE, 'utf8')): Documented[] {
  const file = ts.createSourceFile('config.ts', source, ts.ScriptTarget.Latest, true);
  const literal = schemaLiteral(file);
  return literal.properties.filter(ts.isPropertyAssignment).map((property) => {
    const name = property.name.getText(file);
    const docs = ts.getJSDocCommentsAndTags(property).filter(ts.isJSDoc);
    if (docs.length === 0) throw new Error(`platform/config.ts: ${name} has no doc comment`);
    const doc = docs[docs.length - 1]!;
    const tag = doc.tags?.find((t) => t.tagName.text === 'default');
    return {
      name,
      text: ts.getTextOfJSDocComment(doc.comment) ?? '',
      ...(tag ? { defaultTag: ts.getTextOfJSDocComment(tag.comment) ?? '' } : {}),
    };
  });
}

function schemaLiteral(file: ts.SourceFile): ts.ObjectLiteralExpression {
  let found: ts.ObjectLiteralExpression | undefined;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (ts.isVariableDeclaration(node) && node.name.getText(file) === 'envSchema') {
      const firstLiteral = (n: ts.Node): ts.ObjectLiteralExpression | undefined =>
        ts.isObjectLiteralExpression(n) ? n : ts.forEachChild(n, firstLiteral);
      found = node.initializer && firstLiteral(node.initializer);
    } else ts.forEachChild(node, visit);
  };
  visit(file);
  if (!found) throw new Error('platform/config.ts: no `envSchema = z.object({…})`');
  return found;
}

/** The schema's default of one variable as the docs write it, or undefined when it has none. */
function schemaDefault(name: string): string | undefined {
  const field = (envSchema.shape as Record<string, z.ZodType>)[name];
  if (!field) throw new Error(`platform/config.ts: ${name} is documented but not in envSchema`);
  const parsed = field.safeParse(undefined);
  if (!parsed.success || parsed.data === undefined) return undefined;
  return Array.isArray(parsed.data) && parsed.data.length === 0 ? 'none' : String(parsed.data);
}

/** The Default cell: the real default in code style, then the tag's note; "—" for an optional variable. */
function defaultCell(variable: Documented): string {
  const real = schemaDefault(variable.name);
  const tag = variable.defaultTag;
  if (real !== undefined && !tag?.startsWith(real)) {
    throw new Error(
      `platform/config.ts: ${variable.name} says @default ${tag ?? '(nothing)'} but the schema's default is ${real}`,
    );
  }
  if (!tag) return '—';
  if (real === undefined || real === 'none') return cell(tag);
  return cell(`\`${real}\`${tag.slice(real.length)}`);
}

export function configurationTable(): string {
  const rows = documentedVariables().map((v) => `| \`${v.name}\` | ${defaultCell(v)} | ${cell(v.text)} |`);
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}
