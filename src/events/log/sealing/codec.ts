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
  let value: unknown = data;
  for (const part of path.split('.')) value = (value as Data | undefined)?.[part];
  return value;
}

/** Sets (or with `undefined`, deletes) a dotted path in a copy-on-write way: `data`'s nested objects are copied. */
function setPath(data: Data, path: string, value: unknown): Data {
  const [head, ...rest] = path.split('.') as [string, ...string[]];
  const copy = { ...data };
  if (rest.length > 0) copy[head] = setPath((data[head] ?? {}) as Data, rest.join('.'), value);
  else if (value === undefined) delete copy[head];
  else copy[head] = value;
  return copy;
}

const aadOf = (type: string, eventId: string, envelope: Pick<Envelope, 'k' | 'f'>): string =>
  `${type}\n${eventId}\n${envelope.k.join(',')}\n${envelope.f.join(',')}`;

/** Seals and opens the content fields of events at the log's storage boundary (ADR 19). */
export function createSealingCodec(keystore: Keystore) {
  return {
    /** The stored JSON of an event's data: its content fields replaced by one envelope. Call inside the append transaction. */
    encode(type: string, data: Data, eventId: string): string {
      const spec = sealSpecs.get(type);
      if (!spec) return JSON.stringify(data);
      const subjects: SubjectRef[] = spec.subjects(data, keystore);
      if (spec.binds && typeof data['memoryId'] === 'string') keystore.bind(data['memoryId'], subjects);
      const f = Object.keys(spec.fields).filter((path) => getPath(data, path) !== undefined);
      if (f.length === 0) return JSON.stringify(data);
      const k = subjects.map((s) => keystore.keyIdFor(s)).sort((a, b) => a - b);
      const dataKey = keystore.dataKey(k);
      if (!dataKey) throw new Error(`a key of ${type} ${eventId} vanished while it was sealed`);
      const plain = JSON.stringify(f.map((path) => getPath(data, path)));
      let stored = data;
      for (const path of f) stored = setPath(stored, path, undefined);
      const envelope: Envelope = { k, f, ...sealBytes(dataKey, plain, aadOf(type, eventId, { k, f })) };
      return JSON.stringify({ ...stored, [envelopeField]: envelope });
    },
    /** The data as it was appended, or with its content fields erased when a key is gone. */
    decode(type: string, data: Data, eventId: string): { data: Data; erased: boolean } {
      return openData(type, data, eventId, keystore);
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
  const dataKey = keystore ? keystore.dataKey(envelope.k) : null;
  const values = dataKey ? (JSON.parse(openBytes(dataKey, envelope, aadOf(type, eventId, envelope))) as unknown[]) : null;
  let opened = setPath(data, envelopeField, undefined);
  envelope.f.forEach((path, i) => {
    if (!(path in spec.fields)) throw new Error(`sealed envelope of ${type} names an unknown field ${path}`);
    opened = setPath(opened, path, values ? values[i] : spec.fields[path]);
  });
  return { data: opened, erased: values === null };
}
