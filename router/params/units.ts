/**
 * Units that follow a number, what they measure and their size in that dimension's base unit, and which unit a
 * property wants (from its name and description: "weight_kg", "重量（公斤）", "金额（元）", "Number of days").
 */
import { hintOf, nameWords, type PropertySchema } from './schema';

export type Dimension = 'mass' | 'money' | 'days' | 'hours' | 'minutes' | 'count';

interface Unit {
  dimension: Dimension;
  /** Size in the dimension's base unit: kg, a currency unit, a day, an hour, a minute, one item. */
  factor: number;
  words: string[];
}

const UNITS: Unit[] = [
  { dimension: 'mass', factor: 1, words: ['kg', 'kgs', '公斤', '千克', 'kilogram', 'kilograms', 'kilo', 'kilos'] },
  { dimension: 'mass', factor: 0.5, words: ['斤'] },
  { dimension: 'mass', factor: 0.001, words: ['g', 'gram', 'grams', '克'] },
  { dimension: 'mass', factor: 0.45359237, words: ['lb', 'lbs', 'pound', 'pounds', '磅'] },
  // Money is never converted between currencies: "35 bucks" for a 元 field is 35 as the caller meant it.
  { dimension: 'money', factor: 1, words: ['元', '块钱', '块', 'yuan', 'rmb', 'cny', 'rmb', 'dollars', 'dollar', 'bucks', 'usd', 'quid', 'euros', 'eur'] },
  { dimension: 'money', factor: 0.1, words: ['毛钱', '毛', '角'] },
  { dimension: 'days', factor: 1, words: ['天', '日', 'days', 'day'] },
  { dimension: 'days', factor: 7, words: ['周', '个星期', '星期', '礼拜', 'weeks', 'week'] },
  { dimension: 'hours', factor: 1, words: ['个小时', '小时', '钟头', 'hours', 'hour', 'hrs', 'hr', 'h'] },
  { dimension: 'minutes', factor: 1, words: ['分钟', 'minutes', 'minute', 'mins', 'min'] },
  { dimension: 'count', factor: 1, words: ['个', '件', '台', '盒', '箱', '包', '瓶', '张', '份', '只', '双', '套', 'pcs', 'pieces', 'items', 'units', 'boxes', 'x'] },
];

/** Currency signs stand before the number. */
export const CURRENCY_PREFIX = /[¥￥$€£]\s*$/;

const SORTED = UNITS.flatMap((u) => u.words.map((w) => ({ unit: u, word: w }))).sort((a, b) => b.word.length - a.word.length);

/** The unit written right after position `end` (spaces allowed), with how far it reaches. */
export function unitAfter(text: string, end: number): { dimension: Dimension; factor: number; end: number } | undefined {
  const rest = text.slice(end, end + 12);
  const lead = rest.length - rest.trimStart().length;
  const lower = rest.slice(lead).toLowerCase();
  for (const { unit, word } of SORTED) {
    if (!lower.startsWith(word)) continue;
    // Latin units must end at a word boundary: "5 days" yes, "5 dayson" no, "3 g" yes, "3 go" no.
    if (/[a-z]$/.test(word) && /[a-z]/i.test(lower.charAt(word.length))) continue;
    return { dimension: unit.dimension, factor: unit.factor, end: end + lead + word.length };
  }
  return undefined;
}

/** What a numeric property measures and in which unit, judged from its name and description. */
export function wantedUnit(name: string, schema: PropertySchema): { dimension: Dimension; factor: number } | undefined {
  const hint = hintOf(name, schema);
  const words = new Set(nameWords(name));
  if (/weight|重量|kg|公斤|千克|体重|mass/.test(hint)) {
    if (words.has('g') || words.has('grams') || /（克）|\(克\)|in grams/.test(hint)) return { dimension: 'mass', factor: 0.001 };
    if (words.has('lb') || words.has('lbs') || /pounds/.test(hint)) return { dimension: 'mass', factor: 0.45359237 };
    return { dimension: 'mass', factor: 1 };
  }
  if (/amount|price|cost|fee|money|value|金额|价格|价值|费用|金钱|元|refund|退款|payment|支付/.test(hint)) return { dimension: 'money', factor: 1 };
  if (/hours?\b|小时/.test(hint)) return { dimension: 'hours', factor: 1 };
  if (/minutes?\b|分钟/.test(hint)) return { dimension: 'minutes', factor: 1 };
  if (/days?\b|天数|天/.test(hint)) return { dimension: 'days', factor: 1 };
  if (/weeks?\b|周数/.test(hint)) return { dimension: 'days', factor: 7 };
  if (/count|quantity|number of|数量|件数|个数|qty/.test(hint)) return { dimension: 'count', factor: 1 };
  return undefined;
}
