import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../src/events/errors.js';
import { createEmbeddingProvider, dot, fingerprintKey, type EmbeddingProvider, type EmbeddingPurpose } from '../src/providers/embeddings/index.js';
import { openTestEngine } from './support/engine.js';
import { writeTinyModelDir, type TinyModel } from './support/onnx-model.js';

// A tiny encoder the test writes itself (test/support/onnx-model.ts), run by the real onnxruntime-node.
const words = ['golden', 'retriever', 'piano', 'lessons', 'on', 'tuesday', 'play', '##s'];
const hidden = 6;
const ids = (tokens: readonly string[], vocab: readonly string[]) => tokens.map((t) => vocab.indexOf(t));

/** What the model should answer, computed by hand: token vectors plus type-0 vector, pooled, L2-normalised. */
function expected(model: TinyModel, tokenIds: readonly number[], pooling: 'mean' | 'cls' | 'max'): number[] {
  const rows = tokenIds.map((id) => model.embeddings[id]!.map((v, j) => v + model.tokenTypes[0]![j]!));
  const pooled =
    pooling === 'cls' ? rows[0]! : rows[0]!.map((_, j) => (pooling === 'max' ? Math.max(...rows.map((r) => r[j]!)) : rows.reduce((s, r) => s + r[j]!, 0) / rows.length));
  const norm = Math.hypot(...pooled);
  return pooled.map((v) => v / norm);
}

describe('onnx embedding provider (a tiny model written by the test)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lm-onnx-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const provider = (extra: Record<string, unknown> = {}) => createEmbeddingProvider({ provider: 'onnx', modelDir: dir, ...extra });

  it('embeds with the dimension the model declares, mean-pooled over the tokens the mask keeps', async () => {
    const model = writeTinyModelDir(dir, { words, hidden, pooling: 'mean' });
    const p = provider();
    expect(p.fingerprint).toMatchObject({ provider: 'onnx', dimension: hidden, settings: { pooling: 'mean' } });
    // Different lengths in one batch: the short text is padded, and padding must not count.
    const [a, b] = await p.embed(['Golden retriever', 'piano lessons on Tuesday']);
    const want = (tokens: string[]) => expected(model, ids(['[CLS]', ...tokens, '[SEP]'], model.vocab), 'mean');
    expect(Array.from(a!)).toEqual(want(['golden', 'retriever']).map((v) => expect.closeTo(v, 5)));
    expect(Array.from(b!)).toEqual(want(['piano', 'lessons', 'on', 'tuesday']).map((v) => expect.closeTo(v, 5)));
  });

  it('pools by the CLS token or by max when 1_Pooling/config.json says so, and WordPiece splits words', async () => {
    for (const pooling of ['cls', 'max'] as const) {
      const model = writeTinyModelDir(dir, { words, hidden, pooling });
      const [v] = await provider().embed(['plays piano']);
      const want = expected(model, ids(['[CLS]', 'play', '##s', 'piano', '[SEP]'], model.vocab), pooling);
      expect(Array.from(v!)).toEqual(want.map((x) => expect.closeTo(x, 5)));
    }
  });

  it('puts the prompts of config_sentence_transformers.json before queries and documents (e5 style)', async () => {
    const model = writeTinyModelDir(dir, { words: [...words, 'query', 'passage', ':'], hidden, pooling: 'mean', prompts: { query: 'query: ', document: 'passage: ' } });
    const p = provider();
    const [doc] = await p.embed(['piano']);
    const [query] = await p.embed(['piano'], 'query');
    const want = (prefix: string) => expected(model, ids(['[CLS]', prefix, ':', 'piano', '[SEP]'], model.vocab), 'mean');
    expect(Array.from(doc!)).toEqual(want('passage').map((x) => expect.closeTo(x, 5)));
    expect(Array.from(query!)).toEqual(want('query').map((x) => expect.closeTo(x, 5)));
    expect(p.fingerprint.settings).toMatchObject({ queryPrefix: 'query: ', documentPrefix: 'passage: ' });
  });

  it('batches many texts and keeps their order; long texts are cut to the token limit', async () => {
    writeTinyModelDir(dir, { words, hidden, pooling: 'mean' });
    const p = provider({ onnx: { batchSize: 3, maxTokens: 4 } });
    const texts = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? 'piano '.repeat(i + 1) : 'golden retriever'));
    const all = await p.embed(texts);
    const single = await Promise.all(texts.map(async (t) => (await p.embed([t]))[0]!));
    expect(all.map((v) => Array.from(v))).toEqual(single.map((v) => Array.from(v)));
    // [CLS] piano piano [SEP] whatever the number of pianos: cut to 4 tokens, the closing one kept.
    expect(Array.from(all[8]!)).toEqual(Array.from(all[2]!));
    expect(await p.embed([])).toEqual([]);
  });

  it('changes its fingerprint when any model file changes, and not when nothing does', () => {
    writeTinyModelDir(dir, { words, hidden, pooling: 'mean' });
    const before = fingerprintKey(provider().fingerprint);
    expect(fingerprintKey(provider().fingerprint)).toBe(before);
    appendFileSync(join(dir, 'model.onnx'), Buffer.from([0]));
    const afterModel = fingerprintKey(provider().fingerprint);
    expect(afterModel).not.toBe(before);
    writeFileSync(join(dir, '1_Pooling', 'config.json'), JSON.stringify({ word_embedding_dimension: hidden, pooling_mode_mean_tokens: true, pooling_mode_cls_token: false }));
    const afterPooling = fingerprintKey(provider().fingerprint);
    expect(afterPooling).not.toBe(afterModel);
    // External weights beside the graph (model.onnx_data) are part of the model too.
    writeFileSync(join(dir, 'model.onnx_data'), Buffer.from([1, 2, 3]));
    expect(fingerprintKey(provider().fingerprint)).not.toBe(afterPooling);
  });

  it('refuses a missing or incomplete model directory with an error naming the setting', async () => {
    expect(() => createEmbeddingProvider({ provider: 'onnx' })).toThrow(/embedding\.modelDir/);
    expect(() => createEmbeddingProvider({ provider: 'onnx', modelDir: join(dir, 'absent') })).toThrow(ValidationError);
    expect(() => createEmbeddingProvider({ provider: 'onnx', modelDir: join(dir, 'absent') })).toThrow(/invalid embedding\.modelDir: .*absent is not a directory/);
    expect(() => provider()).toThrow(/invalid embedding\.modelDir: no ONNX model/);
    writeTinyModelDir(dir, { words, hidden, pooling: 'mean' });
    rmSync(join(dir, 'tokenizer.json'));
    expect(() => provider()).toThrow(/invalid embedding\.modelDir: .*tokenizer\.json is missing/);
    writeFileSync(join(dir, 'tokenizer.json'), '{ not json');
    expect(() => provider()).toThrow(/invalid embedding\.modelDir: .*tokenizer\.json is not valid JSON/);
    writeTinyModelDir(dir, { words, hidden, pooling: 'mean' });
    expect(() => provider({ dimension: hidden + 1 })).toThrow(/invalid embedding\.dimension: .* 6 dimensions, not 7/);
    expect(() => provider({ onnx: { modelFile: 'onnx/model_quantized.onnx' } })).toThrow(/invalid embedding\.onnx\.modelFile/);
  });

  it('reports an ONNX file that is not a model when it first embeds, naming the file and the setting', async () => {
    writeTinyModelDir(dir, { words, hidden, pooling: 'mean' });
    writeFileSync(join(dir, 'model.onnx'), 'this is not an onnx model');
    const p = provider();
    await expect(p.embed(['piano'])).rejects.toThrow(/onnx embeddings: cannot load the model .*model\.onnx \(embedding\.modelDir\)/);
  });

  it('finds onnx/model.onnx (the layout of exported models) and reads the dimension from config.json alone', async () => {
    writeTinyModelDir(dir, { words, hidden });
    mkdirSync(join(dir, 'onnx'));
    renameSync(join(dir, 'model.onnx'), join(dir, 'onnx', 'model.onnx'));
    const p = provider();
    expect(p.fingerprint.dimension).toBe(hidden);
    expect(p.fingerprint.settings.pooling).toBe('mean');
    const [v] = await p.embed(['piano']);
    expect(v).toHaveLength(hidden);
  });

  it('is asked for query vectors by recall and for document vectors by the write path', async () => {
    writeTinyModelDir(dir, { words: [...words, 'query', 'passage', ':'], hidden, pooling: 'mean', prompts: { query: 'query: ', document: 'passage: ' } });
    const inner = provider();
    const asked: EmbeddingPurpose[] = [];
    const spy: EmbeddingProvider = { fingerprint: inner.fingerprint, maxInputChars: inner.maxInputChars, embed: (texts, purpose) => (asked.push(purpose ?? 'document'), inner.embed(texts, purpose)) };
    const engine = await openTestEngine(join(dir, 'store'), { embeddingProvider: spy });
    try {
      await engine.writeMemory({ text: 'golden retriever' });
      expect(asked).toEqual(['document']);
      const found = await engine.recall({ query: 'golden piano', scope: { mode: 'global' }, explain: true });
      expect(asked).toContain('query');
      // The vector route scored the memory against the question embedded with the query prompt.
      const [memory] = await inner.embed(['golden retriever']);
      const [question] = await inner.embed(['golden piano'], 'query');
      expect(found.memories[0]?.explain?.routes['document.vector.raw']).toBeCloseTo(dot(memory!, question!), 5);
    } finally {
      await engine.close();
    }
  });

  it('reads a SentencePiece (Unigram) tokenizer as multilingual-e5 ships it, Chinese included', async () => {
    const pieces = ['▁我', '有', '一只', '金毛', '▁piano', '▁lessons'];
    const model = writeTinyModelDir(dir, { tokenizer: 'unigram', words: pieces, hidden, pooling: 'mean' });
    const p = provider();
    const [zh, en] = await p.embed(['我有一只金毛', 'piano lessons']);
    const want = (tokens: string[]) => expected(model, ids(['<s>', ...tokens, '</s>'], model.vocab), 'mean');
    expect(Array.from(zh!)).toEqual(want(['▁我', '有', '一只', '金毛']).map((x) => expect.closeTo(x, 5)));
    expect(Array.from(en!)).toEqual(want(['▁piano', '▁lessons']).map((x) => expect.closeTo(x, 5)));
  });
});
