/**
 * Months as "YYYY-MM" (a pay period, a billing month): named with their year ("2024年7月", "June 2024", "2024/07"),
 * from this month ("上个月", "last month") or alone ("2月份的工资", "my February pay"), by the caller's clock.
 */
import { pad, shiftMonth } from './dates';

const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** "2024年7月", "2024-07", "2024/7" — but not a whole date ("2024年7月5日", "2024-07-05"). */
const NUMERIC_YEAR_MONTH =
  /(?<![\d.])((?:19|20)\d{2})\s*(?:年|[-/.])\s*(\d{1,2})(?:\s*月份?(?!\s*\d)|(?!\s*[月\d]|\s*[-/.]\s*\d))/g;
/** "June 2024", "Jul 2024", "2024 June". */
const NAMED_YEAR_MONTH = new RegExp(
  `\\b(?:(${MONTH_NAMES.join('|')})[a-z]*\\.?,?\\s+((?:19|20)\\d{2})|((?:19|20)\\d{2})\\s+(${MONTH_NAMES.join('|')})[a-z]*)\\b`,
  'gi',
);

/** A month named from this one: "上个月", "本月", "last month", "the month before last". */
const RELATIVE_MONTH = /(上上|上|这|本|下)个?月|\b(last|this|next)\s+month\b|\bthe\s+month\s+before\s+last\b/gi;
const RELATIVE_MONTH_STEP: Record<string, number> = {
  上上: -2,
  上: -1,
  这: 0,
  本: 0,
  下: 1,
  last: -1,
  this: 0,
  next: 1,
};

const ZH_MONTH_NUMERALS = ['一', '二', '三', '四', '五', '六', '七', '八', '九', '十', '十一', '十二'];
/** "2月份", "三月的工资" — a month without its year, and not a day of it ("2月5号"), nor a span ("三个月"). */
const ZH_BARE_MONTH = new RegExp(
  `(?<![\\d年个上下本这每几数多半两零〇一二三四五六七八九十])(1[0-2]|0?[1-9]|${[...ZH_MONTH_NUMERALS].reverse().join('|')})月份?(?!\\s*[\\d一二三四五六七八九十]|\\s*[号日底初中])`,
  'g',
);
/** "February", "my Feb payslip" — not a date ("Feb 5", "5 February", "February 2025"). */
const EN_BARE_MONTH = /(?<!\d(?:st|nd|rd|th)?\s+(?:of\s+)?)\b([a-z]+)\b\.?(?!\s*,?\s*\d)/gi;
/** The spellings of English months taken alone; "may" only as "May" (it is mostly a verb). */
const MONTH_WORDS = [
  ['jan', 'january'],
  ['feb', 'february'],
  ['mar', 'march'],
  ['apr', 'april'],
  ['May'],
  ['jun', 'june'],
  ['jul', 'july'],
  ['aug', 'august'],
  ['sep', 'sept', 'september'],
  ['oct', 'october'],
  ['nov', 'november'],
  ['dec', 'december'],
];

function englishMonth(word: string): number {
  const index = MONTH_WORDS.findIndex((spellings) =>
    spellings.some((s) => (s === 'May' ? word === s : word.toLowerCase() === s)),
  );
  return index + 1;
}

/** The latest month of that number up to this one: a month named without its year is one gone by, or this one. */
function recentMonth(month: number, today: { year: number; month: number }): string {
  return `${month <= today.month ? today.year : today.year - 1}-${pad(month)}`;
}

type MonthFound = { value: string; index: number; length: number };

/** Months named without their year: "2月份的工资", "my February pay". */
function bareMonths(text: string, today: { year: number; month: number }): MonthFound[] {
  const found: MonthFound[] = [];
  for (const m of text.matchAll(ZH_BARE_MONTH)) {
    const month = /\d/.test(m[1]!) ? Number(m[1]) : ZH_MONTH_NUMERALS.indexOf(m[1]!) + 1;
    found.push({ value: recentMonth(month, today), index: m.index!, length: m[0].length });
  }
  for (const m of text.matchAll(EN_BARE_MONTH)) {
    const month = englishMonth(m[1]!);
    const asks = m[1] === 'May' && /^\s+(?:i|we|you|he|she|they)\b/i.test(text.slice(m.index! + m[0].length));
    if (month > 0 && !asks) found.push({ value: recentMonth(month, today), index: m.index!, length: m[0].length });
  }
  return found;
}

/**
 * Months as "YYYY-MM", left to right: named with their year ("2025年2月", "February 2025"), from this month
 * ("上个月的工资", "last month"), or alone ("2月份的工资", "my February pay": the latest such month up to this one),
 * by the caller's clock: `today`'s year and month.
 */
export function yearMonthsIn(text: string, today?: { year: number; month: number }): MonthFound[] {
  const found: MonthFound[] = [];
  if (today)
    for (const m of text.matchAll(RELATIVE_MONTH)) {
      const step = m[1] ?? m[2]?.toLowerCase();
      const { year, month } = shiftMonth(today, step ? RELATIVE_MONTH_STEP[step]! : -2);
      const value = `${year}-${pad(month)}`;
      found.push({ value, index: m.index!, length: m[0].length });
    }
  for (const m of text.matchAll(NUMERIC_YEAR_MONTH)) {
    const month = Number(m[2]);
    if (month >= 1 && month <= 12) found.push({ value: `${m[1]}-${pad(month)}`, index: m.index!, length: m[0].length });
  }
  for (const m of text.matchAll(NAMED_YEAR_MONTH)) {
    const name = (m[1] ?? m[4])!.toLowerCase();
    found.push({
      value: `${m[2] ?? m[3]}-${pad(MONTH_NAMES.indexOf(name) + 1)}`,
      index: m.index!,
      length: m[0].length,
    });
  }
  if (today)
    for (const bare of bareMonths(text, today))
      if (!found.some((f) => bare.index < f.index + f.length && bare.index + bare.length > f.index)) found.push(bare);
  return found.sort((a, b) => a.index - b.index);
}
