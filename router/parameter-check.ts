/** Checks extracted parameters against the capability's JSON Schema; what fails is dropped, not delivered. */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const compiled = new Map<string, ValidateFunction | null>();

function validator(schemaJson: string): ValidateFunction | null {
  if (!compiled.has(schemaJson)) {
    try {
      compiled.set(schemaJson, ajv.compile(JSON.parse(schemaJson) as object));
    } catch {
      compiled.set(schemaJson, null); // registration already checked it; never fail routing on it
    }
  }
  return compiled.get(schemaJson)!;
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
