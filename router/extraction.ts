/**
 * Parameter extraction guided by the capability's JSON Schema. What each property's type, format, pattern, enum
 * (and what the schema says each value means), name and description say it looks like is searched for in the intent,
 * one concept per module in router/params: identifiers by pattern, cue and from/to role, e-mails and URLs, dates,
 * times and year-months (chrono-node, against an injected clock), clock-range enums, enum values by their words,
 * stated meanings and lexicon (by meaning with embeddings when given), quantities and counts with units, place
 * names, address objects and explicitly labelled free text. Every value is checked against its property schema
 * before it is returned; what is unsure is left out, for the LLM stage or `input_required` to ask about.
 */
import { extractAddress, addressParts } from './params/address';
import { datesIn, exampleOffset, formatDate, formatDateTime, type DateMention, yearMonthsIn } from './params/dates';
import {
  describedLabels,
  enumStrings,
  enumValueBySimilarity,
  enumValueLexical,
  enumValuesLexical,
  labelsFor,
  valueDescriptions,
  type Embedder,
} from './params/enums';
import { isFreeText, labelledText } from './params/free-text';
import { nameFor } from './params/names';
import { assignIdentifiers, isLooseIdentifier, type Slot, tokensIn } from './params/identifiers';
import { extractPlaces, placeField, type PlaceField } from './params/places';
import { quantityFor } from './params/quantities';
import {
  headTerm,
  MAX_INTENT_CHARS,
  nameWords,
  numberFits,
  type ObjectSchema,
  propertiesOf,
  type PropertySchema,
  stringFits,
  typeOf,
} from './params/schema';
import { isTimeWindowEnum, timeWindowFor } from './params/time-window';

export type { PropertySchema } from './params/schema';
export type { Embedder } from './params/enums';
export { missingMessage } from './params/missing-message';

export type Extracted = Record<string, unknown>;

export interface ExtractionOptions {
  /** The router's clock: what "明天" and "next Friday" are relative to. */
  now?: Date;
  /** The caller's UTC offset in minutes; else the offset a property's own example shows; else the host's. */
  timeZoneOffsetMinutes?: number;
  /** An embedding model (the router's multilingual one); used only for enum values that no word in the intent names. */
  embed?: Embedder;
}

/** Labels an enum's values answer to (own words, described labels, lexicon), by value. */
export function enumLabels(schema: PropertySchema): Map<string, string[]> {
  const values = enumStrings(schema);
  const described = describedLabels(schema, values);
  const meanings = valueDescriptions(schema, values);
  return new Map(values.map((v) => [v, labelsFor(v, described.get(v), meanings.get(v))]));
}

/** Full-width digits and letters as ASCII, so "１２３" is read as 123; nothing else changes length. */
function normalise(intent: string): string {
  return intent
    .slice(0, MAX_INTENT_CHARS)
    .replace(/[０-９Ａ-Ｚａ-ｚ]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0));
}

function blank(text: string, spans: { start: number; end: number }[]): string {
  let out = text;
  for (const { start, end } of spans) out = out.slice(0, start) + ' '.repeat(end - start) + out.slice(end);
  return out;
}

function slotsOf(properties: [string, PropertySchema][]): Slot[] {
  const slots: Slot[] = [];
  for (const [name, p] of properties) {
    const type = typeOf(p);
    if ((type === 'string' && p.pattern) || isLooseIdentifier(name, p)) slots.push({ path: [name], schema: p });
    else if (type === 'array' && p.items && typeOf(p.items) === 'string' && p.items.pattern)
      slots.push({ path: [name], schema: p, many: true });
    else if (type === 'object' && p.properties) {
      for (const [sub, sp] of Object.entries(p.properties))
        if (typeOf(sp) === 'string' && sp.pattern) slots.push({ path: [name, sub], schema: sp });
    }
  }
  return slots;
}

const PAIR_START = new Set(['start', 'from', 'begin', 'first']);
const PAIR_END = new Set(['end', 'to', 'until', 'last']);

function pairRole(name: string): 'start' | 'end' | undefined {
  const first = nameWords(name)[0] ?? '';
  return PAIR_START.has(first) ? 'start' : PAIR_END.has(first) ? 'end' : undefined;
}

/** Date and date-time properties filled from the mentions: a start/end pair takes a range or two dates. */
function assignDates(
  dateFields: [string, PropertySchema][],
  mentions: DateMention[],
  offsetFor: (p: PropertySchema) => number,
): Extracted {
  const out: Extracted = {};
  const write = (name: string, p: PropertySchema, parts: DateMention['start']) => {
    const value = p.format === 'date-time' ? formatDateTime(parts, offsetFor(p)) : formatDate(parts);
    if (value) out[name] = value;
  };
  const start = dateFields.find(([n]) => pairRole(n) === 'start');
  const end = dateFields.find(([n]) => pairRole(n) === 'end');
  let rest = dateFields;
  if (start && end && mentions.length > 0) {
    const first = mentions[0]!;
    const last = first.end ?? mentions[1]?.start ?? first.start;
    write(start[0], start[1], first.start);
    write(end[0], end[1], last);
    rest = dateFields.filter((f) => f !== start && f !== end);
    mentions = mentions.slice(first.end ? 1 : 2);
  }
  rest.forEach(([name, p], i) => {
    const m = mentions[i];
    if (m) write(name, p, m.start);
  });
  return out;
}

function valid(value: unknown, p: PropertySchema): boolean {
  if (Array.isArray(p.enum) && !p.enum.includes(value)) return false;
  if (typeof value === 'number') return numberFits(value, p);
  if (typeof value === 'string') return stringFits(value, p);
  return true;
}

/** The head terms of the other properties ("税号" for a title's value to stop before). */
function otherTerms(properties: [string, PropertySchema][], name: string): string[] {
  return properties
    .filter(([n]) => n !== name)
    .flatMap(([, p]) => headTerm(p) ?? [])
    .filter((t) => t.length >= 2 && t.length <= 12);
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
const URL = /https?:\/\/[^\s，。,;；）)]+/g;

/**
 * Year-month properties (a pattern that takes "2024-06" and not a whole date): "2024年7月", "June 2024", each into
 * `out`; the text without the months taken.
 */
function assignYearMonths(properties: ReturnType<typeof propertiesOf>, out: Extracted, text: string): string {
  let rest = text;
  const monthFields = properties.filter(
    ([name, p]) =>
      !(name in out) &&
      typeOf(p) === 'string' &&
      !!p.pattern &&
      stringFits('2024-06', p) &&
      !stringFits('2024-06-01', p),
  );
  const months = monthFields.length > 0 ? yearMonthsIn(rest) : [];
  monthFields.forEach(([name], i) => {
    const month = months[i];
    if (month) {
      out[name] = month.value;
      rest = blank(rest, [{ start: month.index, end: month.index + month.length }]);
    }
  });
  return rest;
}

/** Everything that can be found without a model: synchronous, no I/O. */
export function extractParametersSync(
  intent: string,
  schema: unknown,
  options: Omit<ExtractionOptions, 'embed'> = {},
): Extracted {
  const text = normalise(intent);
  const properties = propertiesOf(schema);
  const out: Extracted = {};
  if (properties.length === 0 || !text.trim()) return out;
  const now = options.now ?? new Date();

  // Identifiers first: each token goes to one property, and is hidden from the number and date readers.
  const ids = assignIdentifiers(text, slotsOf(properties));
  const nested = new Map<string, Map<string, string>>();
  for (const [key, value] of ids) {
    const [top, sub] = key.split('.');
    if (sub === undefined)
      out[top!] = typeOf(properties.find(([n]) => n === top)![1]) === 'integer' ? Number(value) : value;
    else nested.set(top!, (nested.get(top!) ?? new Map()).set(sub, value as string));
  }
  const usedValues = new Set([...ids.values()].flat());
  let rest = blank(
    text,
    tokensIn(text).filter((t) => usedValues.has(t.text)),
  );

  const emails = [...text.matchAll(EMAIL)].map((m) => m[0]);
  const urls = [...text.matchAll(URL)].map((m) => m[0]);
  rest = blank(
    rest,
    [...rest.matchAll(EMAIL), ...rest.matchAll(URL)].map((m) => ({ start: m.index!, end: m.index! + m[0].length })),
  );

  rest = assignYearMonths(properties, out, rest);

  const offsetFor = (p: PropertySchema) =>
    options.timeZoneOffsetMinutes ?? exampleOffset(p.description) ?? -now.getTimezoneOffset();
  const dateFields = properties.filter(
    ([name, p]) => !(name in out) && typeOf(p) === 'string' && (p.format === 'date' || p.format === 'date-time'),
  );
  const defaultOffset =
    options.timeZoneOffsetMinutes ??
    dateFields.map(([, p]) => exampleOffset(p.description)).find((o) => o !== undefined) ??
    -now.getTimezoneOffset();
  const mentions = datesIn(rest, now, defaultOffset);
  Object.assign(out, assignDates(dateFields, mentions, offsetFor));
  // Numbers inside a written date or clock time are not quantities; "next 7 days" or "90天内" still are.
  const absolute = mentions.filter((m) => /\d{4}|[月号点:：]|\d\s*(?:am|pm)\b/i.test(m.text));
  const withoutDates = blank(
    rest,
    absolute.map((m) => ({ start: m.index, end: m.index + m.text.length })),
  );

  const placeFields: [string, PlaceField][] = [];
  for (const [name, p] of properties) {
    if (name in out) continue;
    const type = typeOf(p);
    if (type === 'string' && p.format === 'email') {
      if (emails.length > 0) out[name] = emails.shift()!;
    } else if (type === 'string' && (p.format === 'uri' || p.format === 'url')) {
      if (urls.length > 0) out[name] = urls.shift()!;
    } else if (type === 'array' && p.items && (p.items.format === 'uri' || p.items.format === 'url')) {
      if (urls.length > 0) out[name] = urls.splice(0, p.maxItems ?? urls.length);
    } else if (type === 'string' && Array.isArray(p.enum)) {
      const value = isTimeWindowEnum(p.enum) ? timeWindowFor(rest, p.enum) : enumValueLexical(rest, name, p);
      if (value !== undefined) out[name] = value;
    } else if (type === 'array' && p.items && Array.isArray(p.items.enum)) {
      const values = enumValuesLexical(rest, p.items).slice(0, p.maxItems ?? Infinity);
      if (values.length >= Math.max(1, p.minItems ?? 1)) out[name] = values;
    } else if (type === 'number' || type === 'integer') {
      const value = quantityFor(withoutDates, name, p);
      if (value !== undefined) out[name] = value;
    } else if (type === 'object' && addressParts(p)) {
      const phoneKey = [...(nested.get(name)?.keys() ?? [])][0];
      const address = extractAddress(rest, p, phoneKey ? nested.get(name)!.get(phoneKey) : undefined);
      if (address) out[name] = address;
    } else {
      const place = placeField(name, p);
      if (place) placeFields.push([name, place]);
      else if (isFreeText(p)) {
        const value = labelledText(rest, p, otherTerms(properties, name)) ?? nameFor(rest, p);
        if (value !== undefined) out[name] = value;
      }
    }
  }
  Object.assign(out, extractPlaces(rest, placeFields));

  for (const [name, value] of Object.entries(out)) {
    const p = properties.find(([n]) => n === name)![1];
    if (!valid(value, p)) delete out[name];
  }
  return out;
}

/**
 * The parameters the intent states for `schema`. With `embed`, enum properties that no word of the intent names
 * are matched by meaning, and taken only when one value is clearly closest.
 */
export async function extractParameters(
  intent: string,
  schema: unknown,
  options: ExtractionOptions = {},
): Promise<Extracted> {
  const out = extractParametersSync(intent, schema, options);
  const open = propertiesOf(schema).filter(
    ([name, p]) => !(name in out) && typeOf(p) === 'string' && Array.isArray(p.enum) && !isTimeWindowEnum(p.enum),
  );
  if (!options.embed || open.length === 0) return out;
  try {
    const query = await options.embed.embedQuery(normalise(intent));
    for (const [name, p] of open) {
      const value = await enumValueBySimilarity(query, p, options.embed);
      if (value !== undefined) out[name] = value;
    }
  } catch {
    // The model failed: what the words gave stands, and the caller is asked for the rest.
  }
  return out;
}

/**
 * Required parameters not in `params`: top-level names, and `object.field` for a required field of an object that
 * is present but incomplete (an address read without its province asks for `new_address.province`).
 */
export function missingRequired(schema: unknown, params: Record<string, unknown>): string[] {
  const required = (schema as ObjectSchema | undefined)?.required ?? [];
  const missing = required.filter((name) => params[name] === undefined);
  for (const [name, p] of propertiesOf(schema)) {
    const value = params[name];
    if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
    for (const field of p.required ?? [])
      if ((value as Record<string, unknown>)[field] === undefined) missing.push(`${name}.${field}`);
  }
  return missing;
}
