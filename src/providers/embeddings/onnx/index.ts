import { createRequire } from 'node:module';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { ValidationError } from '../../../events/errors.js';
import { EmbeddingProviderError, l2Normalize, truncateForEmbedding, type EmbeddingProvider, type EmbeddingPurpose } from '../provider.js';
import { readModelDir, type ModelDir, type ModelDirOptions } from './model-dir.js';
import { poolTokens } from './pooling.js';

export type { Pooling } from './model-dir.js';

export interface OnnxProviderOptions extends ModelDirOptions {
  /** Default 4000 (the token limit cuts again). */
  readonly maxInputChars?: number;
  /** Texts per model run; default 16. */
  readonly batchSize?: number;
  /** onnxruntime's intra-op threads; default 1, so one engine never takes every core of a shared host. */
  readonly threads?: number;
}

export const onnxDefaults = { maxInputChars: 4000, batchSize: 16, threads: 1 } as const;

type Tokenizers = typeof import('@huggingface/tokenizers');
type Encoded = { readonly ids: readonly number[]; readonly types: readonly number[] };
type Ort = typeof import('onnxruntime-node');

const inputs = ['input_ids', 'attention_mask', 'token_type_ids'] as const;
// Token vectors are preferred (pooled here as the model's config says); an already pooled output is taken as is.
const preferredOutputs = ['last_hidden_state', 'token_embeddings', 'sentence_embedding'];

function loadTokenizer(dir: ModelDir, modelDir: string) {
  // Required here, not imported at the top: an engine on another provider never loads it.
  const { Tokenizer } = createRequire(import.meta.url)('@huggingface/tokenizers') as Tokenizers;
  try {
    return new Tokenizer(dir.tokenizerJson, dir.tokenizerConfig);
  } catch (error) {
    throw new ValidationError('embedding.modelDir', `the tokenizer in ${modelDir}/tokenizer.json cannot be used: ${(error as Error).message}`);
  }
}

/**
 * A sentence-embedding model the user brings: ONNX weights and a Hugging Face tokenizer.json in
 * `modelDir`, run in-process on onnxruntime's CPU runtime. The directory is read and checked when
 * the provider is made; the ONNX session starts on the first `embed`, once.
 */
export function createOnnxEmbeddingProvider(options: OnnxProviderOptions): EmbeddingProvider {
  const maxInputChars = options.maxInputChars ?? onnxDefaults.maxInputChars;
  const batchSize = options.batchSize ?? onnxDefaults.batchSize;
  const threads = options.threads ?? onnxDefaults.threads;
  const dir = readModelDir(options);
  const tokenizer = loadTokenizer(dir, options.modelDir);
  const padToken = (dir.tokenizerConfig as { pad_token?: unknown }).pad_token;
  const padId = (typeof padToken === 'string' ? tokenizer.token_to_id(padToken) : undefined) ?? 0;
  const fail = (detail: string, cause?: unknown) => new EmbeddingProviderError('onnx', detail, cause === undefined ? {} : { cause });

  let session: Promise<{ ort: Ort; session: InferenceSession; output: string }> | undefined;
  const getSession = () => {
    session ??= (async () => {
      // Required, not import()ed: the bundled CLI (ADR 26) runs as one script, which has no dynamic import.
      const ort = createRequire(import.meta.url)('onnxruntime-node') as Ort;
      const opened = await ort.InferenceSession.create(dir.modelPath, { intraOpNumThreads: threads, interOpNumThreads: 1 });
      const unknown = opened.inputNames.filter((n) => !(inputs as readonly string[]).includes(n));
      if (unknown.length > 0) throw new Error(`it asks for inputs ${unknown.join(', ')}; this provider feeds ${inputs.join(', ')}`);
      const output = preferredOutputs.find((n) => opened.outputNames.includes(n)) ?? opened.outputNames[0];
      if (output === undefined) throw new Error('it has no output');
      return { ort, session: opened, output };
    })().catch((error: unknown) => {
      session = undefined;
      throw fail(`cannot load the model ${dir.modelPath} (embedding.modelDir): ${(error as Error).message}`, error);
    });
    return session;
  };

  const encode = (text: string): Encoded => {
    const e = tokenizer.encode(text, { add_special_tokens: true, return_token_type_ids: true });
    const types = e.token_type_ids ?? e.ids.map(() => 0);
    if (e.ids.length <= dir.maxTokens) return { ids: e.ids, types };
    // Cut the middle of the sequence, keeping the closing special token ([SEP], </s>) the model expects.
    const keep = dir.maxTokens - 1;
    return { ids: [...e.ids.slice(0, keep), e.ids[e.ids.length - 1] ?? padId], types: [...types.slice(0, keep), types[types.length - 1] ?? 0] };
  };

  const run = async (batch: readonly Encoded[]): Promise<Float32Array[]> => {
    const { ort, session: s, output } = await getSession();
    const length = Math.max(1, ...batch.map((e) => e.ids.length));
    const tensors = { input_ids: new BigInt64Array(batch.length * length).fill(BigInt(padId)), attention_mask: new BigInt64Array(batch.length * length), token_type_ids: new BigInt64Array(batch.length * length) };
    const mask = batch.map((e) => Array.from({ length }, (_, t) => (t < e.ids.length ? 1 : 0)));
    batch.forEach((e, b) => {
      e.ids.forEach((id, t) => {
        tensors.input_ids[b * length + t] = BigInt(id);
        tensors.attention_mask[b * length + t] = 1n;
        tensors.token_type_ids[b * length + t] = BigInt(e.types[t] ?? 0);
      });
    });
    const feeds = Object.fromEntries(s.inputNames.map((n) => [n, new ort.Tensor('int64', tensors[n as (typeof inputs)[number]], [batch.length, length])]));
    let result: Tensor | undefined;
    try {
      result = (await s.run(feeds, [output]))[output];
    } catch (error) {
      throw fail(`the model failed on a batch of ${batch.length}: ${(error as Error).message}`, error);
    }
    if (!result || result.type !== 'float32') throw fail(`output ${output} is ${result?.type ?? 'missing'}, expected float32`);
    const dims = result.dims;
    const size = dims[dims.length - 1];
    if (size !== dir.dimension) throw fail(`output ${output} has ${size} components, but the model directory says ${dir.dimension} (embedding.dimension)`);
    const data = result.data as Float32Array;
    if (dims.length === 3) return poolTokens(data, [batch.length, length, size], mask, dir.pooling);
    if (dims.length === 2) return batch.map((_, b) => data.slice(b * size, (b + 1) * size));
    throw fail(`output ${output} has shape [${dims.join(', ')}]; expected [batch, tokens, ${size}] or [batch, ${size}]`);
  };

  return {
    fingerprint: {
      provider: 'onnx',
      model: dir.name,
      dimension: dir.dimension,
      settings: { files: dir.filesHash, pooling: dir.pooling, maxTokens: dir.maxTokens, queryPrefix: dir.queryPrefix, documentPrefix: dir.documentPrefix, maxInputChars },
    },
    maxInputChars,
    async embed(texts, purpose: EmbeddingPurpose = 'document') {
      if (texts.length === 0) return [];
      const prefix = purpose === 'query' ? dir.queryPrefix : dir.documentPrefix;
      const encoded = texts.map((t) => encode(prefix + truncateForEmbedding(t, maxInputChars)));
      // Shortest first, so a batch pads to lengths alike.
      const order = encoded.map((_, i) => i).sort((a, b) => (encoded[a]?.ids.length ?? 0) - (encoded[b]?.ids.length ?? 0));
      const vectors: Float32Array[] = new Array<Float32Array>(texts.length);
      for (let start = 0; start < order.length; start += batchSize) {
        const slice = order.slice(start, start + batchSize);
        const pooled = await run(slice.map((i) => encoded[i] as Encoded));
        slice.forEach((i, k) => (vectors[i] = l2Normalize(pooled[k] as Float32Array)));
      }
      return vectors;
    },
  };
}
