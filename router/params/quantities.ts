/**
 * A numeric property's value from the text: a number with a unit of the dimension the property measures,
 * converted to the property's unit ("6斤" → 3 for weight_kg, "72°F" → 22.2 for temperature_c); a count of what the
 * property counts ("4 guests", "两位", "party of six" for "Number of guests"); or a bare number right after a word
 * that names it ("退199", "amount 59.9", "temperature to 24"). Numbers without any of these are never taken:
 * "等了五天" says nothing about an amount.
 */
import { numbersIn, parseChineseNumber } from './numbers';
import { headTerm, nameWords, numberFits, type PropertySchema } from './schema';
import { convert, CURRENCY_PREFIX, type Scale, unitAfter, wantedUnit } from './units';

const MONEY_CUES = [
  '退款',
  '退还',
  '退',
  '金额',
  '价值',
  '值',
  '价格',
  '付了',
  '花了',
  '实付',
  '差价',
  '转账',
  '转',
  '汇款',
  '汇',
  '打款',
  'refund',
  'amount',
  'worth',
  'value',
  'price',
  'cost',
  'paid',
  'pay',
  'send',
  'transfer',
  'wire',
];

/** Nouns for people: a property counting guests, passengers or diners counts any of them. */
const PEOPLE = [
  'people',
  'person',
  'persons',
  'guest',
  'guests',
  'passenger',
  'passengers',
  'adult',
  'adults',
  'traveller',
  'travellers',
  'traveler',
  'travelers',
  'diner',
  'diners',
  'pax',
  'attendee',
  'attendees',
  'participant',
  'participants',
  'seat',
  'seats',
];
const PEOPLE_ZH = ['个人', '位', '人', '名'];
/** Before a number, these say it counts the party: "party of 6", "table for 4", "a group of ten". */
const PARTY_BEFORE = /\b(?:party of|group of|table for|booking for|room for|seats? for|for)\s*$/i;
const PHRASE_END = /^\s*(?:$|[,.;!?，。；！？]|(?:on|at|in|from|to|and|please|if|tonight|today|tomorrow)\b)/i;
/** After a number, these say the same: "four of us", "三个人". */
const PARTY_AFTER = /^\s*(?:of us\b|个人|人|位|名)/i;
/** Name words that say nothing about what is counted. */
const GENERIC = new Set([
  'number',
  'num',
  'count',
  'total',
  'size',
  'qty',
  'quantity',
  'of',
  'the',
  'max',
  'min',
  'how',
  'many',
  'much',
]);

const TIME_DIMENSIONS = new Set(['days', 'hours', 'minutes']);

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** Words (≥ 3 letters) of the name and description that name the property ("temperature", "amount", "guests"). */
function cueWords(name: string, schema: PropertySchema): string[] {
  const head = headTerm(schema);
  const words = nameWords(name).filter((w) => w.length >= 3 && !GENERIC.has(w));
  return [...words, ...(head && head.length <= 8 ? [head.toLowerCase()] : [])];
}

/** The cue words written right before `start`, allowing "is/to/at/of/为/是/:" between. */
function cuedBefore(text: string, start: number, cues: string[]): boolean {
  const before = text
    .slice(Math.max(0, start - 24), start)
    .toLowerCase()
    .replace(/[\s:：=]+$/u, '')
    .replace(/(?:\b(?:is|to|at|of|be)|[是为到成])$/u, '')
    .replace(/[\s:：]+$/u, '');
  return cues.some((cue) => before.endsWith(cue));
}

/** What a count property counts: its own nouns, and every word for people when it counts people. */
function countedNouns(name: string, schema: PropertySchema): { nouns: string[]; people: boolean } {
  const described = (schema.description ?? '').toLowerCase().match(/(?:number of|how many)\s+([a-z]+)/)?.[1];
  const nouns = [...nameWords(name).filter((w) => w.length >= 3 && !GENERIC.has(w)), ...(described ? [described] : [])];
  const people =
    nouns.some((n) => PEOPLE.includes(n) || n === 'party') || /人数|几个人|多少人|几位/.test(schema.description ?? '');
  return { nouns: people ? [...new Set([...nouns, ...PEOPLE])] : nouns, people };
}

function countAt(text: string, start: number, end: number, counted: { nouns: string[]; people: boolean }): boolean {
  const after = text.slice(end, end + 16).toLowerCase();
  const noun = after.match(/^\s*([a-z]+)/)?.[1];
  if (noun && counted.nouns.includes(noun)) return true;
  if (!counted.people) return false;
  if (PARTY_AFTER.test(after) || PEOPLE_ZH.some((w) => after.startsWith(w))) return true;
  // "table for 4", "room for one in Berlin": the number ends the phrase (no unit or other noun follows).
  return PARTY_BEFORE.test(text.slice(Math.max(0, start - 12), start)) && PHRASE_END.test(after);
}

const DIGIT = '[0-9零〇一二两三四五六七八九]';
/** "块五", "块5毛", "元5角": a tenth of the unit, when nothing but the end of the amount follows. */
const JIAO_AFTER_KUAI = new RegExp(`^(${DIGIT})(?:[毛角]钱?)?(?=$|[\\s，,。；;!！?？)）]|吧|啊|呢|的)`);
const JIAO_AFTER_YUAN = new RegExp(`^(${DIGIT})[毛角]`);

/** "59 dollars and 90 cents": the hundredths written after the unit. */
const CENTS_AFTER = /^,?\s+and\s+(\d{1,2})\s*(?:cents?|c)\b/i;

/**
 * What follows a unit and still belongs to the number: "两公斤半" (+½), "五十块五" / "三块五毛" (+0.5 元), "59 dollars
 * and 90 cents" (+0.90).
 */
function fractionAfter(text: string, unit: { dimension: string; end: number }): number {
  const rest = text.slice(unit.end, unit.end + 3);
  if (rest.startsWith('半')) return 0.5;
  const cents = unit.dimension === 'money' ? text.slice(unit.end, unit.end + 20).match(CENTS_AFTER) : null;
  if (cents) return Number(cents[1]) / 100;
  const word = text.charAt(unit.end - 1);
  const jiao = word === '块' ? rest.match(JIAO_AFTER_KUAI) : word === '元' ? rest.match(JIAO_AFTER_YUAN) : null;
  if (!jiao) return 0;
  const digit = /\d/.test(jiao[1]!) ? Number(jiao[1]) : parseChineseNumber(jiao[1]!);
  return digit === undefined ? 0 : digit / 10;
}

export function quantityFor(text: string, name: string, schema: PropertySchema): number | undefined {
  const wanted: Scale | undefined = wantedUnit(name, schema);
  if (!wanted) return undefined;
  const cues = [...(wanted.dimension === 'money' ? MONEY_CUES : []), ...cueWords(name, schema)];
  const counted = wanted.dimension === 'count' ? countedNouns(name, schema) : undefined;
  const candidates: { value: number; cued: boolean }[] = [];
  for (const n of numbersIn(text)) {
    const unit = unitAfter(text, n.end, wanted.dimension);
    const cued = cuedBefore(text, n.start, cues);
    if (counted && countAt(text, n.start, n.end, counted)) {
      candidates.push({ value: n.value, cued: true });
    } else if (unit) {
      if (unit.dimension !== wanted.dimension) continue;
      candidates.push({ value: round(convert(n.value + fractionAfter(text, unit), unit, wanted)), cued });
    } else if (wanted.dimension === 'money' && CURRENCY_PREFIX.test(text.slice(Math.max(0, n.start - 6), n.start))) {
      candidates.push({ value: n.value, cued: true });
    } else if (cued) {
      candidates.push({ value: n.value, cued });
    }
  }
  // "半公斤", "半斤": half of the unit.
  for (const half of text.matchAll(/(?<![\d零〇一二两三四五六七八九十百千万])半/g)) {
    const unit = unitAfter(text, half.index! + 1, wanted.dimension);
    if (unit?.dimension === wanted.dimension)
      candidates.push({ value: round(convert(0.5, unit, wanted)), cued: cuedBefore(text, half.index!, cues) });
  }
  // "for a month", "an hour": one of a unit of time.
  if (TIME_DIMENSIONS.has(wanted.dimension))
    for (const article of text.matchAll(/\ban?\b/gi)) {
      const unit = unitAfter(text, article.index! + article[0].length, wanted.dimension);
      if (unit?.dimension === wanted.dimension)
        candidates.push({ value: round(convert(1, unit, wanted)), cued: cuedBefore(text, article.index!, cues) });
    }
  const fitting = candidates.filter((c) => numberFits(c.value, schema));
  return (fitting.find((c) => c.cued) ?? fitting[0])?.value;
}
