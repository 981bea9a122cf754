import { streams } from '../../streams.js';
import { openBytes, sealBytes, type SealedBox } from './cipher.js';
import type { Keystore, SubjectRef } from './keystore.js';
import { sealSpecs } from './specs.js';

/** The stored envelope: key ids (`k`), sealed field paths (`f`) and the AES-GCM box of their values. */
export interface Envelope extends SealedBox {
  readonly k: number[];
  readonly f: string[];
}

export const envelopeField = '$sealed';

type Data = Record<string, unknown>;

function getPath(data: Data, path: string): unknown {
  const dot = path.indexOf('.');
  if (dot < 0) return data[path];
  return (data[path.slice(0, dot)] as Data | undefined)?.[path.slice(dot + 1)];
}

/**
 * A copy of `data` without the `drop` paths (at most two levels), then with `put`'s values set.
 * Built key by key: `delete` would turn the objects into slow dictionaries for JSON.stringify.
 */
function reshape(data: Data, drop: readonly string[], put: readonly (readonly [string, unknown])[]): Data {
  const top = new Set<string>();
  const nested = new Map<string, string[]>();
  for (const path of drop) {
    const dot = path.indexOf('.');
    if (dot < 0) top.add(path);
    else nested.set(path.slice(0, dot), [...(nested.get(path.slice(0, dot)) ?? []), path.slice(dot + 1)]);
  }
  const out: Data = {};
  for (const key in data) {
    if (top.has(key)) continue;
    const inner = nested.get(key);
    out[key] = inner ? reshape(data[key] as Data, inner, []) : data[key];
  }
  for (const [path, value] of put) {
    const dot = path.indexOf('.');
    if (dot < 0) out[path] = value;
    else ((out[path.slice(0, dot)] ??= {}) as Data)[path.slice(dot + 1)] = value;
  }
  return out;
}

const aadOf = (type: string, eventId: string, envelope: Pick<Envelope, 'k' | 'f'>): string =>
  `${type}\n${eventId}\n${envelope.k.join(',')}\n${envelope.f.join(',')}`;

/** Seals and opens the content fields of events at the log's storage boundary (ADR 19). */
export function createSealingCodec(keystore: Keystore) {
  return {
    /**
     * An encoder for one append transaction: it remembers subject key ids and each memory's keys
     * for the rest of the batch (a derived event follows its MemoryWritten in the same append).
     */
    encoder() {
      const keyIds = new Map<string, number>();
      const memoryKeys = new Map<string, number[]>();
      const keyIdOf = (s: SubjectRef): number => {
        const name = `${s.kind}:${s.id}`;
        let found = keyIds.get(name);
        if (found === undefined) keyIds.set(name, (found = keystore.keyIdFor(s)));
        return found;
      };
      const keysOfMemory = (memoryId: string): number[] => {
        const stream = streams.memory(memoryId);
        let known = memoryKeys.get(stream);
        if (!known) memoryKeys.set(stream, (known = keystore.memoryKeyIds(stream) ?? []));
        // A memory whose keys are gone (erased) seals what follows under the event's own subjects only.
        return known.length > 0 && keystore.dataKey(known) ? [...known] : [];
      };
      return (type: string, data: Data, eventId: string): string => {
        const spec = sealSpecs.get(type);
        if (!spec) return JSON.stringify(data);
        const values: unknown[] = [];
        const f: string[] = [];
        for (const path of spec.paths) {
          const value = getPath(data, path);
          if (value === undefined) continue;
          f.push(path);
          values.push(value);
        }
        if (f.length === 0) return JSON.stringify(data);
        const memoryId = typeof data['memoryId'] === 'string' ? data['memoryId'] : '';
        const k = spec.ofMemory ? keysOfMemory(memoryId) : [];
        for (const subject of spec.subjects(data)) {
          const keyId = keyIdOf(subject);
          if (!k.includes(keyId)) k.push(keyId);
        }
        if (k.length === 0) k.push(keyIdOf({ kind: 'memory', id: memoryId }));
        k.sort((a, b) => a - b);
        if (type === 'MemoryWritten') memoryKeys.set(streams.memory(memoryId), k);
        const dataKey = keystore.dataKey(k);
        if (!dataKey) throw new Error(`a key of ${type} ${eventId} vanished while it was sealed`);
        const { iv, ct, tag } = sealBytes(dataKey, JSON.stringify(values), aadOf(type, eventId, { k, f }));
        const envelope: Envelope = { k, f, iv, ct, tag };
        return JSON.stringify(reshape(data, f, [[envelopeField, envelope]]));
      };
    },
  };
}

/**
 * Puts the sealed fields back. Without a keystore (the chain verifier) or without one of the
 * keys, each field takes its erased value; a box that fails authentication throws.
 */
export function openData(type: string, data: Data, eventId: string, keystore: Keystore | null): { data: Data; erased: boolean } {
  const envelope = data[envelopeField] as Envelope | undefined;
  if (envelope === undefined) return { data, erased: false };
  const spec = sealSpecs.get(type);
  if (!spec || !Array.isArray(envelope.k) || !Array.isArray(envelope.f)) throw new Error(`malformed sealed envelope in ${type}`);
  for (const path of envelope.f) if (!(path in spec.fields)) throw new Error(`sealed envelope of ${type} names an unknown field ${path}`);
  const dataKey = keystore ? keystore.dataKey(envelope.k) : null;
  const values = dataKey ? (JSON.parse(openBytes(dataKey, envelope, aadOf(type, eventId, envelope))) as unknown[]) : null;
  const put = envelope.f.map((path, i) => [path, values ? values[i] : spec.fields[path]] as const);
  return { data: reshape(data, [envelopeField], put), erased: values === null };
}
