/** Anything with the time the host sent it. */
export interface Timed {
  readonly sentAt: string;
}

const utcDay = (at: string): string => new Date(at).toISOString().slice(0, 10);

/**
 * Splits a window of messages where the (UTC) day changes or the conversation paused at least
 * `idleGapMinutes`, so a conversation over several days becomes one memory per sitting rather
 * than one memory for everything. Order is kept; no segment is empty.
 */
export function segmentWindow<M extends Timed>(messages: readonly M[], idleGapMinutes: number): M[][] {
  const segments: M[][] = [];
  let previous: M | undefined;
  for (const message of messages) {
    const current = segments.at(-1);
    const gapMs = previous ? Date.parse(message.sentAt) - Date.parse(previous.sentAt) : 0;
    const split = !previous || !current || utcDay(previous.sentAt) !== utcDay(message.sentAt) || gapMs >= idleGapMinutes * 60_000;
    if (split || !current) segments.push([message]);
    else current.push(message);
    previous = message;
  }
  return segments;
}
