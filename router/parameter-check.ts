/** Checks extracted parameters against the capability's JSON Schema; what fails is dropped, not delivered. */
import type { ErrorObject } from 'ajv';
import { isObject } from './params/fill-schema';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { LruCache } from '../util/lru';
import { RotatingAjv } from '../util/rotating-ajv';
import { re2RegExpEngine } from '../util/safe-pattern';

const ajv = new RotatingAjv(
  () => new Ajv2020({ strict: false, allErrors: true, validateFormats: false, code: { regExp: re2RegExpEngine } }),
);

/** Compiled validators by schema text: a bounded set, however many cards come and go. */
export const compiledSchemas = new LruCache<string, ValidateFunction | null>(500);

function compile(schemaJson: string): ValidateFunction | null {
  try {
    // The validator lives in our bounded cache; ajv keeps no entry (and retires its instance every 500 compiles).
    return ajv.compile(JSON.parse(schemaJson) as object);
  } catch {
    return null; // registration already checked it; never fail routing on it
  }
}

function validator(schemaJson: string): ValidateFunction | null {
  if (!compiledSchemas.has(schemaJson)) compiledSchemas.set(schemaJson, compile(schemaJson));
  return compiledSchemas.get(schemaJson)!;
}

/** Top-level properties of `params` that the schema rejects. */
export function invalidProperties(schemaJson: string, params: Record<string, unknown>): string[] {
  const validate = validator(schemaJson);
  if (!validate || validate(params)) return [];
  const bad = new Set<string>();
  for (const error of validate.errors ?? []) {
    const property = error.instancePath.split('/')[1];
    if (property) bad.add(decodeURIComponent(property.replace(/~1/g, '/').replace(/~0/g, '~')));
  }
  return [...bad];
}

function segments(error: ErrorObject): string[] {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => decodeURIComponent(s.replace(/~1/g, '/').replace(/~0/g, '~')));
  const extra = (error.params as { additionalProperty?: unknown }).additionalProperty;
  return error.keyword === 'additionalProperties' && typeof extra === 'string' ? [...path, extra] : path;
}

/** ajv's check as a plain boolean (its type guard would narrow the parameters away). */
function accepts(validate: ValidateFunction, value: unknown): boolean {
  return validate(value);
}

/** Removes the value at `path`: a field of a top-level object alone (the object stays unless emptied), else the whole top-level value. */
function removeAt(params: Record<string, unknown>, [top, field]: string[]): void {
  if (top === undefined) return;
  const value = params[top];
  if (field === undefined || !isObject(value)) {
    delete params[top];
    return;
  }
  const { [field]: _dropped, ...rest } = value;
  if (Object.keys(rest).length > 0) params[top] = rest;
  else delete params[top];
}

/**
 * `params` without the values the schema rejects. A nested field that fails goes alone and its object stays, so an
 * address read without its province keeps the parts that were read; a missing required field is not a rejection
 * (the caller is asked for it, by path). What still fails after that goes at the top level.
 */
export function validParameters(schemaJson: string, params: Record<string, unknown>): Record<string, unknown> {
  const validate = validator(schemaJson);
  if (!validate || accepts(validate, params)) return params;
  const out = { ...params };
  for (const error of validate.errors ?? []) if (error.keyword !== 'required') removeAt(out, segments(error));
  if (accepts(validate, out)) return out;
  for (const error of validate.errors ?? []) {
    const top = segments(error)[0];
    if (error.keyword !== 'required' && top !== undefined) delete out[top];
  }
  return out;
}

/** Most issues named in one refusal. */
const MAX_ISSUES = 20;

/**
 * What the schema finds wrong with `value`, as an error's details: where (`params.new_address.province`) and the
 * schema's complaint. Empty when it fits, or when the schema cannot be compiled (it was checked where it came in).
 */
export function schemaIssues(
  schemaJson: string,
  value: unknown,
  root = 'params',
): { location: string; message: string }[] {
  const validate = validator(schemaJson);
  if (!validate || accepts(validate, value)) return [];
  return (validate.errors ?? []).slice(0, MAX_ISSUES).map((error) => {
    const missing = (error.params as { missingProperty?: unknown }).missingProperty;
    const path = [
      root,
      ...segments(error),
      ...(error.keyword === 'required' && typeof missing === 'string' ? [missing] : []),
    ];
    return { location: path.join('.'), message: error.message ?? error.keyword };
  });
}
