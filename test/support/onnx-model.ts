/*
 * A tiny sentence-embedding model written as an ONNX file by the test itself, so no test needs a
 * download: a word-embedding lookup plus a token-type embedding that the attention mask gates,
 * output as `last_hidden_state` [batch, sequence, hidden] the way exported BERT-style encoders
 * answer. Padding positions come out non-zero (the [PAD] row), as a real encoder's do, so pooling
 * that forgets the mask gives another vector. Beside it a WordPiece tokenizer.json over the same vocabulary and, on request, the
 * sentence-transformers files that say how to pool. The protobuf is encoded here by hand (field
 * numbers of onnx.proto), which keeps a protobuf library out of the dependencies.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// ---------------------------------------------------------------------------------------------
// Protobuf wire format: varints, length-delimited fields.

type Field = Buffer;

function varint(value: bigint): Buffer {
  // Negative int64 values are sent as their 64-bit two's complement (ten bytes).
  let v = value < 0n ? (1n << 64n) + value : value;
  const bytes: number[] = [];
  do {
    const low = Number(v & 0x7fn);
    v >>= 7n;
    bytes.push(v > 0n ? low | 0x80 : low);
  } while (v > 0n);
  return Buffer.from(bytes);
}

const tag = (field: number, wire: number): Buffer => varint(BigInt((field << 3) | wire));
const int = (field: number, value: number | bigint): Field => Buffer.concat([tag(field, 0), varint(BigInt(value))]);
const bytes = (field: number, value: Buffer): Field => Buffer.concat([tag(field, 2), varint(BigInt(value.length)), value]);
const str = (field: number, value: string): Field => bytes(field, Buffer.from(value, 'utf8'));
const message = (field: number, ...fields: Field[]): Field => bytes(field, Buffer.concat(fields));

// ---------------------------------------------------------------------------------------------
// onnx.proto messages (ModelProto 7 = graph, GraphProto 1 node / 5 initializer / 11 input / 12 output).

const floatType = 1;
const int64Type = 7;

function tensor(name: string, dims: readonly number[], type: number, raw: Buffer): Buffer {
  return Buffer.concat([...dims.map((d) => int(1, d)), int(2, type), str(8, name), bytes(9, raw)]);
}

function floats(values: readonly number[]): Buffer {
  const raw = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => raw.writeFloatLE(v, i * 4));
  return raw;
}

function int64s(values: readonly number[]): Buffer {
  const raw = Buffer.alloc(values.length * 8);
  values.forEach((v, i) => raw.writeBigInt64LE(BigInt(v), i * 8));
  return raw;
}

/** A ValueInfoProto: a tensor of `type` whose dimensions are named (symbolic) or fixed. */
function valueInfo(field: number, name: string, type: number, dims: readonly (string | number)[]): Field {
  const shape = dims.map((d) => message(1, typeof d === 'string' ? str(2, d) : int(1, d)));
  return message(field, str(1, name), message(2, message(1, int(1, type), message(2, ...shape))));
}

function node(op: string, inputs: readonly string[], outputs: readonly string[], ...attributes: Field[]): Field {
  return message(1, ...inputs.map((i) => str(1, i)), ...outputs.map((o) => str(2, o)), str(3, `${op}_${outputs[0]}`), str(4, op), ...attributes);
}

/** AttributeProto of type INT (2): name 1, i 3, type 20. */
const intAttribute = (name: string, value: number): Field => message(5, str(1, name), int(3, value), int(20, 2));

export interface TinyModel {
  /** Row i is the vector of token id i. */
  readonly embeddings: readonly (readonly number[])[];
  /** Row t is added to every token of type t. */
  readonly tokenTypes: readonly (readonly number[])[];
}

/** The ONNX bytes of the tiny encoder: hidden = E[input_ids] + T[token_type_ids] * attention_mask. */
export function tinyEncoderOnnx(model: TinyModel): Buffer {
  const hidden = model.embeddings[0]?.length ?? 0;
  const dynamic = ['batch', 'sequence'];
  const graph = Buffer.concat([
    node('Gather', ['word_embeddings', 'input_ids'], ['words'], intAttribute('axis', 0)),
    node('Gather', ['token_type_embeddings', 'token_type_ids'], ['types'], intAttribute('axis', 0)),
    node('Cast', ['attention_mask'], ['mask_float'], intAttribute('to', floatType)),
    node('Unsqueeze', ['mask_float', 'last_axis'], ['mask_3d']),
    node('Mul', ['types', 'mask_3d'], ['gated_types']),
    node('Add', ['words', 'gated_types'], ['last_hidden_state']),
    str(2, 'tiny-encoder'),
    message(5, tensor('word_embeddings', [model.embeddings.length, hidden], floatType, floats(model.embeddings.flat()))),
    message(5, tensor('token_type_embeddings', [model.tokenTypes.length, hidden], floatType, floats(model.tokenTypes.flat()))),
    message(5, tensor('last_axis', [1], int64Type, int64s([-1]))),
    valueInfo(11, 'input_ids', int64Type, dynamic),
    valueInfo(11, 'attention_mask', int64Type, dynamic),
    valueInfo(11, 'token_type_ids', int64Type, dynamic),
    valueInfo(12, 'last_hidden_state', floatType, [...dynamic, hidden]),
  ]);
  // ir_version 8, producer, graph, opset_import { domain "", version 13 }.
  return Buffer.concat([int(1, 8), str(2, 'livingmemory-tests'), message(7, graph), message(8, str(1, ''), int(2, 13))]);
}

// ---------------------------------------------------------------------------------------------
// The model directory: model.onnx, tokenizer.json, config.json, and sentence-transformers files.

export const tinySpecials = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'] as const;

/** A WordPiece tokenizer.json (BERT normaliser and pre-tokeniser, [CLS] ... [SEP]) over `vocab`. */
export function wordPieceTokenizerJson(vocab: readonly string[]): object {
  const ids = Object.fromEntries(vocab.map((token, id) => [token, id]));
  const special = (content: string) => ({ id: ids[content], content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: tinySpecials.map(special),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: { type: 'BertProcessing', sep: ['[SEP]', ids['[SEP]']], cls: ['[CLS]', ids['[CLS]']] },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: ids },
  };
}

/** SentencePiece's specials in XLM-R's order (multilingual-e5, bge-m3): the pad id is 1, not 0. */
export const unigramSpecials = ['<s>', '<pad>', '</s>', '<unk>'] as const;

/** A Unigram (SentencePiece) tokenizer.json as XLM-R-based models ship it: Metaspace, <s> ... </s>. */
export function unigramTokenizerJson(vocab: readonly string[]): object {
  const special = (content: string) => ({ id: vocab.indexOf(content), content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const token = (id: string) => ({ SpecialToken: { id, type_id: 0 } });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: unigramSpecials.map(special),
    normalizer: null,
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    post_processor: {
      type: 'TemplateProcessing',
      single: [token('<s>'), { Sequence: { id: 'A', type_id: 0 } }, token('</s>')],
      pair: [token('<s>'), { Sequence: { id: 'A', type_id: 0 } }, token('</s>'), token('</s>'), { Sequence: { id: 'B', type_id: 0 } }, token('</s>')],
      special_tokens: Object.fromEntries(['<s>', '</s>'].map((t) => [t, { id: t, ids: [vocab.indexOf(t)], tokens: [t] }])),
    },
    decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    // Longer pieces score higher, so the lattice prefers whole words.
    model: { type: 'Unigram', unk_id: vocab.indexOf('<unk>'), byte_fallback: false, vocab: vocab.map((piece, i) => [piece, i < unigramSpecials.length ? 0 : -10 / piece.length]) },
  };
}

export interface TinyModelDir {
  /** WordPiece with [CLS]/[SEP] (BERT, bge) by default; `unigram`: SentencePiece with <s>/</s> (e5). */
  readonly tokenizer?: 'wordpiece' | 'unigram';
  /** Words (pieces, for unigram) after the four special tokens; id = 4 + index. */
  readonly words: readonly string[];
  readonly hidden: number;
  /** Writes 1_Pooling/config.json (and modules.json) choosing this pooling; none: no pooling file. */
  readonly pooling?: 'mean' | 'cls' | 'max';
  /** Written to config_sentence_transformers.json as its prompts. */
  readonly prompts?: { readonly query?: string; readonly document?: string };
}

/** Component j of token i: pseudo-random (a sine hash), in quarters from -2 to 2, the same on every run. */
export function tinyVector(i: number, j: number): number {
  const x = Math.sin(i * 12.9898 + j * 78.233) * 43758.5453;
  return Math.round((x - Math.floor(x)) * 16 - 8) / 4;
}

/** Writes the model directory and returns the model's tables, for hand computations. */
export function writeTinyModelDir(dir: string, spec: TinyModelDir): TinyModel & { vocab: string[] } {
  const unigram = spec.tokenizer === 'unigram';
  const vocab = [...(unigram ? unigramSpecials : tinySpecials), ...spec.words];
  const embeddings = vocab.map((_, i) => Array.from({ length: spec.hidden }, (_, j) => tinyVector(i, j)));
  const tokenTypes = [Array.from({ length: spec.hidden }, (_, j) => (j === 0 ? 0.5 : 0)), Array.from({ length: spec.hidden }, () => 0)];
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'model.onnx'), tinyEncoderOnnx({ embeddings, tokenTypes }));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(unigram ? unigramTokenizerJson(vocab) : wordPieceTokenizerJson(vocab)));
  const tokenizerConfig = unigram ? { model_max_length: 512, pad_token: '<pad>', tokenizer_class: 'XLMRobertaTokenizer' } : { model_max_length: 512, do_lower_case: true };
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify(tokenizerConfig));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'bert', hidden_size: spec.hidden, max_position_embeddings: 512 }));
  if (spec.pooling) {
    mkdirSync(join(dir, '1_Pooling'), { recursive: true });
    writeFileSync(
      join(dir, '1_Pooling', 'config.json'),
      JSON.stringify({
        word_embedding_dimension: spec.hidden,
        pooling_mode_cls_token: spec.pooling === 'cls',
        pooling_mode_mean_tokens: spec.pooling === 'mean',
        pooling_mode_max_tokens: spec.pooling === 'max',
        pooling_mode_mean_sqrt_len_tokens: false,
      }),
    );
    const modules = [
      { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
      { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
      { idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' },
    ];
    writeFileSync(join(dir, 'modules.json'), JSON.stringify(modules));
  }
  if (spec.prompts) writeFileSync(join(dir, 'config_sentence_transformers.json'), JSON.stringify({ prompts: spec.prompts }));
  return { embeddings, tokenTypes, vocab };
}
