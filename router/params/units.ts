/**
 * Units that follow a number, what they measure and their size in that dimension's base unit, and which unit a
 * property wants (from its name and description: "weight_kg", "重量（公斤）", "金额（元）", "Number of days",
 * "Target temperature in degrees Celsius").
 */
import { hintOf, nameWords, type PropertySchema } from './schema';

export type Dimension = 'mass' | 'money' | 'days' | 'hours' | 'minutes' | 'count' | 'temperature';

export interface Scale {
  dimension: Dimension;
  /** base = (value + offset) × factor; the base units are kg, one currency unit, a day, an hour, a minute, one
   * item, a degree Celsius. */
  factor: number;
  offset?: number;
}

interface Unit extends Scale {
  words: string[];
}

const UNITS: Unit[] = [
  { dimension: 'mass', factor: 1, words: ['kg', 'kgs', '公斤', '千克', 'kilogram', 'kilograms', 'kilo', 'kilos'] },
  { dimension: 'mass', factor: 0.5, words: ['斤'] },
  { dimension: 'mass', factor: 0.001, words: ['g', 'gram', 'grams', '克'] },
  { dimension: 'mass', factor: 0.45359237, words: ['lb', 'lbs', 'pound', 'pounds', '磅'] },
  // Money is never converted between currencies: "35 bucks" for a 元 field is 35 as the caller meant it.
  {
    dimension: 'money',
    factor: 1,
    words: [
      '元',
      '块钱',
      '块',
      'yuan',
      'rmb',
      'cny',
      'dollars',
      'dollar',
      'bucks',
      'usd',
      'quid',
      'euros',
      'euro',
      'eur',
      'pounds',
      'pound',
      'gbp',
      '美元',
      '欧元',
      '英镑',
    ],
  },
  { dimension: 'money', factor: 0.1, words: ['毛钱', '毛', '角'] },
  // Thousands and ten-thousands as chat writes them: "1.2k", "3w" (万).
  { dimension: 'money', factor: 1000, words: ['k'] },
  { dimension: 'money', factor: 10_000, words: ['w'] },
  { dimension: 'days', factor: 1, words: ['天', '日', 'days', 'day'] },
  { dimension: 'days', factor: 7, words: ['周', '个星期', '星期', '礼拜', 'weeks', 'week'] },
  // A month is read as 30 days and a year as 365, as a person setting "一个月" or "a year" means them.
  { dimension: 'days', factor: 30, words: ['个月', 'months', 'month'] },
  { dimension: 'days', factor: 365, words: ['年', 'years', 'year'] },
  { dimension: 'hours', factor: 1, words: ['个小时', '小时', '钟头', 'hours', 'hour', 'hrs', 'hr', 'h'] },
  { dimension: 'minutes', factor: 1, words: ['分钟', 'minutes', 'minute', 'mins', 'min'] },
  {
    dimension: 'count',
    factor: 1,
    words: [
      '个',
      '件',
      '台',
      '盒',
      '箱',
      '包',
      '瓶',
      '张',
      '份',
      '只',
      '双',
      '套',
      'pcs',
      'pieces',
      'items',
      'units',
      'boxes',
      'x',
    ],
  },
  {
    dimension: 'temperature',
    factor: 1,
    words: ['°c', '℃', '摄氏度', 'degrees celsius', 'degree celsius', 'celsius', 'degrees', 'degree', '度', 'c'],
  },
  {
    dimension: 'temperature',
    factor: 5 / 9,
    offset: -32,
    words: ['°f', '℉', '华氏度', 'degrees fahrenheit', 'fahrenheit', 'f'],
  },
];

/** Currency signs and codes stand before the number ("¥45", "RMB 45", "USD12.5"). */
export const CURRENCY_PREFIX = /(?:[¥￥$€£]|\b(?:rmb|cny|usd|eur|gbp|hkd))\s*$/i;

const SORTED = UNITS.flatMap((u) => u.words.map((w) => ({ unit: u, word: w }))).sort(
  (a, b) => b.word.length - a.word.length,
);

/**
 * The unit written right after position `end` (spaces and a hyphen allowed: "3-day"), with how far it reaches. A
 * word of two dimensions ("pounds") is read in the `preferred` one when it can be.
 */
export function unitAfter(text: string, end: number, preferred?: Dimension): (Scale & { end: number }) | undefined {
  const rest = text.slice(end, end + 20);
  const lead = rest.length - rest.replace(/^\s*-?\s*/, '').length;
  const lower = rest.slice(lead).toLowerCase();
  let found: { unit: Unit; word: string } | undefined;
  for (const entry of SORTED) {
    const { word } = entry;
    if (found && word.length < found.word.length) break;
    if (!lower.startsWith(word)) continue;
    // Latin units must end at a word boundary: "5 days" yes, "5 dayson" no, "3 g" yes, "3 go" no.
    if (/[a-z]$/.test(word) && /[a-z]/i.test(lower.charAt(word.length))) continue;
    if (!found || entry.unit.dimension === preferred) found = entry;
  }
  if (!found) return undefined;
  const { dimension, factor, offset } = found.unit;
  return { dimension, factor, ...(offset !== undefined ? { offset } : {}), end: end + lead + found.word.length };
}

/** A value in one unit of a dimension converted to another unit of it. */
export function convert(value: number, from: Scale, to: Scale): number {
  const base = (value + (from.offset ?? 0)) * from.factor;
  return base / to.factor - (to.offset ?? 0);
}

/** What a numeric property measures and in which unit, judged from its name and description. */
export function wantedUnit(name: string, schema: PropertySchema): Scale | undefined {
  const hint = hintOf(name, schema);
  const words = new Set(nameWords(name));
  if (/weight|重量|kg|公斤|千克|体重|mass/.test(hint)) {
    if (words.has('g') || words.has('grams') || /（克）|\(克\)|in grams/.test(hint))
      return { dimension: 'mass', factor: 0.001 };
    if (words.has('lb') || words.has('lbs') || /pounds/.test(hint)) return { dimension: 'mass', factor: 0.45359237 };
    return { dimension: 'mass', factor: 1 };
  }
  if (/temperature|\btemp\b|celsius|fahrenheit|温度|气温|摄氏|华氏/.test(hint)) {
    return words.has('f') || /fahrenheit|华氏/.test(hint)
      ? { dimension: 'temperature', factor: 5 / 9, offset: -32 }
      : { dimension: 'temperature', factor: 1 };
  }
  if (/amount|price|cost|fee|money|value|金额|价格|价值|费用|金钱|元|refund|退款|payment|支付/.test(hint))
    return { dimension: 'money', factor: 1 };
  if (/hours?\b|小时/.test(hint)) return { dimension: 'hours', factor: 1 };
  if (/minutes?\b|分钟/.test(hint)) return { dimension: 'minutes', factor: 1 };
  if (/days?\b|天数|天/.test(hint)) return { dimension: 'days', factor: 1 };
  if (/weeks?\b|周数/.test(hint)) return { dimension: 'days', factor: 7 };
  if (/count|quantity|number of|how many|数量|件数|个数|人数|多少人|几个人|qty/.test(hint))
    return { dimension: 'count', factor: 1 };
  return undefined;
}
