/**
 * From/to roles: which end of a trip a property is (from_city, origin, "IATA code of the departure airport";
 * to_city, destination, "目的城市") and which end a value written in the text is ("从A寄到B", "A→B", "A到B",
 * "from A to B", "A to B", "to B from A").
 */
import { hintOf, nameWords, type PropertySchema } from './schema';

export type Role = 'from' | 'to' | 'any';

const FROM_WORDS = ['from', 'origin', 'source', 'departure', 'depart', 'sender'];
const TO_WORDS = ['to', 'destination', 'dest', 'arrival', 'arrive', 'receiver'];

export function propertyRole(name: string, schema: PropertySchema): Role {
  const words = nameWords(name);
  const hint = hintOf(name, schema);
  if (words.some((w) => FROM_WORDS.includes(w)) || /始发|出发|寄出|发货地|\bdeparture\b|\borigin\b/.test(hint))
    return 'from';
  if (words.some((w) => TO_WORDS.includes(w)) || /目的|收货地|寄往|到达|\barrival\b|\bdestination\b/.test(hint))
    return 'to';
  return 'any';
}

const ZH_FROM_BEFORE = /[从由自]$/;
const FROM_AFTER = /^\s*(?:寄到|寄往|发到|发往|运到|送到|飞往|寄|发|飞|到|至|→|->|=>|—|-|~|to\b)/i;
const ZH_TO_BEFORE = /(?:寄到|寄往|发到|发往|运到|送到|飞往|寄|发|到|至|往|→|->|—|-|~)$/;
const EN_FROM_BEFORE = /\bfrom\s+$/i;
const EN_TO_BEFORE = /(?:\b(?:to|into)\s|->|→|=>)\s*$/i;

/** The role of the value written at text[start, end), from the words right around it. */
export function roleOf(text: string, start: number, end: number): Role {
  const before = text.slice(Math.max(0, start - 4), start);
  const wider = text.slice(Math.max(0, start - 6), start);
  const after = text.slice(end, end + 4);
  if (ZH_FROM_BEFORE.test(before) || EN_FROM_BEFORE.test(wider)) return 'from';
  if (ZH_TO_BEFORE.test(before) || EN_TO_BEFORE.test(wider)) return 'to';
  if (FROM_AFTER.test(after)) return 'from';
  return 'any';
}
