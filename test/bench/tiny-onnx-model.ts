/**
 * Writes the tests' tiny ONNX encoder (test/support/onnx-model.ts) as a model directory, to prove
 * the `onnx` path of a benchmark without a download:
 *
 *   node dist/test/bench/tiny-onnx-model.js DIR [--words=N] [--dataset=PATH]
 *   npm run bench:locomo -- --providers=onnx --model-dir DIR
 *
 * Its vocabulary is the N (default 4000) most frequent words of the LoCoMo turns and each word a
 * fixed pseudo-random vector, so mean pooling makes a random projection of the bag of words: a
 * lexical embedding, no semantics. Figures with it say the path works, not how a real model does.
 */
import { resolve } from 'node:path';
import { writeTinyModelDir } from '../support/onnx-model.js';
import { defaultDatasetPath, loadLocomo } from './locomo/dataset.js';
import { intArg, isEntryPoint, progress } from './support.js';

function frequentWords(count: number, dataset: string): string[] {
  const seen = new Map<string, number>();
  for (const conversation of loadLocomo(dataset)) {
    for (const turn of conversation.turns) {
      for (const word of turn.text.toLowerCase().match(/[a-z]+/g) ?? []) seen.set(word, (seen.get(word) ?? 0) + 1);
    }
  }
  return [...seen].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, count).map(([w]) => w);
}

if (isEntryPoint(import.meta.url)) {
  const dir = process.argv.slice(2).find((a) => !a.startsWith('--'));
  if (dir === undefined) throw new Error('usage: tiny-onnx-model.js DIR [--words=N]');
  const dataset = process.argv.find((a) => a.startsWith('--dataset='))?.slice('--dataset='.length);
  const words = frequentWords(intArg('words', 4000), dataset === undefined ? defaultDatasetPath() : resolve(dataset));
  writeTinyModelDir(resolve(dir), { words, hidden: 64, pooling: 'mean' });
  progress(`wrote a tiny ONNX encoder (${words.length} words, 64 dimensions) to ${resolve(dir)}`);
}
