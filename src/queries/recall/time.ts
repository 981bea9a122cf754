/** An instant as the recall pipeline accepts it: an ISO-8601 string, epoch milliseconds or a Date. */
export type Instant = string | number | Date;

/** Epoch milliseconds of an instant; NaN when a string does not parse. */
export function toEpochMs(instant: Instant): number {
  if (typeof instant === 'number') return instant;
  if (instant instanceof Date) return instant.getTime();
  return Date.parse(instant);
}
