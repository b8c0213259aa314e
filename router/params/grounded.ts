/**
 * A value a model filled in is kept only where the request states it: a free string or a number must appear in
 * the request's text (spaces, case and full-width forms aside). A small model asked for a field the request does
 * not state tends to invent a plausible one (a placeholder name, a phone number, a province inferred from a city);
 * a parameter the caller never gave must not reach an agent. Values the schema constrains (enums, consts, dates in
 * a fixed format) are the model's reading of the request, not copies, and are left to the schema check.
 */

import { isObject } from './fill-schema';

/** Lower case, full-width ASCII folded, spaces and common separators dropped. */
export function comparable(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s,，、。.·\-_/]+/g, '');
}

const DIGIT = /\d/;

/**
 * Whether `request` (comparable) contains the value. A value that starts or ends with a digit must not be the
 * middle of a longer number ("12" is not stated by "1268").
 */
function stated(value: string | number, request: string): boolean {
  const wanted = comparable(String(value));
  if (wanted.length === 0) return false;
  for (let at = request.indexOf(wanted); at >= 0; at = request.indexOf(wanted, at + 1)) {
    const before = DIGIT.test(wanted[0]!) && DIGIT.test(request[at - 1] ?? '');
    const after = DIGIT.test(wanted[wanted.length - 1]!) && DIGIT.test(request[at + wanted.length] ?? '');
    if (!before && !after) return true;
  }
  return false;
}

/** Whether the schema fixes the value's form (then it is a reading, not a copy). */
function constrained(schema: Record<string, unknown> | undefined): boolean {
  if (!schema) return false;
  return Array.isArray(schema.enum) || 'const' in schema || typeof schema.format === 'string';
}

function grounded(value: unknown, schema: Record<string, unknown> | undefined, request: string): unknown {
  if (isObject(value)) {
    const properties = isObject(schema?.properties) ? schema.properties : {};
    const kept = Object.entries(value)
      .map(([k, v]) => [k, grounded(v, isObject(properties[k]) ? properties[k] : undefined, request)] as const)
      .filter(([, v]) => v !== undefined);
    return kept.length ? Object.fromEntries(kept) : undefined;
  }
  if (Array.isArray(value)) {
    const items = value
      .map((v) => grounded(v, isObject(schema?.items) ? schema.items : undefined, request))
      .filter((v) => v !== undefined);
    return items.length ? items : undefined;
  }
  if (constrained(schema) || typeof value === 'boolean') return value;
  if (typeof value === 'string' || typeof value === 'number') return stated(value, request) ? value : undefined;
  return undefined;
}

/** The filled fields, each cut down to what the request states (`schema`: the capability's parameters). */
export function groundedFields(
  filled: Record<string, unknown>,
  schema: unknown,
  request: string,
): Record<string, unknown> {
  const properties = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
  const text = comparable(request);
  const kept = Object.entries(filled)
    .map(([k, v]) => [k, grounded(v, isObject(properties[k]) ? properties[k] : undefined, text)] as const)
    .filter(([, v]) => v !== undefined);
  return Object.fromEntries(kept);
}
