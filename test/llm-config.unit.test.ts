import { describe, expect, it } from 'vitest';
import { ValidationError } from '../src/events/errors.js';
import { createLlmProvider, llmConfigSchema } from '../src/providers/llm/index.js';
import { renderConversation } from '../src/providers/llm/prompts.js';
import { unfence } from '../src/providers/llm/chat-answer.js';
import { englishGroup, window } from './support/summary-messages.js';

describe('llm config', () => {
  it('defaults to the extractive summarizer', () => {
    expect(llmConfigSchema().parse({})).toEqual({ provider: 'extractive', identityAliases: {} });
    expect(createLlmProvider().fingerprint).toEqual({
      provider: 'extractive',
      model: 'extractive-v1',
      dimension: null,
      settings: { maxSentences: 6, identityAliases: '{}' },
    });
  });

  it('makes the openai summarizer with its defaults, and puts the aliases in both fingerprints', () => {
    const identityAliases = { 'tg:2': 'Alice' };
    const p = createLlmProvider({ provider: 'openai', openai: { baseUrl: 'http://127.0.0.1:9/v1', model: 'qwen' }, identityAliases });
    expect(p.fingerprint).toEqual({
      provider: 'openai',
      model: 'qwen',
      dimension: null,
      settings: { endpoint: 'http://127.0.0.1:9/v1/chat/completions', prompt: 'summary-v1', temperature: 0, maxInputChars: 24_000, identityAliases: '{"tg:2":"Alice"}' },
    });
    expect(createLlmProvider({ extractive: { maxSentences: 3 }, identityAliases }).fingerprint.settings).toEqual({ maxSentences: 3, identityAliases: '{"tg:2":"Alice"}' });
  });

  it.each<[string, unknown, string]>([
    ['openai without its settings', { provider: 'openai' }, 'llm.openai'],
    ['a bad base URL', { provider: 'openai', openai: { baseUrl: 'ftp://x', model: 'm' } }, 'llm.openai.baseUrl'],
    ['an unknown provider', { provider: 'gpt' }, 'llm.provider'],
    ['an unknown key', { providers: 'openai' }, 'llm.providers'],
    ['an empty alias', { identityAliases: { 'tg:1': ' ' } }, 'llm.identityAliases.tg:1'],
    ['negative retries', { provider: 'openai', openai: { baseUrl: 'http://h', model: 'm', maxRetries: -1 } }, 'llm.openai.maxRetries'],
  ])('refuses %s, naming the field', (_name, config, field) => {
    expect(() => createLlmProvider(config as never)).toThrow(ValidationError);
    expect(() => createLlmProvider(config as never)).toThrow(`invalid ${field}:`);
  });
});

describe('prompt rendering', () => {
  it('leaves out the oldest messages beyond the budget, and cuts a newest message that alone is too long', () => {
    const request = window('group', englishGroup);
    const all = renderConversation(request, {}, 10_000);
    expect(all.split('\n').filter((line) => line.startsWith('['))).toHaveLength(6);
    const short = renderConversation(request, {}, 120);
    expect(short).toContain('(4 earlier messages left out)');
    expect(short).toContain('Bob: I prefer tea over coffee');
    expect(short).not.toContain('Spotify');
    const tiny = renderConversation(request, {}, 20);
    expect(tiny).toContain('(5 earlier messages left out)');
    expect(tiny.endsWith('\n[2026-03-01 10:05] B')).toBe(true);
  });

  it('takes the JSON out of a ```json fence and leaves other text alone', () => {
    expect(unfence('```json\n{"a":1}\n```')).toBe('{"a":1}');
    expect(unfence('  ```\n{"a":1}```  ')).toBe('{"a":1}');
    expect(unfence('{"a":1}')).toBe('{"a":1}');
  });
});
