/**
 * What counts as acceptable text in the api's fields. Two kinds:
 * - labels (names, tags, versions, examples): no control characters, no bidirectional controls (they can make a
 *   name display as another: "refund\u202Ednuf…"), no lone surrogates;
 * - prose (descriptions, intents, reasons): line breaks and tabs allowed, bidirectional marks allowed (right-to-left
 *   text needs them), but no NUL or other control characters and no lone surrogates.
 * Free JSON (payloads, results) only has to be well-formed Unicode, keys included.
 */
import { z } from 'zod';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/;
// eslint-disable-next-line no-control-regex
const CONTROL_EXCEPT_WHITESPACE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
const BIDI_CONTROL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;

export function isLabel(text: string): boolean {
  return !LONE_SURROGATE.test(text) && !CONTROL.test(text) && !BIDI_CONTROL.test(text);
}

export function isProse(text: string): boolean {
  return !LONE_SURROGATE.test(text) && !CONTROL_EXCEPT_WHITESPACE.test(text);
}

/** Whether every string and key in a JSON value is well-formed Unicode (no lone surrogates). */
export function isWellFormedJson(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return !LONE_SURROGATE.test(value);
  if (value === null || typeof value !== 'object' || depth > 200) return true;
  if (Array.isArray(value)) return value.every((v) => isWellFormedJson(v, depth + 1));
  return Object.entries(value).every(([k, v]) => !LONE_SURROGATE.test(k) && isWellFormedJson(v, depth + 1));
}

/**
 * The same rules as JSON Schema `pattern`s, for the OpenAPI document. Lone surrogates are left out of them: common
 * regular expression engines (Rust's, which Schemathesis validates with) cannot name them, and well-formed UTF-8
 * cannot carry them; validation itself uses the functions above, which refuse them too.
 */
export const LABEL_PATTERN = '^[^\\u0000-\\u001F\\u007F-\\u009F\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069]*$';
export const PROSE_PATTERN = '^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F]*$';
/** Some character other than the white space `String.prototype.trim` removes (an intent must say something). */
export const NOT_BLANK_PATTERN =
  '[^\\t\\n\\u000B\\f\\r \\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF]';

export const label = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine(isLabel, 'must be text without control characters, bidirectional controls or lone surrogates')
    .meta({ pattern: LABEL_PATTERN });

export const prose = (max: number) =>
  z
    .string()
    .max(max)
    .refine(isProse, 'must be well-formed text without control characters')
    .meta({ pattern: PROSE_PATTERN });

export const anyJson = z.unknown().refine(isWellFormedJson, 'strings must be well-formed Unicode (no lone surrogates)');

/** Strings in UTF-16 code-unit order: the same on every machine (localeCompare depends on the locale). */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
