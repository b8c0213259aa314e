/**
 * Checks that a capability's `parameters` / `returns` are valid JSON Schemas (draft 2020-12) with ajv:
 * valid against the meta-schema, and compilable (every `$ref` resolves). Bounded first, so a hostile schema
 * cannot exhaust the stack or memory; every `pattern` must compile on RE2, the linear-time engine callers' text is
 * matched with.
 */
import Ajv2020 from 'ajv/dist/2020';
import { RotatingAjv } from '../util/rotating-ajv';
import { patternProblem, re2RegExpEngine } from '../util/safe-pattern';

export const MAX_SCHEMA_DEPTH = 32;
export const MAX_SCHEMA_BYTES = 64 * 1024;

const ajv = new RotatingAjv(
  () => new Ajv2020({ strict: false, allErrors: true, validateFormats: false, code: { regExp: re2RegExpEngine } }),
);

export interface SchemaProblem {
  /** JSON Pointer inside the schema, e.g. `/properties/amount/type`. */
  pointer: string;
  message: string;
}

function depth(value: unknown, limit: number, level = 0): number {
  if (level > limit || value === null || typeof value !== 'object') return level;
  let deepest = level;
  for (const child of Object.values(value as Record<string, unknown>)) {
    deepest = Math.max(deepest, depth(child, limit, level + 1));
    if (deepest > limit) break;
  }
  return deepest;
}

/** Keywords whose values are data, not schemas: a "pattern" key inside them is not a pattern. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);

/** Every `pattern` and `patternProperties` key the linear-time engine cannot take, with its pointer. */
export function patternProblems(schema: unknown, pointer = ''): SchemaProblem[] {
  if (schema === null || typeof schema !== 'object') return [];
  const problems: SchemaProblem[] = [];
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    const here = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (DATA_KEYWORDS.has(key)) continue;
    if (key === 'pattern' && typeof value === 'string') {
      const problem = patternProblem(value);
      if (problem) problems.push({ pointer: here, message: problem });
      continue;
    }
    if (key === 'patternProperties' && value !== null && typeof value === 'object') {
      for (const name of Object.keys(value)) {
        const problem = patternProblem(name);
        if (problem) problems.push({ pointer: here, message: `${JSON.stringify(name)}: ${problem}` });
      }
    }
    problems.push(...patternProblems(value, here));
  }
  return problems;
}

export function checkJsonSchema(schema: unknown): SchemaProblem[] {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    return [{ pointer: '', message: 'a JSON Schema must be an object' }];
  }
  if (JSON.stringify(schema).length > MAX_SCHEMA_BYTES) {
    return [{ pointer: '', message: `the schema is larger than ${MAX_SCHEMA_BYTES} bytes` }];
  }
  if (depth(schema, MAX_SCHEMA_DEPTH) > MAX_SCHEMA_DEPTH) {
    return [{ pointer: '', message: `the schema nests deeper than ${MAX_SCHEMA_DEPTH} levels` }];
  }
  try {
    const errors = ajv.schemaErrors(schema as object);
    if (errors.length > 0) return errors.map((e) => ({ pointer: e.instancePath, message: e.message ?? 'invalid' }));
    const patterns = patternProblems(schema);
    if (patterns.length > 0) return patterns;
    // Compiled only to find what the meta-schema cannot see; ajv keeps no entry, so another agent may reuse an `$id`.
    ajv.compile(schema as object);
  } catch (error) {
    return [{ pointer: '', message: (error as Error).message }];
  }
  return [];
}
