/**
 * Place-name properties (city, region, from_city/to_city): Chinese names from the gazetteer, English ones as
 * capitalised words after "in/for/from/to…" (or before "weather"). Roles come from the words around them:
 * "从A寄到B", "A到B", "A→B", "from A to B", "A同城". Values are written as the caller wrote them.
 */
import { placesIn, type Place } from './gazetteer';
import { propertyRole, type Role, roleOf } from './roles';
import { CJK, hintOf, nameWords, type PropertySchema, typeOf } from './schema';

type Wanted = 'city' | 'province' | 'region';

export interface PlaceField {
  role: Role;
  wants: Wanted;
}

/** Whether a property takes a place name, which kind, and in which role. */
export function placeField(name: string, schema: PropertySchema): PlaceField | undefined {
  if (typeOf(schema) !== 'string' || schema.enum || schema.pattern || schema.format) return undefined;
  const words = nameWords(name);
  const hint = hintOf(name, schema);
  let wants: Wanted | undefined;
  if (words.includes('city') || /城市/.test(hint)) wants = 'city';
  else if (words.includes('province') || /^省/.test(schema.description ?? '')) wants = 'province';
  else if (
    words.some((w) => ['region', 'location', 'place', 'area', 'destination', 'origin'].includes(w)) ||
    /地区|区域|地点/.test(hint)
  )
    wants = 'region';
  if (!wants || words.includes('address') || /地址/.test(hint)) return undefined;
  return { role: propertyRole(name, schema), wants };
}

interface Mention {
  text: string;
  start: number;
  end: number;
  /** Gazetteer entries for Chinese names; English names are unknown places of any kind. */
  places?: Place[];
}

/** Capitalised words that open a sentence or name a day, never a place. */
export const NOT_PLACES = new Set([
  'I',
  'I’m',
  "I'm",
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
  'Sunday',
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
  'Please',
  'Thanks',
  'What',
  'How',
  'Is',
  'Are',
  'Will',
  'Can',
  'Could',
  'Do',
  'Does',
  'Any',
  'The',
  'My',
  'Hi',
  'Hello',
  'Hey',
  'Order',
]);
const EN_NAME = "[A-Z][a-z'’-]+(?:\\s+[A-Z][a-z'’-]+){0,2}";
const EN_AFTER_PREPOSITION = new RegExp(`\\b(?:in|for|at|to|from|near|around|of)\\s+(${EN_NAME})`, 'g');
// Case-sensitive on purpose: a place is a capitalised word; the topic words around it are matched in either case.
const TOPIC =
  '[Ww]eather|[Ff]orecast|[Ff]orcast|[Tt]emperature|AQI|aqi|[Aa]ir|PM2\\.5|now|today|tomorrow|[Aa]lerts?|[Ww]arnings?';
const EN_BEFORE_TOPIC = new RegExp(`(?:^|[\\s,])(${EN_NAME})(?=\\s+(?:${TOPIC})\\b)`, 'g');
const EN_AFTER_TOPIC = new RegExp(`\\b(?:${TOPIC})\\s+(${EN_NAME})`, 'g');
/** The two ends of a trip written with an arrow: "Chongqing -> Tianjin", "Chongqing→Tianjin". */
const EN_BEFORE_ARROW = new RegExp(`(?:^|[\\s,])(${EN_NAME})(?=\\s*(?:->|→|=>)\\s*[A-Z])`, 'g');
const EN_AFTER_ARROW = new RegExp(`(?:->|→|=>)\\s*(${EN_NAME})`, 'g');
/** The start of a trip written "Chengdu to Xi'an", without "from". */
const EN_BEFORE_TO = new RegExp(`(?:^|[\\s,])(${EN_NAME})(?=\\s+to\\s+[A-Z])`, 'g');

function englishMentions(text: string): Mention[] {
  const found: Mention[] = [];
  for (const re of [
    EN_AFTER_PREPOSITION,
    EN_BEFORE_TOPIC,
    EN_AFTER_TOPIC,
    EN_BEFORE_ARROW,
    EN_AFTER_ARROW,
    EN_BEFORE_TO,
  ]) {
    for (const m of text.matchAll(re)) {
      const name = m[1]!;
      if (!/^[A-Z]/.test(name) || NOT_PLACES.has(name.split(/\s+/)[0]!)) continue;
      const start = m.index! + m[0].indexOf(name);
      if (!found.some((f) => f.start === start)) found.push({ text: name, start, end: start + name.length });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

function accepts(mention: Mention, wants: Wanted): boolean {
  if (!mention.places) return true;
  return mention.places.some((p) =>
    wants === 'region'
      ? true
      : wants === 'province'
        ? p.level === 'province'
        : p.level === 'city' || (p.level === 'province' && !!p.municipality),
  );
}

/** Values for the place fields of one schema, by property name. */
export function extractPlaces(text: string, fields: [string, PlaceField][]): Record<string, string> {
  if (fields.length === 0) return {};
  const mentions: Mention[] = CJK.test(text)
    ? placesIn(text).map((p) => ({ text: p.text, start: p.start, end: p.end, places: p.candidates }))
    : [];
  mentions.push(...englishMentions(text));
  const out: Record<string, string> = {};
  const hasRoles = fields.some(([, f]) => f.role !== 'any');
  if (!hasRoles) {
    for (const [name, field] of fields) {
      const m = mentions.find((x) => accepts(x, field.wants));
      if (m) out[name] = m.text;
    }
    return out;
  }
  const roles = mentions.map((m) => ({ m, role: roleOf(text, m.start, m.end) }));
  for (const [name, field] of fields) {
    const m = roles.find((r) => r.role === field.role && accepts(r.m, field.wants))?.m;
    if (m) out[name] = m.text;
  }
  // "广州同城" / "within Guangzhou": the same city at both ends.
  const from = fields.find(([, f]) => f.role === 'from')?.[0];
  const to = fields.find(([, f]) => f.role === 'to')?.[0];
  if (from && to && mentions.length === 1 && /同城|same city|within the city/i.test(text)) {
    out[from] = mentions[0]!.text;
    out[to] = mentions[0]!.text;
  }
  return out;
}
