import { isClass, space } from '../../projections/text/chars.js';
import type { RecallSettings, RecalledMemory } from './types.js';

/*
 * The text injected into the agent's prompt. Layout:
 *
 *   <livingmemory>
 *   [memory id=m1 time=2024-05-01T08:00:00.000Z importance=0.70]
 *   the memory's text, or its live facts one per line ("- fact")
 *   [/memory]
 *   ...
 *   </livingmemory>
 *
 * Marker look-alikes inside a memory are defanged so a stored text cannot close the block.
 */

export const injectionOpen = '<livingmemory>';
export const injectionClose = '</livingmemory>';
export const ellipsis = '…';

export type FormatSettings = Pick<RecallSettings, 'maxInjectionChars' | 'maxMemoryChars'>;

export interface Injection {
  /** The whole block, or '' when no memory was included. */
  readonly text: string;
  /** Memory ids in the text, in input order. */
  readonly included: string[];
  /** Memory ids left out because they did not fit, in input order. */
  readonly dropped: string[];
}

// Made on first use: building a segmenter loads ICU data (about 15 ms of every CLI start).
let graphemes: Intl.Segmenter | undefined;

/**
 * At most `max` UTF-16 code units: the text itself when it fits, else whole characters (grapheme
 * clusters, so never half a surrogate pair or a base without its marks) followed by '…'.
 */
export function truncateChars(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max < ellipsis.length) return '';
  let kept = '';
  for (const { segment } of (graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })).segment(text)) {
    if (kept.length + segment.length > max - ellipsis.length) break;
    kept += segment;
  }
  return `${kept.trimEnd()}${ellipsis}`;
}

/** Marker look-alikes become harmless look-alikes of the same length. */
const defang = (text: string): string =>
  text.replace(/<(\/?)(livingmemory)>/gi, '‹$1$2›').replace(/\[(\/?)(memory)(?=[\s\]])/gi, '⟦$1$2');

/** An attribute value without whitespace or brackets, so the header stays one parseable line. */
const attribute = (value: string): string => value.replace(/[\s[\]]/g, '_');

const body = (memory: RecalledMemory): string =>
  memory.facts.length > 0 ? memory.facts.map((fact) => `- ${fact.replace(/\s*[\r\n]+\s*/g, ' ').trim()}`).join('\n') : memory.text;

/** One memory's block: header, body cut to `maxMemoryChars`, end marker. */
export function formatMemoryBlock(memory: RecalledMemory, maxMemoryChars: number): string {
  const header = `[memory id=${attribute(memory.memoryId)} time=${attribute(memory.createdAt)} importance=${memory.importance.toFixed(2)}]`;
  return `${header}\n${truncateChars(defang(body(memory)), maxMemoryChars)}\n[/memory]`;
}

/**
 * The injection block for recalled memories, in their order: each memory's body (its facts when
 * it has any, else its text) cut to `maxMemoryChars` with an ellipsis, and the whole text at most
 * `maxInjectionChars` (UTF-16 code units, markers included). A memory whose block does not fit in
 * what is left is dropped whole; a later, shorter one may still fit.
 */
export function formatInjection(memories: readonly RecalledMemory[], settings: FormatSettings): Injection {
  const blocks: string[] = [];
  const included: string[] = [];
  const dropped: string[] = [];
  // open + '\n' + (block + '\n')* + close
  let length = injectionOpen.length + 1 + injectionClose.length;
  for (const memory of memories) {
    const block = formatMemoryBlock(memory, settings.maxMemoryChars);
    if (length + block.length + 1 > settings.maxInjectionChars) {
      dropped.push(memory.memoryId);
      continue;
    }
    length += block.length + 1;
    blocks.push(block);
    included.push(memory.memoryId);
  }
  const text = blocks.length === 0 ? '' : [injectionOpen, ...blocks, injectionClose].join('\n');
  return { text, included, dropped };
}

const isSpace = (text: string, i: number): boolean => isClass(text.charCodeAt(i), space);

/**
 * The text without injection blocks: older modes wrote them into the prompt's history, and a block
 * left there would be recorded, summarized and injected again. An unclosed block runs to the end.
 * Each block goes with the whitespace around it (`/\s*<open>[\s\S]*?(?:<close>|$)\s*\/g`),
 * replaced by a line break inside the text; found with indexOf, since that regex is quadratic
 * over a long run of spaces.
 */
export function stripInjection(text: string): string {
  if (!text.includes(injectionOpen)) return text;
  const parts: string[] = [];
  let done = 0;
  for (let open = text.indexOf(injectionOpen); open >= 0; open = text.indexOf(injectionOpen, done)) {
    let start = open;
    while (start > done && isSpace(text, start - 1)) start -= 1;
    const close = text.indexOf(injectionClose, open + injectionOpen.length);
    let end = close < 0 ? text.length : close + injectionClose.length;
    while (end < text.length && isSpace(text, end)) end += 1;
    parts.push(text.slice(done, start), start === 0 || end === text.length ? '' : '\n');
    done = end;
  }
  parts.push(text.slice(done));
  return parts.join('').trim();
}
