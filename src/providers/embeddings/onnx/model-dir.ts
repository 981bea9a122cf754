/*
 * What a sentence-embedding model directory says about itself: which ONNX file to run, the
 * tokenizer, how to pool (sentence-transformers' modules.json and 1_Pooling/config.json), the
 * prompts (config_sentence_transformers.json), the longest input, the vector length, and a hash
 * of every file that decides the vectors. Read synchronously once, when the provider is made, so
 * a wrong directory is refused before the store opens, naming the setting.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { ValidationError } from '../../../events/errors.js';

export type Pooling = 'mean' | 'cls' | 'max';

/** What the configuration may set; every value left out comes from the directory's own files. */
export interface ModelDirOptions {
  readonly modelDir: string;
  /** Relative to modelDir; default model.onnx, else onnx/model.onnx. */
  readonly modelFile?: string;
  readonly pooling?: Pooling;
  readonly queryPrefix?: string;
  readonly documentPrefix?: string;
  readonly maxTokens?: number;
  readonly dimension?: number;
}

export interface ModelDir {
  readonly modelPath: string;
  readonly tokenizerJson: object;
  readonly tokenizerConfig: object;
  readonly pooling: Pooling;
  readonly queryPrefix: string;
  readonly documentPrefix: string;
  readonly maxTokens: number;
  readonly dimension: number;
  /** sha256 hex over the name, size and content hash of every file read (the fingerprint's model identity). */
  readonly filesHash: string;
  /** The model's name from config.json (`_name_or_path`); not the directory's, so moving it changes nothing. */
  readonly name: string;
}

const field = 'embedding.modelDir';
const defaultMaxTokens = 512;

type Json = Record<string, unknown>;

function readJson(dir: string, name: string, required: boolean): Json | null {
  const path = join(dir, name);
  if (!existsSync(path)) {
    if (required) throw new ValidationError(field, `${path} is missing (a model directory holds tokenizer.json and model.onnx)`);
    return null;
  }
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (parsed === null || typeof parsed !== 'object') throw new Error('not a JSON object or array');
    return parsed as Json;
  } catch (error) {
    throw new ValidationError(field, `${path} is not valid JSON: ${(error as Error).message}`);
  }
}

/** sha256 of a file read in 4 MiB pieces, so a model of a few hundred MB is never held twice. */
function fileHash(path: string): string {
  const hash = createHash('sha256');
  const buffer = Buffer.alloc(4 << 20);
  const fd = openSync(path, 'r');
  try {
    for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) hash.update(buffer.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

function findModelFile(dir: string, modelFile: string | undefined): string {
  const candidates = modelFile !== undefined ? [modelFile] : ['model.onnx', join('onnx', 'model.onnx')];
  const found = candidates.find((c) => existsSync(join(dir, c)) && statSync(join(dir, c)).isFile());
  if (found) return found;
  const setting = modelFile !== undefined ? 'embedding.onnx.modelFile' : field;
  throw new ValidationError(setting, `no ONNX model in ${dir} (looked for ${candidates.join(', ')})`);
}

/** The pooling module's directory: from modules.json when present, else 1_Pooling. */
function poolingConfig(dir: string, modules: Json | null): Json | null {
  const list = Array.isArray(modules) ? (modules as Json[]) : [];
  const entry = list.find((m) => typeof m.type === 'string' && m.type.endsWith('.Pooling'));
  const path = typeof entry?.path === 'string' ? entry.path : '1_Pooling';
  return readJson(dir, join(path, 'config.json'), false);
}

function poolingFrom(config: Json | null): Pooling | null {
  if (!config) return null;
  if (config.pooling_mode_cls_token === true) return 'cls';
  if (config.pooling_mode_max_tokens === true) return 'max';
  if (config.pooling_mode_mean_tokens === true) return 'mean';
  if (config.pooling_mode_mean_sqrt_len_tokens === true || config.pooling_mode_lasttoken === true || config.pooling_mode_weightedmean_tokens === true) {
    throw new ValidationError(field, 'the model pools in a way this provider does not (it knows mean, cls and max); set embedding.onnx.pooling to override');
  }
  return null;
}

const positive = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** Reads and checks the model directory; a ValidationError names the setting that is wrong. */
export function readModelDir(options: ModelDirOptions): ModelDir {
  const dir = options.modelDir;
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ValidationError(field, `${dir} is not a directory`);
  const modelFile = findModelFile(dir, options.modelFile);
  const tokenizerJson = readJson(dir, 'tokenizer.json', true) ?? {};
  const tokenizerConfig = readJson(dir, 'tokenizer_config.json', false) ?? {};
  const config = readJson(dir, 'config.json', false) ?? {};
  const modules = readJson(dir, 'modules.json', false);
  const pooling = poolingConfig(dir, modules);
  const sbert = readJson(dir, 'sentence_bert_config.json', false) ?? {};
  const prompts = (readJson(dir, 'config_sentence_transformers.json', false)?.prompts ?? {}) as Json;

  const declared = positive(pooling?.word_embedding_dimension) ?? positive(config.hidden_size);
  if (options.dimension !== undefined && declared !== null && options.dimension !== declared) {
    throw new ValidationError('embedding.dimension', `the model in ${dir} makes vectors of ${declared} dimensions, not ${options.dimension}`);
  }
  const dimension = options.dimension ?? declared;
  if (dimension === null) throw new ValidationError('embedding.dimension', `${dir} does not say its vector length (no 1_Pooling/config.json nor hidden_size in config.json): set it`);

  const longest = positive(sbert.max_seq_length) ?? positive(config.max_position_embeddings) ?? defaultMaxTokens;
  // Weights over 2 GB sit beside the graph as external data (model.onnx_data, as bge-m3's export has them).
  const files = [modelFile, ...['_data', '.data'].map((s) => modelFile + s).filter((f) => existsSync(join(dir, f)))];
  const configFiles = ['tokenizer.json', 'tokenizer_config.json', 'config.json', 'modules.json', 'sentence_bert_config.json', 'config_sentence_transformers.json', '1_Pooling/config.json'];
  const hashed = [...files, ...configFiles.filter((f) => existsSync(join(dir, f)))].sort();
  const filesHash = createHash('sha256');
  for (const f of hashed) filesHash.update(`${f}\0${statSync(join(dir, f)).size}\0${fileHash(join(dir, f))}\n`);

  return {
    modelPath: join(dir, modelFile),
    tokenizerJson,
    tokenizerConfig,
    pooling: options.pooling ?? poolingFrom(pooling) ?? 'mean',
    queryPrefix: options.queryPrefix ?? text(prompts.query) ?? '',
    documentPrefix: options.documentPrefix ?? text(prompts.document) ?? text(prompts.passage) ?? '',
    // Position embeddings bound the sequence; BERT-style models count their special tokens in it.
    maxTokens: Math.min(options.maxTokens ?? longest, longest),
    dimension,
    filesHash: filesHash.digest('hex'),
    name: text(config._name_or_path) ?? 'onnx-model',
  };
}
