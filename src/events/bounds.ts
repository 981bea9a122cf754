import { z } from 'zod';
import { ValidationError } from './errors.js';
import { lazy } from './lazy.js';

/*
 * How big what reaches the log may be (issue 11, ADR 23). Commands check their inputs against
 * `Limits` (configurable, the `limits` settings); the log checks every new event against the
 * fixed ceilings below, the last word whatever path an event took. Reading never checks bounds:
 * a store written before them must still open.
 */

const KiB = 1024;
const MiB = 1024 * KiB;

/** The log's own ceilings: no string of a new event over `textBytes`, no event over `eventBytes` (UTF-8). */
export const logCeilings = { textBytes: 4 * MiB, eventBytes: 16 * MiB } as const;

/** Maxima that are not settings: ids are keys, the others are labels of a memory, not its content. */
export const fixedLimits = {
  idChars: 200,
  labelChars: 500,
  labelsPerList: 200,
  reasonChars: 500,
  sentimentChars: 100,
  senderNameChars: 200,
  sourcesPerMemory: 10_000,
  historyMessages: 100_000,
  queryChars: 8000,
} as const;

const size = (max: number) => z.number().int().min(1).max(max);

/** What a command accepts when the `limits` settings leave a value out. */
export const defaultLimits = Object.freeze({
  memoryTextBytes: 64 * KiB,
  messageBytes: MiB,
  sourcesBytes: 8 * MiB,
  importBytes: 50 * MiB,
  importEntries: 10_000,
});

/** The `limits` settings: what a command accepts, in UTF-8 bytes (or entries). */
export const limitsSchema = lazy(() =>
  z
    .object({
      /** A memory's text (write, update, import row). */
      memoryTextBytes: size(MiB).default(defaultLimits.memoryTextBytes),
      /** A conversation message's content (hooks, the host's history, a memory's source messages). */
      messageBytes: size(4 * MiB).default(defaultLimits.messageBytes),
      /** All source messages of one memory together. */
      sourcesBytes: size(12 * MiB).default(defaultLimits.sourcesBytes),
      /** An import file. */
      importBytes: size(1024 * MiB).default(defaultLimits.importBytes),
      importEntries: size(1_000_000).default(defaultLimits.importEntries),
    })
    .strict(),
);

export type Limits = z.output<ReturnType<typeof limitsSchema>>;

/** UTF-8 bytes of a text, without encoding it. */
export const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** Whether a text fits `max` bytes; most texts are told by their length alone. */
export const fitsBytes = (text: string, max: number): boolean => text.length * 3 <= max || (text.length <= max && utf8Bytes(text) <= max);

const describe = (bytes: number, max: number, setting?: string): string =>
  `is ${bytes} bytes; the limit is ${max}${setting ? ` (limits.${setting})` : ''}`;

/** A string of at most `max` UTF-8 bytes; the error names the size, the limit and the setting. */
export function boundedText<S extends z.ZodType<string>>(schema: S, max: number, setting?: keyof Limits) {
  return schema.superRefine((text, ctx) => {
    if (!fitsBytes(text, max)) ctx.addIssue({ code: 'custom', message: describe(utf8Bytes(text), max, setting) });
  });
}

/** A list whose texts (picked by `textOf`) take at most `max` UTF-8 bytes together. */
export function boundedTotal<T>(schema: z.ZodArray<z.ZodType<T>>, textOf: (item: T) => string, max: number, setting: keyof Limits) {
  return schema.superRefine((items, ctx) => {
    let total = 0;
    for (const item of items) total += utf8Bytes(textOf(item));
    if (total > max) ctx.addIssue({ code: 'custom', message: `hold ${total} bytes together; the limit is ${max} (limits.${setting})` });
  });
}

/** Counts one leaf (a string: one plus its UTF-8 bytes; anything else: one); -1 for a string over the ceiling. */
function leafSize(value: unknown): number {
  if (typeof value !== 'string') return 1;
  const bytes = utf8Bytes(value);
  return bytes > logCeilings.textBytes ? -1 : 1 + bytes;
}

/**
 * Checks a new event against the log's ceilings, walking it without recursion; throws a
 * ValidationError naming the first field over its ceiling (`events.<index>.data.text`). Returns
 * the event's size as counted (UTF-8 bytes of its texts plus one per value). A tick's batch has a
 * hundred thousand values: only objects and arrays wait on the stack (leaves are counted where
 * they are found, and keys are walked without an array of them), and a second walk that spells
 * out paths runs only for an event that is over.
 */
export function checkEventCeilings(event: unknown, index: number): number {
  if (typeof event !== 'object' || event === null) {
    const size = leafSize(event);
    return size < 0 || size > logCeilings.eventBytes ? findOverCeiling(event, index) : size;
  }
  const stack: object[] = [event];
  let total = 0;
  const add = (value: unknown): boolean => {
    if (typeof value === 'object' && value !== null) {
      stack.push(value);
      return true;
    }
    const size = leafSize(value);
    total += size;
    return size >= 0;
  };
  while (stack.length > 0) {
    const value = stack.pop() as Record<string, unknown>;
    total += 1;
    let fits = true;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length && fits; i += 1) fits = add(value[i]);
    } else {
      // Own enumerable keys, as Object.keys gives them.
      for (const key in value) {
        if (Object.hasOwn(value, key) && !add(value[key])) {
          fits = false;
          break;
        }
      }
    }
    if (!fits || total > logCeilings.eventBytes) return findOverCeiling(event, index);
  }
  return total;
}

/** The walk of checkEventCeilings (the same order) with each value's path: throws for the first field over. */
function findOverCeiling(event: unknown, index: number): never {
  const stack: { value: unknown; path: string }[] = [{ value: event, path: `events.${index}` }];
  let total = 0;
  while (stack.length > 0) {
    const { value, path } = stack.pop() as { value: unknown; path: string };
    total += 1;
    if (typeof value === 'string') {
      const bytes = utf8Bytes(value);
      if (bytes > logCeilings.textBytes) throw new ValidationError(path, `${describe(bytes, logCeilings.textBytes)}, the most the log takes`);
      total += bytes;
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push({ value: item, path: `${path}.${i}` }));
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) stack.push({ value: item, path: `${path}.${key}` });
    }
    if (total > logCeilings.eventBytes) throw new ValidationError(`events.${index}`, `the event is over ${logCeilings.eventBytes} bytes, the most the log takes`);
  }
  throw new Error('checkEventCeilings found an event over the ceilings that its second walk did not');
}
