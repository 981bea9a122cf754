/*
 * Time expressions in a question ("in June", "on 13 October, 2023", "last week", "去年", "5月")
 * name a period; memories written in it, or soon after (people tell of a thing in the days after
 * it happened), are the likelier answers. Relative expressions count back from the request's
 * time, never from a clock. Pure. English and Chinese; an expression this does not read names no
 * period, and then nothing changes.
 */

const dayMs = 86_400_000;

export interface Period {
  readonly from: number;
  /** Exclusive. */
  readonly to: number;
}

const months = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const monthWord = String.raw`(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`;
const monthOf = (word: string): number => months.findIndex((m) => m.startsWith(word.toLowerCase().slice(0, 3)));

const utc = (y: number, m: number, d = 1): number => Date.UTC(y, m, d);
const day = (y: number, m: number, d: number): Period => ({ from: utc(y, m, d), to: utc(y, m, d + 1) });
const month = (y: number, m: number): Period => ({ from: utc(y, m), to: utc(y, m + 1) });
const year = (y: number): Period => ({ from: utc(y, 0), to: utc(y + 1, 0) });

/** The latest year in which month `m` (day `d`) is not after `now`: "in June" asked in May means last June. */
function latestYear(now: number, m: number, d = 1): number {
  const y = new Date(now).getUTCFullYear();
  return utc(y, m, d) <= now ? y : y - 1;
}

const zhDigits: Record<string, number> = { 零: 0, 〇: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };
/** 1-31 written in digits or Chinese numerals (十二, 二十三, 三十一). */
function zhNumber(text: string): number {
  if (/^\d+$/.test(text)) return Number(text);
  const [tens, ones] = text.includes('十') ? text.split('十') : ['', text];
  const t = tens === undefined || tens === '' ? (text.includes('十') ? 1 : 0) : (zhDigits[tens] ?? NaN);
  const o = ones === undefined || ones === '' ? 0 : (zhDigits[ones] ?? NaN);
  return t * 10 + o;
}

type Rule = (match: RegExpExecArray, now: number) => Period | null;

const startOfDay = (now: number): number => Math.floor(now / dayMs) * dayMs;
const startOfWeek = (now: number): number => startOfDay(now) - ((new Date(now).getUTCDay() + 6) % 7) * dayMs;
const back = (now: number, days: number): Period => ({ from: startOfDay(now) - days * dayMs, to: startOfDay(now) - (days - 1) * dayMs });
const unitDays: Record<string, number> = { day: 1, week: 7, month: 30, year: 365 };

const rules: readonly [RegExp, Rule][] = [
  [new RegExp(String.raw`\b${monthWord}\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`, 'giu'), (m) => day(Number(m[3]), monthOf(m[1] ?? ''), Number(m[2]))],
  [new RegExp(String.raw`\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?${monthWord}\.?,?\s+(\d{4})\b`, 'giu'), (m) => day(Number(m[3]), monthOf(m[2] ?? ''), Number(m[1]))],
  [new RegExp(String.raw`\b${monthWord}\.?,?\s+(\d{4})\b`, 'giu'), (m) => month(Number(m[2]), monthOf(m[1] ?? ''))],
  [new RegExp(String.raw`\b(?:in|during|since|of|last|this)\s+${monthWord}\b(?!\s+\d)`, 'giu'), (m, now) => {
    const mo = monthOf(m[1] ?? '');
    return month(latestYear(now, mo), mo);
  }],
  [/\b(?:in|during|of|since)\s+((?:19|20)\d{2})\b/giu, (m) => year(Number(m[1]))],
  [/\byesterday\b/giu, (_, now) => back(now, 1)],
  [/\btoday\b/giu, (_, now) => back(now, 0)],
  [/\blast\s+(week|month|year)\b/giu, (m, now) => {
    const unit = (m[1] ?? '').toLowerCase();
    if (unit === 'week') return { from: startOfWeek(now) - 7 * dayMs, to: startOfWeek(now) };
    const d = new Date(now);
    return unit === 'month' ? month(d.getUTCFullYear(), d.getUTCMonth() - 1) : year(d.getUTCFullYear() - 1);
  }],
  [/\b(\d+|a|one|two|three|four|five|six)\s+(day|week|month|year)s?\s+ago\b/giu, (m, now) => {
    const words: Record<string, number> = { a: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6 };
    const n = words[(m[1] ?? '').toLowerCase()] ?? Number(m[1]);
    const span = unitDays[(m[2] ?? '').toLowerCase()] ?? 1;
    return { from: startOfDay(now) - n * span * dayMs - span * dayMs, to: startOfDay(now) - n * span * dayMs + span * dayMs };
  }],
  [/(\d{4})\s*年\s*([0-9一二三四五六七八九十]{1,3})\s*月(?:\s*([0-9一二三四五六七八九十]{1,3})\s*[日号])?/gu, (m) => {
    const mo = zhNumber(m[2] ?? '') - 1;
    return m[3] ? day(Number(m[1]), mo, zhNumber(m[3])) : month(Number(m[1]), mo);
  }],
  [/(?<![年\d])([0-9一二三四五六七八九十]{1,3})\s*月(?:\s*([0-9一二三四五六七八九十]{1,3})\s*[日号])?/gu, (m, now) => {
    const mo = zhNumber(m[1] ?? '') - 1;
    if (!(mo >= 0 && mo < 12)) return null;
    const y = latestYear(now, mo, m[2] ? zhNumber(m[2]) : 1);
    return m[2] ? day(y, mo, zhNumber(m[2])) : month(y, mo);
  }],
  [/(\d{4})\s*年(?!\s*[0-9一二三四五六七八九十]{1,3}\s*月)/gu, (m) => year(Number(m[1]))],
  [/昨天|昨日/gu, (_, now) => back(now, 1)],
  [/前天/gu, (_, now) => back(now, 2)],
  [/上周|上星期|上个星期|上礼拜/gu, (_, now) => ({ from: startOfWeek(now) - 7 * dayMs, to: startOfWeek(now) })],
  [/上个?月/gu, (_, now) => {
    const d = new Date(now);
    return month(d.getUTCFullYear(), d.getUTCMonth() - 1);
  }],
  [/去年/gu, (_, now) => year(new Date(now).getUTCFullYear() - 1)],
];

/** The periods the query names, read against `now` (epoch ms); none when it names none. */
export function namedPeriods(query: string, now: number): Period[] {
  const text = query.normalize('NFKC');
  const found: Period[] = [];
  // Rules go from the most precise: words a rule has read ("13 October, 2023") are not read again by a vaguer one ("October, 2023").
  const taken: [number, number][] = [];
  for (const [pattern, rule] of rules) {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      const [start, end] = [m.index, m.index + m[0].length];
      if (taken.some(([a, b]) => start < b && a < end)) continue;
      const period = rule(m, now);
      if (!period || !Number.isFinite(period.from) || !(period.to > period.from)) continue;
      taken.push([start, end]);
      found.push(period);
    }
  }
  return found;
}

/**
 * Whether a memory written at `at` speaks of `period`: written in it, or within its own length
 * after it (at least a day, at most a month), when people tell of what happened.
 */
export function speaksOf(at: number, period: Period): boolean {
  const after = Math.min(31 * dayMs, Math.max(dayMs, period.to - period.from));
  return at >= period.from && at < period.to + after;
}

/** The memories, of those given (id → creation time, epoch ms), written in or just after a period the query names. */
export function memoriesOfPeriods(query: string, now: number, createdAtOf: ReadonlyMap<string, number>): Set<string> {
  const periods = namedPeriods(query, now);
  if (periods.length === 0) return new Set();
  return new Set([...createdAtOf].filter(([, at]) => periods.some((p) => speaksOf(at, p))).map(([id]) => id));
}
