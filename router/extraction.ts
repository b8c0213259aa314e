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
import { addDays, datesIn, exampleOffset, formatDate, formatDateTime, todayOn, type DateMention } from './params/dates';
import { yearMonthsIn } from './params/year-months';
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
import { deliveryNote } from './params/delivery-note';
import { isFreeText, labelledText } from './params/free-text';
import { nameFor } from './params/names';
import { assignIdentifiers, isLooseIdentifier, type Slot, tokensIn } from './params/identifiers';
import { extractPlaces, placeField, type PlaceField } from './params/places';
import { quantityFor } from './params/quantities';
import {
  exampleKeys,
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

/**
 * Full-width digits, letters and the signs inside values (．－＠＋／＿＃) as ASCII, so "８９．９" is read as 89.9;
 * nothing changes length.
 */
function normalise(intent: string): string {
  return intent
    .slice(0, MAX_INTENT_CHARS)
    .replace(/[０-９Ａ-Ｚａ-ｚ．－＠＋／＿＃]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0));
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
    } else if (type === 'object')
      for (const key of exampleKeys(p)) {
        const keySchema = { type: 'string' };
        if (isLooseIdentifier(key, keySchema)) slots.push({ path: [name, key], schema: keySchema });
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

/** An end that is the last day itself ("Last day of leave, inclusive", "最后一天"), not the day after. */
function inclusiveEnd(p: PropertySchema): boolean {
  return /\b(?:last|inclusive)\b|最后|含当天|包含/i.test(`${p.title ?? ''} ${p.description ?? ''}`);
}

/** A stated span of days or weeks: "三天", "98 days", "两周", "two weeks". */
const SPAN_OF_DAYS =
  /(?:\d+|[一二两三四五六七八九十百]+|\b(?:two|three|four|five|six|seven|eight|nine|ten|fourteen|twenty|thirty))\s*(?:天|周|个星期|星期|days?\b|weeks?\b)/gi;

/** How many days the request says the span takes ("请三天病假", "for 98 days", "两周"), when it names one such span. */
function spanOfDays(text: string): number | undefined {
  const spans = text.match(SPAN_OF_DAYS) ?? [];
  if (spans.length !== 1) return undefined;
  const days = quantityFor(spans[0]!, 'span_days', { type: 'integer', minimum: 1, maximum: 366 });
  return days !== undefined && days > 1 ? days : undefined;
}

/**
 * Date and date-time properties filled from the mentions: a start/end pair takes a range or two dates, or its start
 * and a stated span of days.
 */
function assignDates(
  dateFields: [string, PropertySchema][],
  mentions: DateMention[],
  offsetFor: (p: PropertySchema) => number,
  text: string,
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
    const span = inclusiveEnd(end[1]) ? spanOfDays(text) : undefined;
    const last = first.end ?? mentions[1]?.start ?? (span ? addDays(first.start, span - 1) : first.start);
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
function assignYearMonths(
  properties: Properties,
  out: Extracted,
  text: string,
  options: Omit<ExtractionOptions, 'embed'>,
): string {
  let rest = text;
  const monthFields = properties.filter(
    ([name, p]) =>
      !(name in out) &&
      typeOf(p) === 'string' &&
      !!p.pattern &&
      stringFits('2024-06', p) &&
      !stringFits('2024-06-01', p),
  );
  const now = options.now ?? new Date();
  const today = todayOn(now, options.timeZoneOffsetMinutes ?? -now.getTimezoneOffset());
  const months = monthFields.length > 0 ? yearMonthsIn(rest, today) : [];
  monthFields.forEach(([name], i) => {
    const month = months[i];
    if (month) {
      out[name] = month.value;
      rest = blank(rest, [{ start: month.index, end: month.index + month.length }]);
    }
  });
  return rest;
}

type Properties = ReturnType<typeof propertiesOf>;

/**
 * Identifiers into `out` (each token to one property; an object's fields into `nested`, by object), and the text with
 * the tokens taken blanked, so the number and date readers do not see them.
 */
function assignIdentifierFields(text: string, properties: Properties, out: Extracted) {
  const ids = assignIdentifiers(text, slotsOf(properties));
  const nested = new Map<string, Map<string, string>>();
  for (const [key, value] of ids) {
    const [top, sub] = key.split('.');
    if (sub === undefined)
      out[top!] = typeOf(properties.find(([n]) => n === top)![1]) === 'integer' ? Number(value) : value;
    else nested.set(top!, (nested.get(top!) ?? new Map()).set(sub, value as string));
  }
  const usedValues = new Set([...ids.values()].flat());
  const rest = blank(
    text,
    tokensIn(text).filter((t) => usedValues.has(t.text)),
  );
  return { nested, rest };
}

/**
 * Date and date-time properties into `out`, and the text without the absolute dates and clock times (numbers inside
 * them are not quantities; "next 7 days" or "90天内" still are).
 */
function assignDateFields(
  properties: Properties,
  out: Extracted,
  rest: string,
  options: Omit<ExtractionOptions, 'embed'>,
): string {
  const now = options.now ?? new Date();
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
  Object.assign(out, assignDates(dateFields, mentions, offsetFor, rest));
  // A day on the calendar is taken; a span ("三个月内") is left for a property that counts days.
  const absolute = mentions.filter((m) => /\d{4}|(?<!个)月|[号点:：]|\d\s*(?:am|pm)\b/i.test(m.text));
  return blank(
    rest,
    absolute.map((m) => ({ start: m.index, end: m.index + m.text.length })),
  );
}

/** What the per-property readers read from: the text with taken spans blanked, and the e-mails and URLs found. */
interface Readings {
  /** The request as written (normalised): where the receiver's name is read, beside its phone number. */
  text: string;
  rest: string;
  withoutDates: string;
  emails: string[];
  urls: string[];
  nested: Map<string, Map<string, string>>;
}

/** Format, enum, number and address properties into `out`; place properties are returned, to be read together. */
function assignByType(properties: Properties, out: Extracted, r: Readings): [string, PlaceField][] {
  const placeFields: [string, PlaceField][] = [];
  for (const [name, p] of properties) {
    if (name in out) continue;
    const value = valueByType(name, p, r, properties);
    if (value === PLACE) placeFields.push([name, placeField(name, p)!]);
    else if (value !== undefined) out[name] = value;
  }
  return placeFields;
}

/** Marks a property read with the other place properties (places.ts). */
const PLACE = Symbol('place');

/** One property's value by its type and format; undefined when the text does not state it. */
function valueByType(name: string, p: PropertySchema, r: Readings, properties: Properties): unknown {
  const type = typeOf(p);
  const url = (s: PropertySchema) => s.format === 'uri' || s.format === 'url';
  if (type === 'string' && p.format === 'email') return r.emails.shift();
  if (type === 'string' && url(p)) return r.urls.shift();
  if (type === 'array' && p.items && url(p.items))
    return r.urls.length > 0 ? r.urls.splice(0, p.maxItems ?? r.urls.length) : undefined;
  if (type === 'string' && Array.isArray(p.enum))
    return isTimeWindowEnum(p.enum) ? timeWindowFor(r.rest, p.enum) : enumValueLexical(r.rest, name, p);
  if (type === 'array' && p.items && Array.isArray(p.items.enum)) {
    const values = enumValuesLexical(r.rest, p.items).slice(0, p.maxItems ?? Infinity);
    return values.length >= Math.max(1, p.minItems ?? 1) ? values : undefined;
  }
  if (type === 'number' || type === 'integer') return quantityFor(r.withoutDates, name, p);
  if (type === 'object' && addressParts(p)) {
    const phoneKey = [...(r.nested.get(name)?.keys() ?? [])][0];
    return extractAddress(r.rest, p, phoneKey ? r.nested.get(name)!.get(phoneKey) : undefined, r.text);
  }
  // An open map's keys from its example (slotsOf): the ids found under them.
  if (type === 'object' && !p.properties && r.nested.has(name)) return Object.fromEntries(r.nested.get(name)!);
  if (placeField(name, p)) return PLACE;
  if (isFreeText(p))
    return (
      labelledText(r.rest, p, otherTerms(properties, name)) ?? deliveryNote(r.rest, name, p) ?? nameFor(r.rest, p, name)
    );
  return undefined;
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

  // Identifiers first: each token goes to one property, and is hidden from the number and date readers.
  const ids = assignIdentifierFields(text, properties, out);
  const emails = [...text.matchAll(EMAIL)].map((m) => m[0]);
  const urls = [...text.matchAll(URL)].map((m) => m[0]);
  let rest = blank(
    ids.rest,
    [...ids.rest.matchAll(EMAIL), ...ids.rest.matchAll(URL)].map((m) => ({
      start: m.index!,
      end: m.index! + m[0].length,
    })),
  );
  rest = assignYearMonths(properties, out, rest, options);
  const withoutDates = assignDateFields(properties, out, rest, options);
  const placeFields = assignByType(properties, out, {
    text,
    rest,
    withoutDates,
    emails,
    urls,
    nested: ids.nested,
  });
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
