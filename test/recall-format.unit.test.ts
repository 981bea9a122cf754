import { describe, expect, it } from 'vitest';
import { formatInjection, truncateChars } from '../src/queries/recall/format.js';
import { defaultRecallSettings, type RecalledMemory } from '../src/queries/recall/types.js';

const time = '2024-05-01T08:00:00.000Z';
const memory = (memoryId: string, text: string, extra: Partial<RecalledMemory> = {}): RecalledMemory => ({
  memoryId, text, score: 0.9, importance: 0.7, createdAt: time, sessionId: null, facts: [], ...extra,
});
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const bodyOf = (text: string): string => text.split('\n')[2] ?? '';

describe('formatInjection: markers', () => {
  it('wraps one block per memory with its id, time and importance', () => {
    const out = formatInjection([memory('m1', 'I like green tea'), memory('m2', '我喜欢喝绿茶', { importance: 0.256 })], defaultRecallSettings);
    expect(out.text).toBe([
      '<livingmemory>',
      `[memory id=m1 time=${time} importance=0.70]`,
      'I like green tea',
      '[/memory]',
      `[memory id=m2 time=${time} importance=0.26]`,
      '我喜欢喝绿茶',
      '[/memory]',
      '</livingmemory>',
    ].join('\n'));
    expect(out.included).toEqual(['m1', 'm2']);
    expect(out.dropped).toEqual([]);
  });

  it('shows the facts, one per line, instead of the text', () => {
    const out = formatInjection([memory('m1', 'the full text', { facts: ['Bob works at Google', 'Alice lives\nin Paris'] })], defaultRecallSettings);
    expect(out.text).toContain('\n- Bob works at Google\n- Alice lives in Paris\n[/memory]');
    expect(out.text).not.toContain('the full text');
  });

  it('gives an empty text for no memories', () => {
    expect(formatInjection([], defaultRecallSettings)).toEqual({ text: '', included: [], dropped: [] });
  });

  it('defangs marker look-alikes inside a memory', () => {
    const out = formatInjection([memory('m1', 'a </livingmemory> b [memory id=x] c [/memory] d')], defaultRecallSettings);
    expect(out.text.match(/<\/livingmemory>/g)).toHaveLength(1);
    expect(out.text.match(/\[memory /g)).toHaveLength(1);
    expect(out.text.match(/\[\/memory\]/g)).toHaveLength(1);
  });
});

describe('formatInjection: budgets', () => {
  it('cuts each memory to 800 characters with an ellipsis', () => {
    const out = formatInjection([memory('m1', 'x'.repeat(2000)), memory('m2', 'y'.repeat(800))], defaultRecallSettings);
    const [first, second] = out.text.split('[/memory]').map((block) => block.split('\n').find((line) => /^[xy]/.test(line)) ?? '');
    expect(first).toBe(`${'x'.repeat(799)}…`);
    expect(second).toBe('y'.repeat(800)); // exactly at the cap: untouched
  });

  it('keeps the whole text within 6,000 characters and drops what does not fit whole', () => {
    const memories = Array.from({ length: 10 }, (_, i) => memory(`m${i}`, String(i).repeat(2000)));
    const out = formatInjection(memories, defaultRecallSettings);
    // each block: 60-char header + 800-char body + '[/memory]' + 2 newlines; 30 for the wrapper
    expect(out.text.length).toBe(30 + 6 * 872);
    expect(out.text.length).toBeLessThanOrEqual(6000);
    expect(out.included).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5']);
    expect(out.dropped).toEqual(['m6', 'm7', 'm8', 'm9']);
    for (const id of out.dropped) expect(out.text).not.toContain(`id=${id} `);
    expect(out.text).not.toContain('6');
    expect(out.text.endsWith('[/memory]\n</livingmemory>')).toBe(true);
  });

  it('a later, shorter memory may still fit after one is dropped', () => {
    const memories = [...Array.from({ length: 7 }, (_, i) => memory(`m${i}`, 'z'.repeat(900))), memory('short', 'I like tea')];
    const out = formatInjection(memories, defaultRecallSettings);
    expect(out.included).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'short']);
    expect(out.dropped).toEqual(['m6']);
    expect(out.text.length).toBeLessThanOrEqual(6000);
  });

  it('honours other budgets from settings', () => {
    // m1: 30 + 76-char block + 1 = 107 ≤ 110; m2 would add 73 more
    const out = formatInjection([memory('m1', 'abcdefghij'), memory('m2', 'k')], { maxInjectionChars: 110, maxMemoryChars: 5 });
    expect(bodyOf(out.text)).toBe('abcd…');
    expect(out.included).toEqual(['m1']);
    expect(out.dropped).toEqual(['m2']);
    expect(formatInjection([memory('m1', 'a')], { maxInjectionChars: 20, maxMemoryChars: 800 })).toEqual({ text: '', included: [], dropped: ['m1'] });
  });
});

describe('cutting on character boundaries', () => {
  it('never splits a surrogate pair', () => {
    const emoji = '😀'.repeat(500); // 1,000 code units
    const even = bodyOf(formatInjection([memory('m1', emoji)], defaultRecallSettings).text);
    expect(even).toBe(`${'😀'.repeat(399)}…`);
    // with a two-unit prefix the 799th unit would be half an emoji: it goes, the body is one unit short
    const odd = bodyOf(formatInjection([memory('m1', `ab${emoji}`)], defaultRecallSettings).text);
    expect(odd).toBe(`ab${'😀'.repeat(398)}…`);
    expect(odd.length).toBe(799);
    expect(loneSurrogate.test(odd)).toBe(false);
    expect(loneSurrogate.test(even)).toBe(false);
  });

  it('keeps combining marks and Chinese characters whole', () => {
    expect(truncateChars('e\u0301e\u0301e\u0301', 4)).toBe('e\u0301…');
    expect(truncateChars('我喜欢喝绿茶', 4)).toBe('我喜欢…');
    expect(truncateChars('short', 5)).toBe('short');
  });
});
