/**
 * What a language model is asked to fill when the heuristic extraction leaves required parameters empty: only those
 * fields, each nullable (the model answers null for what the request does not state), as the JSON Schema subset
 * that node-llama-cpp turns into a grammar (every listed property is produced; no `pattern`, `anyOf` or numeric
 * bounds). The answer is checked afterwards against the capability's full schema, as any extraction is.
 */

import { typeOf, type PropertySchema } from './schema';

export type GrammarSchema = Record<string, unknown>;

const STRING_FORMATS = new Set(['date', 'time', 'date-time']);
const SCALARS = new Set(['string', 'number', 'integer', 'boolean']);

/** Longest string asked for: a parameter copied from a request, not a text written by the model. */
const MAX_STRING = 200;

/** Most nested levels followed; deeper values are asked for as plain strings (and checked afterwards). */
const MAX_DEPTH = 4;

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function described(grammar: GrammarSchema, schema: Record<string, unknown>): GrammarSchema {
  return typeof schema.description === 'string' ? { ...grammar, description: schema.description } : grammar;
}

/** One value's grammar schema, null allowed. */
function nullable(schema: GrammarSchema): GrammarSchema {
  if (Array.isArray(schema.enum)) return { enum: [...(schema.enum as unknown[]), null] };
  // Only scalar types take a type list; an object or an array is one branch of two.
  if (typeof schema.type === 'string' && SCALARS.has(schema.type)) return { ...schema, type: [schema.type, 'null'] };
  return { oneOf: [schema, { type: 'null' }] };
}

/** A JSON Schema value as the grammar can express it (without null). */
export function grammarOf(schema: unknown, depth = 0): GrammarSchema {
  if (!isObject(schema) || depth > MAX_DEPTH) return { type: 'string', maxLength: MAX_STRING };
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return described({ enum: schema.enum.filter((v) => v === null || typeof v !== 'object') }, schema);
  if ('const' in schema && (schema.const === null || typeof schema.const !== 'object')) return { const: schema.const };
  const type = typeOf(schema as PropertySchema);
  if (type === 'object' || (type === undefined && isObject(schema.properties))) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const fields = Object.fromEntries(
      Object.entries(properties).map(([name, inner]) => [name, nullable(grammarOf(inner, depth + 1))]),
    );
    return described({ type: 'object', properties: fields, additionalProperties: false }, schema);
  }
  if (type === 'array') return described({ type: 'array', items: grammarOf(schema.items, depth + 1) }, schema);
  if (type === 'string' && typeof schema.format === 'string' && STRING_FORMATS.has(schema.format))
    return described({ type: 'string', format: schema.format }, schema);
  if (type === 'string') return described({ type: 'string', maxLength: MAX_STRING }, schema);
  if (typeof type === 'string' && SCALARS.has(type)) return described({ type }, schema);
  return described({ type: 'string', maxLength: MAX_STRING }, schema);
}

/** The object the model fills: the named top-level properties of `schema`, each nullable. */
export function fillSchema(schema: unknown, fields: readonly string[]): GrammarSchema {
  const properties = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
  const asked = fields.filter((name) => name in properties);
  return {
    type: 'object',
    properties: Object.fromEntries(asked.map((name) => [name, nullable(grammarOf(properties[name]))])),
    additionalProperties: false,
  };
}

/** The answer without what the model left null (or empty), at every level; undefined when nothing is left. */
export function withoutNulls(value: unknown): unknown {
  if (value === null || value === '') return undefined;
  if (Array.isArray(value)) {
    const items = value.map(withoutNulls).filter((v) => v !== undefined);
    return items.length ? items : undefined;
  }
  if (isObject(value)) {
    const entries = Object.entries(value)
      .map(([k, v]) => [k, withoutNulls(v)] as const)
      .filter(([, v]) => v !== undefined);
    return entries.length ? Object.fromEntries(entries) : undefined;
  }
  return value;
}

/** The fields a request states, from the model's answer to `fillSchema`. */
export function filledFields(answer: unknown, fields: readonly string[]): Record<string, unknown> {
  const cleaned = withoutNulls(answer);
  if (!isObject(cleaned)) return {};
  return Object.fromEntries(Object.entries(cleaned).filter(([name]) => fields.includes(name)));
}
