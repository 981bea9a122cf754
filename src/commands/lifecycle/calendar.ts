/**
 * Calendar dates in a time zone, without a library: the runtime's Intl data gives the zone's
 * offset at an instant. Pure: instants and zones come in, nothing reads the clock.
 */

const dayMs = 86_400_000;
const formats = new Map<string, Intl.DateTimeFormat>();

function format(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
    formats.set(timeZone, f);
  }
  return f;
}

/** The wall-clock fields of `ms` in the zone, read back as if they were UTC. */
function wallClockMs(ms: number, timeZone: string): number {
  // The default zone needs no Intl formatter (whose zone data costs ~10 ms at every CLI start): its
  // wall clock is the instant itself, to the second like the formatted fields.
  if (timeZone === 'UTC') return Math.floor(ms / 1000) * 1000;
  const parts = Object.fromEntries(format(timeZone).formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
}

/** The zone's date (YYYY-MM-DD) at an instant. */
export function localDate(at: Date | string, timeZone: string): string {
  return new Date(wallClockMs(new Date(at).getTime(), timeZone)).toISOString().slice(0, 10);
}

/** The date after `date`. */
export function nextDate(date: string, days = 1): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * dayMs).toISOString().slice(0, 10);
}

/**
 * The instant the zone's clock shows `hour`:00 on `date`. On a day when that hour does not exist
 * (clocks jump forward over it), the instant an hour later on the zone's clock.
 */
export function slotInstant(date: string, hour: number, timeZone: string): Date {
  const wanted = Date.parse(`${date}T${String(hour).padStart(2, '0')}:00:00Z`);
  let guess = wanted;
  // Two corrections settle any offset, the second for a DST change between guess and answer.
  for (let i = 0; i < 3; i += 1) guess += wanted - wallClockMs(guess, timeZone);
  return new Date(guess);
}

/** The first tick date whose slot lies strictly after `after`. */
export function firstSlotDateAfter(after: Date, hour: number, timeZone: string): string {
  let date = localDate(new Date(after.getTime() - dayMs), timeZone);
  while (slotInstant(date, hour, timeZone).getTime() <= after.getTime()) date = nextDate(date);
  return date;
}

/** The tick dates from `first` on whose slots have come by `now`, in order. */
export function dueDates(first: string, now: Date, hour: number, timeZone: string): string[] {
  const out: string[] = [];
  for (let date = first; slotInstant(date, hour, timeZone).getTime() <= now.getTime(); date = nextDate(date)) out.push(date);
  return out;
}
