import { describe, expect, it } from 'vitest';
import { segmentWindow } from '../src/engine/summarize/segment.js';
import { recallQuery } from '../src/engine/hooks/before.js';
import { stripInjection } from '../src/queries/recall/format.js';

const at = (day: number, hour: number, minute = 0) => ({ sentAt: new Date(Date.UTC(2026, 0, day, hour, minute)).toISOString(), day, hour, minute });

describe('summary window segmentation', () => {
  it('splits where the day changes or the conversation paused for the idle gap', () => {
    const window = [at(1, 9), at(1, 10), at(1, 12, 59), at(1, 23, 50), at(2, 0, 10), at(2, 0, 20)];
    const segments = segmentWindow(window, 180);
    expect(segments.map((s) => s.map((m) => `${m.day}/${m.hour}:${m.minute}`))).toEqual([
      ['1/9:0', '1/10:0', '1/12:59'],
      ['1/23:50'],
      ['2/0:10', '2/0:20'],
    ]);
  });

  it('keeps a sitting together and keeps every message once, in order', () => {
    const window = Array.from({ length: 30 }, (_, i) => at(3, 8, i * 5));
    expect(segmentWindow(window, 180)).toEqual([window]);
    expect(segmentWindow(window, 5).flat()).toEqual(window);
    expect(segmentWindow(window, 5)).toHaveLength(30);
    expect(segmentWindow([], 180)).toEqual([]);
  });
});

describe('injection fragments in host history', () => {
  it('removes blocks older modes left in a message, closed or not', () => {
    const block = '<livingmemory>\n[memory id=m1 time=t importance=0.50]\nx\n[/memory]\n</livingmemory>';
    expect(stripInjection(`${block}\nwhat did I say?`)).toBe('what did I say?');
    expect(stripInjection(`hello ${block} world`)).toBe('hello\nworld');
    expect(stripInjection(`question <livingmemory>\n[memory id=m1]`)).toBe('question');
    expect(stripInjection('no block here')).toBe('no block here');
  });
});

describe('recall query with recent context', () => {
  it('is the newest message after the few before it, the tail kept when too long', () => {
    const messages = ['a', 'Alice met Carol', '', 'what did she say?'].map((content) => ({ content }));
    expect(recallQuery(messages, 2)).toBe('Alice met Carol\nwhat did she say?');
    expect(recallQuery(messages, 0)).toBe('what did she say?');
    expect(recallQuery([{ content: 'x'.repeat(9000) }, { content: 'end' }], 4).endsWith('\nend')).toBe(true);
    expect(recallQuery([{ content: 'x'.repeat(9000) }], 4)).toHaveLength(8000);
  });
});
