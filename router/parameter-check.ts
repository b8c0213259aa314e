/** Checks extracted parameters against the capability's JSON Schema; what fails is dropped, not delivered. */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { LruCache } from '../util/lru';
import { RotatingAjv } from '../util/rotating-ajv';
import { re2RegExpEngine } from '../util/safe-pattern';

const ajv = new RotatingAjv(() => new Ajv2020({ strict: false, allErrors: true, validateFormats: false, code: { regExp: re2RegExpEngine } }));

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
