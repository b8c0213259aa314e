/**
 * Enums whose values are clock ranges ("09:00-11:00", "15:00-17:00"): the caller writes "下午三点到五点",
 * "3-5pm" or "中午11点到1点", and the enum value is the window that holds the stated range (or time).
 */
import { parseChineseNumber } from './numbers';

type Range = [number, number];

const WINDOW = /^\s*(\d{1,2}):(\d{2})\s*[-–~至到]\s*(\d{1,2}):(\d{2})\s*$/;

export function parseWindow(value: string): Range | undefined {
  const m = value.match(WINDOW);
  return m ? [Number(m[1]) * 60 + Number(m[2]), Number(m[3]) * 60 + Number(m[4])] : undefined;
}

export function isTimeWindowEnum(values: unknown[]): values is string[] {
  return values.length > 0 && values.every((v) => typeof v === 'string' && parseWindow(v) !== undefined);
}

const PM = /下午|晚上|傍晚|晚|pm|p\.m\./i;
const NOON = /中午|noon/i;
const AM = /上午|早上|早晨|凌晨|am|a\.m\./i;

const NUM = '(\\d{1,2}|[一二两三四五六七八九十]{1,3})';
const PERIOD = '(上午|下午|中午|傍晚|晚上|早上|早晨|晚)?';
const ZH_TIME = `${PERIOD}\\s*${NUM}\\s*(?:点|:|：)\\s*(半|\\d{2}|[一二三四五]十分?)?`;
/** The start may leave its 点 to the end's: "9-11点", "三到五点". */
const ZH_START = `${PERIOD}\\s*${NUM}\\s*(?:(?:点|:|：)\\s*(半|\\d{2}|[一二三四五]十分?)?)?`;
const ZH_RANGE = new RegExp(`${ZH_START}\\s*(?:到|至|-|–|~)\\s*${ZH_TIME}`);
const EN_TIME = '(\\d{1,2})(?::(\\d{2}))?\\s*(am|pm|a\\.m\\.|p\\.m\\.)?';
const EN_RANGE = new RegExp(`\\b(?:between\\s+)?${EN_TIME}\\s*(?:-|–|to|until|till|and)\\s*${EN_TIME}`, 'i');
const ZH_SINGLE = new RegExp(`${PERIOD}\\s*${NUM}\\s*点\\s*(半)?`);
/** A part of the day written before an English range that has no am / pm of its own ("tomorrow afternoon 3 to 5"). */
const EN_PERIOD_BEFORE = /\b(morning|afternoon|evening|tonight)\b[^.;!?]*$/i;
const EN_PERIOD: Record<string, string> = { morning: 'am', afternoon: 'pm', evening: 'pm', tonight: 'pm' };
const EN_SINGLE = new RegExp(`\\b(?:at\\s+)?(\\d{1,2})(?::(\\d{2}))?\\s*(am|pm|a\\.m\\.|p\\.m\\.)`, 'i');

function hourOf(text: string): number {
  return /^\d+$/.test(text) ? Number(text) : (parseChineseNumber(text) ?? NaN);
}

function minuteOf(text: string | undefined): number {
  if (!text) return 0;
  if (text === '半') return 30;
  if (/^\d+$/.test(text)) return Number(text);
  return parseChineseNumber(text.replace(/分$/, '')) ?? 0;
}

/** Hour on a 24-hour clock, from a 12-hour reading and the part of the day written next to it. */
function to24(hour: number, period: string | undefined): number {
  if (!period) return hour;
  if (PM.test(period) && hour < 12) return hour + 12;
  if (NOON.test(period) && hour <= 2) return hour + 12;
  if (AM.test(period) && hour === 12) return 0;
  return hour;
}

/** The end of a range inherits the start's part of the day, and a smaller end hour means the afternoon. */
function settle(
  startHour: number,
  startPeriod: string | undefined,
  endHour: number,
  endPeriod: string | undefined,
): [number, number] {
  const start = to24(startHour, startPeriod);
  let end = to24(endHour, endPeriod ?? startPeriod);
  if (end <= start && end + 12 > start && end < 12) end += 12;
  return [start, end];
}

/**
 * The part of the day a range written without one belongs to: the last one written before it ("明天下午来取件，1点到3点
 * 之间"), else the afternoon for an hour no one is called on at night (1 to 6 o'clock).
 */
function periodBefore(before: string, startHour: number): string | undefined {
  const written = [...before.matchAll(/上午|下午|中午|傍晚|晚上|早上|早晨|凌晨/g)].at(-1)?.[0];
  return written ?? (startHour >= 1 && startHour <= 6 ? '下午' : undefined);
}

/** A stated clock range in minutes since midnight, or a single time as a zero-length range. */
export function statedRange(text: string): Range | undefined {
  const zh = text.match(ZH_RANGE);
  if (zh) {
    const period = zh[1] ?? zh[4] ?? periodBefore(text.slice(0, zh.index), hourOf(zh[2]!));
    const [s, e] = settle(hourOf(zh[2]!), period, hourOf(zh[5]!), zh[4]);
    return [s * 60 + minuteOf(zh[3]), e * 60 + minuteOf(zh[6])];
  }
  // The first range that says it is a time ("3-5pm", "9:00-11:00", "afternoon 3 to 5"), not a date's "09-10".
  const periodBeforeAt = (index: number) => text.slice(0, index).match(EN_PERIOD_BEFORE)?.[1];
  const en = [...text.matchAll(new RegExp(EN_RANGE.source, 'gi'))].find(
    (m) => m[3] || m[6] || m[2] || m[5] || periodBeforeAt(m.index),
  );
  if (en) {
    const before = periodBeforeAt(en.index);
    const period = en[3] ?? en[6] ?? (before && EN_PERIOD[before.toLowerCase()]);
    const [s, e] = settle(Number(en[1]), period, Number(en[4]), en[6]);
    return [s * 60 + Number(en[2] ?? 0), e * 60 + Number(en[5] ?? 0)];
  }
  const single = text.match(ZH_SINGLE);
  if (single) {
    const t = to24(hourOf(single[2]!), single[1]) * 60 + minuteOf(single[3]);
    return [t, t];
  }
  const enSingle = text.match(EN_SINGLE);
  if (enSingle) {
    const t = to24(Number(enSingle[1]), enSingle[3]) * 60 + Number(enSingle[2] ?? 0);
    return [t, t];
  }
  return undefined;
}

/** The one window that holds the stated range (start inclusive, end exclusive for a single time). */
export function timeWindowFor(text: string, values: string[]): string | undefined {
  const range = statedRange(text);
  if (!range || range.some((n) => !Number.isFinite(n))) return undefined;
  const [from, to] = range;
  const holding = values.filter((v) => {
    const [a, b] = parseWindow(v)!;
    return from === to ? a <= from && from < b : a <= from && to <= b;
  });
  return holding.length === 1 ? holding[0] : undefined;
}
