/**
 * Heuristic parameter extraction, guided by the capability's JSON Schema: what a property's type, format,
 * pattern, enum and description say it looks like is searched for in the intent. It finds ids, phone numbers,
 * e-mails, dates, amounts, weights, counts and enum values; free text (cities, addresses) needs the LLM.
 */

export interface PropertySchema {
  type?: string | string[];
  pattern?: string;
  format?: string;
  enum?: unknown[];
  description?: string;
  title?: string;
}

interface ObjectSchema {
  properties?: Record<string, PropertySchema>;
  required?: string[];
}

export type Extracted = Record<string, string | number>;

const BOUNDARY_BEFORE = '(?<![A-Za-z0-9])';
const BOUNDARY_AFTER = '(?![A-Za-z0-9])';

function typeOf(schema: PropertySchema): string | undefined {
  return Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
}

function hint(name: string, schema: PropertySchema): string {
  return `${name} ${schema.title ?? ''} ${schema.description ?? ''}`.toLowerCase();
}

/** An anchored pattern made searchable inside a longer text, or undefined when it cannot be. */
function searchable(pattern: string): RegExp | undefined {
  const body = pattern.replace(/^\^/, '').replace(/\$$/, '');
  try {
    return new RegExp(`${BOUNDARY_BEFORE}(${body})${BOUNDARY_AFTER}`, 'g');
  } catch {
    return undefined;
  }
}

/** Patterns with literal letters (RF…, E…, QC…) are more specific than bare digit runs, so they choose first. */
function specificity(pattern: string): number {
  return (pattern.replace(/\\[a-zA-Z]/g, '').match(/[A-Za-z]/g) ?? []).length;
}

function pad(n: string): string {
  return n.padStart(2, '0');
}

const DATE = /(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})\s*[日号]?/g;

function datesIn(text: string): string[] {
  return [...text.matchAll(DATE)].map((m) => `${m[1]}-${pad(m[2]!)}-${pad(m[3]!)}`);
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;

/** Numbers by the unit that follows or the word that precedes them. */
const QUANTITY_PATTERNS: { hints: RegExp; pattern: RegExp }[] = [
  {
    hints: /amount|金额|价格|price|money|退款|refund|元|value|价值/,
    pattern: /(?:[¥￥$]\s*|(?:退|金额|refund|amount|价值)\s*[:：]?\s*)(\d+(?:\.\d+)?)|(\d+(?:\.\d+)?)\s*(?:元|块|yuan|rmb|dollars?|usd|cny)/gi,
  },
  { hints: /weight|重量|kg|公斤/, pattern: /(\d+(?:\.\d+)?)\s*(?:kg|公斤|千克|kilograms?)/gi },
  { hints: /days?|天数|天/, pattern: /(\d+)\s*(?:天|days?)/gi },
];

function quantity(text: string, name: string, schema: PropertySchema): number | undefined {
  const h = hint(name, schema);
  for (const { hints, pattern } of QUANTITY_PATTERNS) {
    if (!hints.test(h)) continue;
    for (const m of text.matchAll(pattern)) {
      const value = Number(m[1] ?? m[2]);
      if (Number.isFinite(value)) return typeOf(schema) === 'integer' ? Math.round(value) : value;
    }
  }
  return undefined;
}

/**
 * Labels an enum's description gives its values, in order: "售后类型：退货退款/换货/维修" for
 * [return_refund, exchange, repair]. Only trusted when the counts agree.
 */
export function enumLabels(schema: PropertySchema): Map<string, string[]> {
  const labels = new Map<string, string[]>();
  const values = (schema.enum ?? []).filter((v): v is string => typeof v === 'string');
  for (const v of values) labels.set(v, [v.toLowerCase(), v.toLowerCase().replace(/[_-]+/g, ' ')]);
  const listed = (schema.description ?? '').split(/[:：]/).at(-1)!.split(/[/、,，|]/).map((s) => s.trim()).filter(Boolean);
  if (listed.length === values.length) values.forEach((v, i) => labels.get(v)!.push(listed[i]!.toLowerCase()));
  return labels;
}

function enumValue(text: string, schema: PropertySchema): string | undefined {
  const lower = text.toLowerCase();
  let best: { value: string; length: number } | undefined;
  for (const [value, labels] of enumLabels(schema)) {
    for (const label of labels) {
      if (label.length < 2 || !lower.includes(label)) continue;
      if (!best || label.length > best.length) best = { value, length: label.length };
    }
  }
  return best?.value;
}

export function extractParameters(intent: string, schema: unknown): Extracted {
  const properties = Object.entries((schema as ObjectSchema | undefined)?.properties ?? {});
  const out: Extracted = {};
  const claimed = new Set<string>();
  const patterned = properties
    .filter(([, p]) => typeOf(p) === 'string' && typeof p.pattern === 'string')
    .sort(([, a], [, b]) => specificity(b.pattern!) - specificity(a.pattern!));
  for (const [name, p] of patterned) {
    const search = searchable(p.pattern!);
    if (!search) continue;
    const whole = new RegExp(p.pattern!);
    const found = [...intent.matchAll(search)].map((m) => m[1]!).find((v) => !claimed.has(v) && whole.test(v));
    if (found) {
      out[name] = found;
      claimed.add(found);
    }
  }
  const dates = datesIn(intent);
  for (const [name, p] of properties) {
    if (name in out) continue;
    const type = typeOf(p);
    if (type === 'string' && p.format === 'email') {
      const email = intent.match(EMAIL)?.[0];
      if (email) out[name] = email;
    } else if (type === 'string' && p.format === 'date' && dates.length > 0) {
      out[name] = dates.length > 1 ? dates.shift()! : dates[0]!;
    } else if (type === 'string' && Array.isArray(p.enum)) {
      const value = enumValue(intent, p);
      if (value) out[name] = value;
    } else if (type === 'number' || type === 'integer') {
      const value = quantity(intent, name, p);
      if (value !== undefined) out[name] = value;
    }
  }
  return out;
}

export function missingRequired(schema: unknown, params: Record<string, unknown>): string[] {
  const required = (schema as ObjectSchema | undefined)?.required ?? [];
  return required.filter((name) => params[name] === undefined);
}
