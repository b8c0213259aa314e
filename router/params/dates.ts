/**
 * Dates and times in Chinese and English, absolute ("2024-09-14", "2024年9月6日", "Oct 8") or relative ("明天",
 * "下周三", "next Friday", "tomorrow 3pm"), resolved against an injected `now` by chrono-node, and written the
 * way a schema's `format` wants (date → YYYY-MM-DD, date-time → ISO 8601 with an offset).
 */
import * as chrono from 'chrono-node';
import { parseChineseNumber } from './numbers';
import { CJK } from './schema';

export interface DateParts {
  year: number;
  month: number;
  day: number;
  /** Present only when the text states a time of day. */
  hour?: number;
  minute?: number;
}

export interface DateMention {
  start: DateParts;
  end?: DateParts;
  index: number;
  text: string;
}

/** Numeric dates are certain; chrono is asked only about the rest. */
const NUMERIC_DATE = /(?<!\d)(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})(?!\d)\s*[日号]?/g;

/** A range of days in one month, the month written once (the year too, when written). */
const ZH_DAY_RANGE =
  /(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]?\s*(?:到|至|-|~|—|–)\s*(\d{1,2})\s*[日号]/g;

export function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** The month `step` months after (before, when negative) the given one. */
export function shiftMonth(from: { year: number; month: number }, step: number): { year: number; month: number } {
  const index = from.year * 12 + from.month - 1 + step;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
}

function partsOf(component: chrono.ParsedComponents): DateParts {
  const parts: DateParts = { year: component.get('year')!, month: component.get('month')!, day: component.get('day')! };
  if (component.isCertain('hour')) {
    parts.hour = component.get('hour')!;
    parts.minute = component.get('minute') ?? 0;
  }
  return parts;
}

const ZH_WEEKDAY = /(?:周|星期|礼拜)([一二三四五六日天])/;
const WEEKDAY_INDEX: Record<string, number> = { 日: 0, 天: 0, 一: 1, 二: 2, 三: 3, 四: 4, 五: 5, 六: 6 };

/**
 * chrono's Chinese parser drops the weekday when a time of day follows it ("周五下午" came back as today's
 * afternoon in 2.10.3): when the day it gives is not the weekday written, the weekday alone decides the day.
 */
function fixZhWeekday(result: chrono.ParsedResult, ref: { instant: Date }): DateParts {
  const parts = partsOf(result.start);
  const weekday = result.text.match(ZH_WEEKDAY);
  if (!weekday) return parts;
  const written = WEEKDAY_INDEX[weekday[1]!]!;
  const actual = new Date(Date.UTC(parts.year, parts.month - 1, parts.day)).getUTCDay();
  if (actual === written) return parts;
  const alone = chrono.zh.hans.parse(result.text.slice(0, (weekday.index ?? 0) + weekday[0].length), ref, {
    forwardDate: true,
  })[0];
  if (!alone) return parts;
  return { ...parts, year: alone.start.get('year')!, month: alone.start.get('month')!, day: alone.start.get('day')! };
}

/**
 * "for two weeks", "5 days": how long, not when — chrono reads a bare duration as that far ahead ("no updates for
 * two weeks" would be a date two weeks from now). "in two weeks", "two weeks ago", "3 days later" keep their date.
 */
const EN_DURATION =
  /^(?:for\s+)?(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|few|a couple of|couple of|several|\d+)\s+(?:minutes?|hours?|days?|weeks?|months?|years?)$/i;

/**
 * A part of the day alone ("下午" in "下周三下午"): chrono reads it as today's, though it belongs to the day written
 * before it, or to none. With its hour ("下午三点") it is a time and stays.
 */
const ZH_PART_OF_DAY = /^(?:上午|下午|中午|晚上|早上|早晨|傍晚|凌晨|夜里|夜间)$/;

/** What joins the two ends of a range of dates ("4月14号到4月16号", "Apr 14 2025 to Apr 16"). */
const RANGE_JOIN = /^\s*(?:到|至|-|~|—|–|to|until|till|through|thru)\s*$/i;

/**
 * The end of a range written without its year takes the year of its start ("2025年4月14号到4月16号" ends in 2025,
 * not in the next 16 April from today); the next year when it would fall before the start.
 */
function yearOfRangeStart(text: string, sorted: DateMention[], yearless: Set<DateMention>): void {
  for (let i = 1; i < sorted.length; i++) {
    const [before, end] = [sorted[i - 1]!, sorted[i]!];
    if (!yearless.has(end)) continue;
    if (!RANGE_JOIN.test(text.slice(before.index + before.text.length, end.index))) continue;
    const from = before.end ?? before.start;
    end.start = { ...end.start, year: yearAfter(from, end.start) };
  }
}

/** The year of a range's end written without one: its start's, or the next when the day falls before the start. */
function yearAfter(start: { year: number; month: number; day: number }, end: { month: number; day: number }): number {
  return end.month * 100 + end.day < start.month * 100 + start.day ? start.year + 1 : start.year;
}

/** Today's date on the caller's calendar. */
type Today = { year: number; month: number; day: number };

const DAY_MS = 86_400_000;

function dayNumber(parts: { year: number; month: number; day: number }): number {
  return Date.UTC(parts.year, parts.month - 1, parts.day) / DAY_MS;
}

/** How far back a day written without its year may lie: a person names a recent day without its year. */
const RECENT_PAST_DAYS = 62;

/**
 * A day of a month written without its year is the next such day, unless it was within the last two months: "last
 * seen on March 3" on 12 March is nine days ago, not next year, while "10月8号" in March is this October. (chrono,
 * asked for forward dates so that "周五" is the coming Friday, puts every one of them ahead.)
 */
function yearOfDay(month: number, day: number, today: Today): number {
  const ago = dayNumber(today) - dayNumber({ year: today.year, month, day });
  if (ago <= 0) return today.year;
  return ago <= RECENT_PAST_DAYS ? today.year : today.year + 1;
}

export function addDays(parts: DateParts, days: number): DateParts {
  const date = new Date((dayNumber(parts) + days) * DAY_MS);
  return { ...parts, year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

/** "下个月5号", "上个月3号到5号", "本月20日": a day of a month named from this one. */
const ZH_RELATIVE_MONTH_DAY =
  /(下下|下|上|这|本)个?月\s*(\d{1,2}|[一二三四五六七八九十]{1,3})\s*[日号](?:\s*(?:到|至|-|~|—|–)\s*(\d{1,2}|[一二三四五六七八九十]{1,3})\s*[日号])?/g;
const MONTH_STEP: Record<string, number> = { 下下: 2, 下: 1, 上: -1, 这: 0, 本: 0 };

function dayOfMonth(text: string): number | undefined {
  const value = /^\d+$/.test(text) ? Number(text) : parseChineseNumber(text);
  return value !== undefined && value >= 1 && value <= 31 ? value : undefined;
}

/** A weekday named alone ("周五", "Friday"), with no week of its own ("下周五", "next Friday" name theirs). */
const BARE_WEEKDAY = /^(?:(?:周|星期|礼拜)[一二三四五六日天]|(?:mon|tues|wednes|thurs|fri|satur|sun)day)$/i;

/**
 * A weekday named alone after a date is the first such day from that date: "下下周一请婚假，请到周五" ends on the
 * Friday of that week, not on this one.
 */
function weekdaysFromEarlier(sorted: DateMention[]): void {
  for (let i = 1; i < sorted.length; i++) {
    const [before, mention] = [sorted[i - 1]!, sorted[i]!];
    if (!BARE_WEEKDAY.test(mention.text.trim())) continue;
    const from = before.end ?? before.start;
    while (dayNumber(mention.start) < dayNumber(from)) mention.start = addDays(mention.start, 7);
  }
}

/**
 * The end of a range that names no day of its own is on the start's day, in the start's half of it: "明天下午三点到五点"
 * ends at 17:00 tomorrow (chrono reads 05:00 the day after).
 */
function sameDayEnd(start: DateParts, end: chrono.ParsedComponents): DateParts {
  const parts = partsOf(end);
  if (end.isCertain('day') || end.isCertain('weekday')) return parts;
  const sameDay = { ...parts, year: start.year, month: start.month, day: start.day };
  if (sameDay.hour !== undefined && start.hour !== undefined && start.hour >= 12 && sameDay.hour < 12)
    sameDay.hour += 12;
  return sameDay;
}

type Span = { start: DateParts; end?: DateParts };

/**
 * The mentions `pattern` finds, each read by `read` (undefined: not a date after all), pushed into `found` and blanked
 * in the text returned, so that later passes and chrono do not read them again.
 */
function take(
  text: string,
  pattern: RegExp,
  found: DateMention[],
  read: (groups: (string | undefined)[]) => Span | undefined,
): string {
  return text.replace(pattern, (whole: string, ...rest: unknown[]) => {
    const index = rest.find((r) => typeof r === 'number') as number;
    const span = read(rest.slice(0, rest.indexOf(index)) as (string | undefined)[]);
    if (!span) return whole;
    found.push({ ...span, index, text: whole.trimEnd() });
    return ' '.repeat(whole.length);
  });
}

/** "10月8号到11号", "2024年10月8日至11日": a range of days within one month. */
function takeDayRanges(text: string, today: Today, found: DateMention[]): string {
  return take(text, ZH_DAY_RANGE, found, ([y, m, d1, d2]) => {
    const [month, first, last] = [Number(m), Number(d1), Number(d2)];
    if (last <= first || month > 12) return undefined;
    const year = y ? Number(y) : yearOfDay(month, first, today);
    return { start: { year, month, day: first }, end: { year, month, day: last } };
  });
}

/** "下个月5号", "上个月3号到5号": a day of a month named from this one. */
function takeRelativeMonthDays(text: string, today: Today, found: DateMention[]): string {
  return take(text, ZH_RELATIVE_MONTH_DAY, found, ([step, d1, d2]) => {
    const first = dayOfMonth(d1!);
    const last = d2 === undefined ? undefined : dayOfMonth(d2);
    if (first === undefined || (d2 !== undefined && (last === undefined || last < first))) return undefined;
    const { year, month } = shiftMonth(today, MONTH_STEP[step!]!);
    return { start: { year, month, day: first }, ...(last === undefined ? {} : { end: { year, month, day: last } }) };
  });
}

/**
 * "3/17-3/19", "3.17-3.19": a range of month/day dates (month first, as in Chinese and US writing); not one of
 * amounts or weights ("3.5-4.5元").
 */
const MONTH_DAY_RANGE =
  /(?<![\d./])(\d{1,2})([/.])(\d{1,2})\s*(?:-|~|–|—|到|至|to)\s*(\d{1,2})\2(\d{1,2})(?![\d./])(?!\s*(?:元|块|万|千|斤|公斤|克|kg|g\b|k\b|w\b|%|yuan|rmb))/gi;

/** Month/day ranges (chrono reads "3/17-3/19" as "3/17" and "-3"). */
function takeMonthDayRanges(text: string, today: Today, found: DateMention[]): string {
  return take(text, MONTH_DAY_RANGE, found, ([m1, , d1, m2, d2]) => {
    const [startMonth, startDay, endMonth, endDay] = [m1, d1, m2, d2].map(Number) as [number, number, number, number];
    if (!startMonth || !endMonth || !startDay || !endDay || startMonth > 12 || endMonth > 12) return undefined;
    if (startDay > 31 || endDay > 31) return undefined;
    const start = { year: yearOfDay(startMonth, startDay, today), month: startMonth, day: startDay };
    const end = { month: endMonth, day: endDay };
    return { start, end: { ...end, year: yearAfter(start, end) } };
  });
}

/**
 * A day of the month written alone: "3号来取件", "20号到22号", "on the 3rd". Not a street or building number ("湖南路25号",
 * "湖南路 25号", "3号楼"), nor a count of days ("3日内"), nor "the 3rd of March" (chrono's).
 */
const ZH_BARE_DAY =
  /(?<=^|[\s，,。；;：:、（(]|[在于从到至是等])(?<![路街道巷弄里村]\s+)(\d{1,2}|[一二三四五六七八九十]{1,3})\s*[号日](?![\d内前]|\s*(?:之内|以内|线|楼|门|床|位|机|窗|柜|台|店|院|馆|桥|厅|口|单元|室|码|字|车|站|厂|仓))/g;
const EN_BARE_DAY =
  /\bthe\s+(\d{1,2})(?:st|nd|rd|th)\b(?=\s*(?:$|[,.;!?]|(?:at|between|from|to|through|thru|until|till|and|or|in|morning|afternoon|evening|please|pls|if|when|by|\d)\b))/gi;
/** Words of a sentence about what has happened: a day gone by this month is then meant, not next month's. */
const PAST_CUE =
  /之后|以后|以来|那天|签收|收到|发货|寄出|最后|没动|没更新|停在|卡在|以前|之前|\b(?:since|ago|last seen|last update[ds]?|was|were|got|arrived|delivered|received|signed|shipped|hasn'?t|haven'?t|didn'?t|never|stuck|went|came)\b/i;

/**
 * A day of the month without its month: this month's when it is today or later; an earlier one is this month's in a
 * sentence about the past ("3号之后就没动静了"), else next month's ("3号来取件" on the 12th is the 3rd of next month).
 */
function monthOfDay(day: number, today: Today, past: boolean): DateParts | undefined {
  const step = day >= today.day || past ? 0 : 1;
  for (let s = step; s < step + 3; s++) {
    const parts = { ...shiftMonth(today, s), day };
    if (addDays(parts, 0).day === day) return parts; // the month has that day (not 31 April)
  }
  return undefined;
}

/** Days of the month written alone; each is marked in `monthless`, for a range's end to take its start's month. */
function takeBareDays(text: string, today: Today, found: DateMention[], monthless: Set<DateMention>): string {
  const past = PAST_CUE.test(text);
  const read = ([d]: (string | undefined)[]) => {
    const day = dayOfMonth(d!);
    const start = day === undefined ? undefined : monthOfDay(day, today, past);
    return start && { start };
  };
  const before = found.length;
  const out = take(take(text, ZH_BARE_DAY, found, read), EN_BARE_DAY, found, read);
  for (const m of found.slice(before)) monthless.add(m);
  return out;
}

/** The end of a range written as a day alone ("Mar 20th through the 22nd", "20号到22号") is in its start's month. */
function monthOfRangeStart(text: string, sorted: DateMention[], monthless: Set<DateMention>): void {
  for (let i = 1; i < sorted.length; i++) {
    const [before, end] = [sorted[i - 1]!, sorted[i]!];
    if (!monthless.has(end) || !RANGE_JOIN.test(text.slice(before.index + before.text.length, end.index))) continue;
    const from = before.end ?? before.start;
    end.start = { ...end.start, ...shiftMonth(from, end.start.day < from.day ? 1 : 0) };
  }
}

/** "2024-09-14", "2024年9月6日": certain. */
function takeNumericDates(text: string, found: DateMention[]): string {
  return take(text, NUMERIC_DATE, found, ([y, m, d]) => ({
    start: { year: Number(y), month: Number(m), day: Number(d) },
  }));
}

/** One of chrono's results as a mention, its year and week read as a person means them; undefined when no date. */
function chronoMention(
  result: chrono.ParsedResult,
  masked: string,
  ref: { instant: Date },
  today: Today,
  chinese: boolean,
): DateMention | undefined {
  const certain = (c: chrono.Component) => result.start.isCertain(c);
  if (!certain('day') && !certain('weekday') && !certain('hour')) return undefined;
  if (!chinese && EN_DURATION.test(result.text.trim())) return undefined;
  if (ZH_PART_OF_DAY.test(result.text.trim())) return undefined;
  // "pick up at 12 Renmin Rd": a bare number before a name is a street number, not twelve o'clock.
  if (
    !chinese &&
    /^(?:at\s+)?\d{1,4}$/i.test(result.text.trim()) &&
    /^\s+[A-Z]/.test(masked.slice(result.index + result.text.length))
  )
    return undefined;
  let start = chinese ? fixZhWeekday(result, ref) : partsOf(result.start);
  let { index, text: said } = result;
  // chrono, asked for forward dates, puts "last Thursday" and "past Monday" ahead too: they are read backwards.
  const back = !chinese && /^(?:last|past)\s/i.test(said) ? chrono.en.parse(said, ref)[0] : undefined;
  if (back) start = partsOf(back.start);
  if (!certain('year') && certain('month') && !certain('weekday'))
    start = { ...start, year: yearOfDay(start.month, start.day, today) };
  // chrono reads "下下周一" as "下周一" with a stray "下" before it: the week after next.
  if (/^下(?:周|星期|个星期|礼拜)/.test(said) && masked.charAt(index - 1) === '下') {
    start = addDays(start, 7);
    [index, said] = [index - 1, `下${said}`];
  }
  const mention: DateMention = { start, index, text: said };
  if (result.end) mention.end = sameDayEnd(start, result.end);
  if (mention.end && result.end && !result.end.isCertain('year') && result.end.isCertain('month'))
    mention.end = { ...mention.end, year: yearAfter(start, mention.end) };
  return mention;
}

/**
 * A time alone ("下午3点", "9-11am") right after a date that has none ("2024年9月6日上午10点", "3号上午9点到11点", "on
 * the 3rd, 9-11am") belongs to that date.
 */
function timesToTheirDates(text: string, found: DateMention[], monthless: Set<DateMention>): void {
  for (const m of found) {
    const next = found.find((o) => o !== m && o.index >= m.index + m.text.length);
    if (!next || !/^[\s,，]*$/.test(text.slice(m.index + m.text.length, next.index))) continue;
    if (m.start.hour === undefined && next.start.hour !== undefined && (/^\d{4}/.test(m.text) || monthless.has(m))) {
      m.start = { ...m.start, hour: next.start.hour, minute: next.start.minute };
      found.splice(found.indexOf(next), 1);
    }
  }
}

/** "around 4pm", "this afternoon around 4", "around 3 this afternoon": a hedged time, which chrono does not join to its day. */
const EN_HEDGE =
  /\b(?:at\s+)?(?:around|about|approximately|approx\.|roughly)\s+(?=(\d{1,2}(?::\d{2})?)(\s*(?:[ap]\.?m\b|o'clock))?)/gi;
/** A day or part of one just before a bare hedged number makes it a time ("tomorrow around 4", not "around 2 kg"). */
const EN_DAY_BEFORE =
  /\b(?:today|tomorrow|tonight|morning|afternoon|evening|noon|day|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\s*,?\s*$/i;

/** A day or part of one right after a bare hedged number: "around 3 this afternoon". */
const EN_DAY_AFTER = /^\s*(?:this\s+)?(?:today|tomorrow|tonight|morning|afternoon|evening)\b/i;

/** Hedged times read as "at", the text's length kept (mentions' indices point into the request). */
function withoutHedges(text: string): string {
  return text.replace(EN_HEDGE, (hedge, number: string, clock: string | undefined, at: number) => {
    const after = text.slice(at + hedge.length + number.length);
    // A bare number is a time only with a day named next to it, and no other word or unit after it ("around 2 kg").
    const dayAfter = EN_DAY_AFTER.test(after);
    const alone = !/^[\d.]|^\s*(?:[a-z]+\b(?<!\b(?:and|or|please|pls|then|if))|%)/i.test(after);
    const time = clock !== undefined || dayAfter || (alone && EN_DAY_BEFORE.test(text.slice(0, at)));
    return time ? 'at'.padEnd(hedge.length) : hedge;
  });
}

/** Today's date on the caller's calendar, `offsetMinutes` east of UTC. */
export function todayOn(now: Date, offsetMinutes: number): Today {
  const wall = new Date(now.getTime() + offsetMinutes * 60_000);
  return { year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate() };
}

/** Every date mention, left to right. `offsetMinutes` is the caller's time zone, for what "today" means. */
export function datesIn(text: string, now: Date, offsetMinutes: number): DateMention[] {
  const found: DateMention[] = [];
  const today = todayOn(now, offsetMinutes);
  const monthless = new Set<DateMention>();
  const ranges = takeMonthDayRanges(takeDayRanges(text, today, found), today, found);
  const numeric = takeNumericDates(takeRelativeMonthDays(ranges, today, found), found);
  const masked = takeBareDays(numeric, today, found, monthless);
  // chrono's Chinese casual words ("明天") read the host's calendar, not `timezone`: so hand it an instant whose
  // host-local wall clock is the caller's wall clock, and read components back as wall-clock values.
  const wall = new Date(now.getTime() + (offsetMinutes + now.getTimezoneOffset()) * 60_000);
  const ref = { instant: wall };
  const chinese = CJK.test(text);
  const parser = chinese ? chrono.zh.hans : chrono.en;
  const yearless = new Set<DateMention>();
  for (const result of parser.parse(chinese ? masked : withoutHedges(masked), ref, { forwardDate: true })) {
    const mention = chronoMention(result, masked, ref, today, chinese);
    if (!mention) continue;
    mention.text = masked.slice(mention.index, mention.index + mention.text.length);
    if (!result.start.isCertain('year')) yearless.add(mention);
    found.push(mention);
  }
  found.sort((a, b) => a.index - b.index);
  yearOfRangeStart(text, found, yearless);
  monthOfRangeStart(text, found, monthless);
  weekdaysFromEarlier(found);
  timesToTheirDates(text, found, monthless);
  return found;
}

export function formatDate(parts: DateParts): string {
  return `${pad(parts.year, 4)}-${pad(parts.month)}-${pad(parts.day)}`;
}

export function formatOffset(offsetMinutes: number): string {
  if (offsetMinutes === 0) return 'Z';
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** Undefined when the text gave no time of day: a date-time is never invented from a date. */
export function formatDateTime(parts: DateParts, offsetMinutes: number): string | undefined {
  if (parts.hour === undefined) return undefined;
  return `${formatDate(parts)}T${pad(parts.hour)}:${pad(parts.minute ?? 0)}:00${formatOffset(offsetMinutes)}`;
}

/** The offset a schema's own example shows ("如 2024-07-01T14:00:00+08:00"), in minutes. */
export function exampleOffset(description: string | undefined): number | undefined {
  const m = description?.match(/T\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?(Z|([+-])(\d{2}):?(\d{2}))/);
  if (!m) return undefined;
  if (m[1] === 'Z') return 0;
  return (m[2] === '-' ? -1 : 1) * (Number(m[3]) * 60 + Number(m[4]));
}
