/**
 * Numbers as people write them: Arabic ("1,200", "1.5"), Chinese ("三十五", "两千", "一百二十", "1.5万", "3千"),
 * English words ("twenty one", "a dozen"), each with where it stands in the text.
 */

export interface NumberMention {
  value: number;
  start: number;
  end: number;
}

const DIGITS: Record<string, number> = {
  零: 0,
  〇: 0,
  一: 1,
  二: 2,
  两: 2,
  俩: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
};
const SMALL_UNITS: Record<string, number> = { 十: 10, 百: 100, 千: 1000 };
const BIG_UNITS: Record<string, number> = { 万: 10_000, 亿: 100_000_000 };

/**
 * A run of Chinese numerals ("一百二十", "两千零五", "十五", "三万五千") as a number; undefined when malformed. A last
 * digit right after a unit counts in the next unit down, as people say amounts ("一百五" 150, "两千五" 2,500, "一万二"
 * 12,000); after 零 it is ones ("一百零五" 105).
 */
export function parseChineseNumber(text: string): number | undefined {
  if (!text) return undefined;
  // "二零二四" style: digits only, read positionally; two digits alone ("两三", "三五") are a rough range, not 23.
  if ([...text].every((c) => c in DIGITS) && text.length > 1)
    return text.length === 2 ? undefined : Number([...text].map((c) => DIGITS[c]).join(''));
  let total = 0;
  let section = 0;
  let digit: number | undefined;
  /** The last unit read, and whether a 零 came after it. */
  let unit = 1;
  let zeroAfterUnit = false;
  for (const c of text) {
    if (c in DIGITS) {
      digit = DIGITS[c]!;
      if (digit === 0) zeroAfterUnit = true;
    } else if (c in SMALL_UNITS) {
      section += (digit ?? 1) * SMALL_UNITS[c]!;
      [digit, unit, zeroAfterUnit] = [undefined, SMALL_UNITS[c]!, false];
    } else if (c in BIG_UNITS) {
      total = (total + section + (digit ?? 0)) * BIG_UNITS[c]!;
      section = 0;
      [digit, unit, zeroAfterUnit] = [undefined, BIG_UNITS[c]!, false];
    } else {
      return undefined;
    }
  }
  const last = digit === undefined ? 0 : zeroAfterUnit || unit < 100 ? digit : (digit * unit) / 10;
  return total + section + last;
}

const ENGLISH: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
  dozen: 12,
  half: 0.5,
};
const ENGLISH_SCALES: Record<string, number> = { hundred: 100, thousand: 1000, million: 1_000_000 };

/** "twenty one" / "two hundred and five" / "a dozen" → number; undefined when the words are not a number. */
export function parseEnglishNumber(text: string): number | undefined {
  const words = text
    .toLowerCase()
    .split(/[\s-]+/)
    .filter((w) => w && w !== 'and' && w !== 'a');
  if (words.length === 0) return undefined;
  let total = 0;
  let current = 0;
  for (const w of words) {
    if (w in ENGLISH) current += ENGLISH[w]!;
    else if (w === 'hundred') current = (current || 1) * 100;
    else if (w in ENGLISH_SCALES) {
      total += (current || 1) * ENGLISH_SCALES[w]!;
      current = 0;
    } else return undefined;
  }
  return total + current;
}

// A unit may follow straight after ("5kg"), but a number never starts inside a word or an id ("E102345").
const ARABIC = /(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\d.])/g;
/** Arabic digits followed by a Chinese scale: "1.5万", "3千", "2百". */
const ARABIC_SCALED = /(?<![\w.])(\d+(?:\.\d+)?)\s*([十百千万亿])/g;
const CHINESE_RUN = /[零〇一二两俩三四五六七八九十百千万亿]+/g;
const ENGLISH_WORD = Object.keys(ENGLISH).concat(Object.keys(ENGLISH_SCALES)).join('|');
const ENGLISH_RUN = new RegExp(
  `\\b(?:an?\\s+)?(?:${ENGLISH_WORD})(?:(?:\\s+|-|\\s+and\\s+)(?:${ENGLISH_WORD}))*\\b`,
  'gi',
);

const SCALE: Record<string, number> = { 十: 10, 百: 100, 千: 1000, 万: 10_000, 亿: 100_000_000 };

/** Every number in the text, left to right; a mention never overlaps another. */
export function numbersIn(text: string): NumberMention[] {
  const found: NumberMention[] = [];
  const taken = (start: number, end: number) => found.some((m) => start < m.end && end > m.start);
  for (const m of text.matchAll(ARABIC_SCALED)) {
    found.push({ value: Number(m[1]) * SCALE[m[2]!]!, start: m.index!, end: m.index! + m[0].length });
  }
  for (const m of text.matchAll(ARABIC)) {
    const start = m.index!;
    const end = start + m[0].length;
    if (!taken(start, end)) found.push({ value: Number(`${m[1]!.replace(/,/g, '')}${m[2] ?? ''}`), start, end });
  }
  for (const m of text.matchAll(CHINESE_RUN)) {
    const value = parseChineseNumber(m[0]);
    const start = m.index!;
    if (value !== undefined && !taken(start, start + m[0].length))
      found.push({ value, start, end: start + m[0].length });
  }
  for (const m of text.matchAll(ENGLISH_RUN)) {
    const value = parseEnglishNumber(m[0]);
    const start = m.index!;
    if (value !== undefined && !taken(start, start + m[0].length))
      found.push({ value, start, end: start + m[0].length });
  }
  return found.sort((a, b) => a.start - b.start);
}
