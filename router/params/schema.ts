/** The parts of a JSON Schema that parameter extraction reads, and small helpers over them. */
import { safePattern, type SafePattern } from '../../util/safe-pattern';

export interface PropertySchema {
  type?: string | string[];
  pattern?: string;
  format?: string;
  enum?: unknown[];
  description?: string;
  title?: string;
  items?: PropertySchema;
  properties?: Record<string, PropertySchema>;
  required?: string[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  /** Per-value descriptions, in `enum` order: VS Code's `enumDescriptions`, or filled from `oneOf` consts. */
  enumDescriptions?: string[];
  'x-enum-descriptions'?: string[];
  oneOf?: PropertySchema[];
  anyOf?: PropertySchema[];
  const?: unknown;
  additionalProperties?: boolean | PropertySchema;
}

/**
 * The keys an open map of strings shows in its description's example ("模板变量，如 {\"order_id\": \"...\"}"): an
 * object with no `properties` whose `additionalProperties` are strings. Its keys are whatever the agent reads, and
 * the example is the only place the schema names them.
 */
export function exampleKeys(schema: PropertySchema): string[] {
  const values = schema.additionalProperties;
  if (schema.properties || typeof values !== 'object' || typeOf(values) !== 'string') return [];
  const example = schema.description?.match(/\{[^{}]*\}/)?.[0] ?? '';
  return [...new Set([...example.matchAll(/["']([A-Za-z_][A-Za-z0-9_]*)["']\s*:/g)].map((m) => m[1]!))];
}

export interface ObjectSchema {
  properties?: Record<string, PropertySchema>;
  required?: string[];
}

/** Intents longer than this are cut before any search: agent-supplied patterns must never see unbounded input. */
export const MAX_INTENT_CHARS = 1000;

export const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;

export function typeOf(schema: PropertySchema): string | undefined {
  return Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
}

export function propertiesOf(schema: unknown): [string, PropertySchema][] {
  const properties = (schema as ObjectSchema | undefined)?.properties;
  return properties && typeof properties === 'object'
    ? Object.entries(properties).map(([name, p]) => [name, withEnum(p)])
    : [];
}

/**
 * A property whose values are listed as `oneOf`/`anyOf` consts, each with a title or description (the JSON Schema
 * way to document enum values), read as an `enum` with `enumDescriptions`; items and sub-properties likewise.
 */
export function withEnum(schema: PropertySchema): PropertySchema {
  if (!schema || typeof schema !== 'object') return schema;
  let out = schema;
  const options = !schema.enum && (schema.oneOf ?? schema.anyOf);
  if (
    Array.isArray(options) &&
    options.length > 0 &&
    options.every((o) => o && typeof o === 'object' && 'const' in o)
  ) {
    out = {
      ...schema,
      type: schema.type ?? (options.every((o) => typeof o.const === 'string') ? 'string' : undefined),
      enum: options.map((o) => o.const),
      enumDescriptions: options.map((o) => [o.title, o.description].filter(Boolean).join(': ')),
    };
  }
  if (out.items) out = { ...out, items: withEnum(out.items) };
  if (out.properties)
    out = { ...out, properties: Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k, withEnum(v)])) };
  return out;
}

/** "after_sales_id" → ["after", "sales", "id"]; "weightKg" → ["weight", "kg"]. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Name, title and description in one lower-case string, for "does this property talk about X" tests. */
export function hintOf(name: string, schema: PropertySchema): string {
  return `${nameWords(name).join(' ')} ${schema.title ?? ''} ${schema.description ?? ''}`.toLowerCase();
}

/** The head term of a description: "订单号，8-20位数字" → "订单号"; "City name in Chinese or English" → whole. */
export function headTerm(schema: PropertySchema): string | undefined {
  const head = (schema.title ?? schema.description ?? '').split(/[，,。；;：:（(、/]/)[0]!.trim();
  return head || undefined;
}

/** Whether a number satisfies the schema's numeric bounds and type. */
export function numberFits(value: number, schema: PropertySchema): boolean {
  if (!Number.isFinite(value)) return false;
  if (typeOf(schema) === 'integer' && !Number.isInteger(value)) return false;
  if (schema.minimum !== undefined && value < schema.minimum) return false;
  if (schema.maximum !== undefined && value > schema.maximum) return false;
  if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) return false;
  if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) return false;
  return true;
}

/** Whether a string satisfies the schema's length bounds and (untrusted, so guarded) pattern. */
export function stringFits(value: string, schema: PropertySchema): boolean {
  const length = [...value].length;
  if (schema.minLength !== undefined && length < schema.minLength) return false;
  if (schema.maxLength !== undefined && length > schema.maxLength) return false;
  if (schema.pattern !== undefined) {
    const re = compilePattern(schema.pattern);
    if (!re || value.length > MAX_PATTERN_INPUT || !re.test(value)) return false;
  }
  return true;
}

/** Longest string an agent's pattern is run on when extracting: identifiers are short. */
export const MAX_PATTERN_INPUT = 64;

/** An agent's pattern on RE2 (linear time, util/safe-pattern.ts), compiled once; null when RE2 cannot take it. */
export function compilePattern(pattern: string): SafePattern | null {
  return safePattern(pattern);
}
