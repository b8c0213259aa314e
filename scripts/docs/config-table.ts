/**
 * The configuration reference, from the zod schema of the environment: `envSchema` in platform/config.ts spreads one
 * part per concern (platform/config/), and the reference has a section per part, in the schema's order, with a row per
 * variable and the doc comment written above it. A part's own doc comment, `Heading: what it covers.`, gives its
 * section's heading and first line. A variable's `@default` tag is checked against the schema's real default, so the
 * table cannot quote a stale one.
 */
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';
import type { z } from 'zod';
import { envSchema } from '../../platform/config';
import { cell } from './markers';

const ROOT = resolve(__dirname, '../..');
const CONFIG_FILE = resolve(ROOT, 'platform/config.ts');

interface Documented {
  name: string;
  text: string;
  /** The `@default` tag, e.g. `false (embedded mode: true)`; absent for optional variables. */
  defaultTag?: string;
  /** The part's file, for messages. */
  where: string;
}

export interface ConfigPart {
  heading: string;
  summary: string;
  variables: Documented[];
}

function parse(path: string): ts.SourceFile {
  return ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
}

/** The parts spread into `envSchema = z.object({…})`, in order, each read from the file it is imported from. */
export function configParts(configFile: string = CONFIG_FILE): ConfigPart[] {
  const file = parse(configFile);
  const parts = schemaLiteral(file).properties.map((property) => {
    if (!ts.isSpreadAssignment(property) || !ts.isIdentifier(property.expression)) {
      throw new Error(
        `${where(file)}: envSchema holds \`${property.getText(file)}\`; put each variable in a part (platform/config/)`,
      );
    }
    return readPart(importedFile(file, property.expression.text), property.expression.text);
  });
  const seen = new Map<string, string>();
  for (const variable of parts.flatMap((part) => part.variables)) {
    const first = seen.get(variable.name);
    if (first) throw new Error(`${variable.name} is in two parts: ${first} and ${variable.where}`);
    seen.set(variable.name, variable.where);
  }
  return parts;
}

function where(file: ts.SourceFile): string {
  return relative(ROOT, file.fileName);
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
  if (!found) throw new Error(`${where(file)}: no \`envSchema = z.object({…})\``);
  return found;
}

/** The file `name` is imported from (a relative import). */
function importedFile(file: ts.SourceFile, name: string): string {
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings) && bindings.elements.some((e) => e.name.text === name)) {
      return resolve(dirname(file.fileName), `${statement.moduleSpecifier.text}.ts`);
    }
  }
  throw new Error(`${where(file)}: ${name} is not imported`);
}

/** The part `export const <name> = {…}` of `path`: its heading from its doc comment, its variables'. */
function readPart(path: string, name: string): ConfigPart {
  const file = parse(path);
  const declaration = file.statements
    .filter(ts.isVariableStatement)
    .flatMap((statement) => [...statement.declarationList.declarations])
    .find((d) => d.name.getText(file) === name);
  if (!declaration?.initializer || !ts.isObjectLiteralExpression(declaration.initializer)) {
    throw new Error(`${where(file)}: no \`${name} = {…}\``);
  }
  const doc = lastDoc(declaration);
  const text = doc && (ts.getTextOfJSDocComment(doc.comment) ?? '').replace(/\s+/g, ' ').trim();
  const colon = text?.indexOf(': ') ?? -1;
  if (!text || colon < 1) throw new Error(`${where(file)}: ${name} needs a doc comment \`Heading: what it covers.\``);
  return {
    heading: text.slice(0, colon),
    summary: text.charAt(colon + 2).toUpperCase() + text.slice(colon + 3),
    variables: declaration.initializer.properties.map((property) => documented(property, file)),
  };
}

function lastDoc(node: ts.Node): ts.JSDoc | undefined {
  return ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc).at(-1);
}

/** The doc comment above one variable of a part. */
function documented(property: ts.ObjectLiteralElementLike, file: ts.SourceFile): Documented {
  if (!ts.isPropertyAssignment(property)) {
    throw new Error(`${where(file)}: \`${property.getText(file)}\` is not a variable written out (NAME: schema)`);
  }
  const name = property.name.getText(file);
  const doc = lastDoc(property);
  if (!doc) throw new Error(`${where(file)}: ${name} has no doc comment`);
  const tag = doc.tags?.find((t) => t.tagName.text === 'default');
  return {
    name,
    text: ts.getTextOfJSDocComment(doc.comment) ?? '',
    ...(tag ? { defaultTag: ts.getTextOfJSDocComment(tag.comment) ?? '' } : {}),
    where: where(file),
  };
}

/** The schema's default of one variable as the docs write it, or undefined when it has none. */
function schemaDefault(variable: Documented): string | undefined {
  const field = (envSchema.shape as Record<string, z.ZodType>)[variable.name];
  if (!field) throw new Error(`${variable.where}: ${variable.name} is documented but not in envSchema`);
  const parsed = field.safeParse(undefined);
  if (!parsed.success || parsed.data === undefined) return undefined;
  return Array.isArray(parsed.data) && parsed.data.length === 0 ? 'none' : String(parsed.data);
}

/** The Default cell: the real default in code style, then the tag's note; "—" for an optional variable. */
function defaultCell(variable: Documented): string {
  const real = schemaDefault(variable);
  const tag = variable.defaultTag;
  if (real !== undefined && !tag?.startsWith(real)) {
    throw new Error(
      `${variable.where}: ${variable.name} says @default ${tag ?? '(nothing)'} but the schema's default is ${real}`,
    );
  }
  if (!tag) return '—';
  if (real === undefined || real === 'none') return cell(tag);
  return cell(`\`${real}\`${tag.slice(real.length)}`);
}

/** A section per part: its heading, what it covers, and its table. */
export function configurationTable(): string {
  const sections = configParts().map((part) => {
    const rows = part.variables.map((v) => `| \`${v.name}\` | ${defaultCell(v)} | ${cell(v.text)} |`);
    return [`### ${part.heading}`, '', part.summary, '', '| Variable | Default | Meaning |', '|---|---|---|', ...rows];
  });
  return sections.map((lines) => lines.join('\n')).join('\n\n');
}
