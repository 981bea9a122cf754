import { streams } from '../../streams.js';
import { openBytes, sealBytes, sealGroup, type SealedBox } from './cipher.js';
import { aadOf, aadText, envelopeField, groupAad, groupLimit, type GroupMember, type GroupOpener } from './group.js';
import type { Keystore, SubjectRef } from './keystore.js';
import { sealSpecs } from './specs.js';

/**
 * The stored envelope: key ids (`k`), sealed field paths (`f`) and the AES-GCM box of their values.
 * With `p`, the box is one slice of a group sealed by one GCM operation (same iv and tag in every
 * member): `p` lists the positions of all members, in order, and opening needs each of them.
 */
export interface Envelope extends SealedBox {
  readonly k: number[];
  readonly f: string[];
  readonly p?: number[];
}

export { envelopeField };

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

/** An event after the append's first pass: the JSON of its clear part, and what its seal needs. */
export interface Prepared {
  readonly clear: string;
  readonly sealed?: GroupMember & { readonly k: number[]; readonly fJson: string; readonly plaintext: string };
}

/**
 * The data column: the clear part's JSON with the envelope `{k, f, iv, ct, tag[, p]}` as its last
 * key, byte for byte what JSON.stringify would write (base64 and numbers need no escaping).
 */
function withEnvelope(clear: string, m: NonNullable<Prepared['sealed']>, iv: string, ct: string, tag: string, p?: string): string {
  const box = `{"k":[${m.keys}],"f":${m.fJson},"iv":"${iv}","ct":"${ct}","tag":"${tag}"${p === undefined ? '' : `,"p":[${p}]`}}`;
  return clear === '{}' ? `{"${envelopeField}":${box}}` : `${clear.slice(0, -1)},"${envelopeField}":${box}}`;
}

/** `data` without the sealed paths; top-level paths (all types but MemoryUpdated) skip reshape's sets. */
function clearPart(data: Data, f: readonly string[]): Data {
  if (f.some((path) => path.includes('.'))) return reshape(data, f, []);
  const out: Data = {};
  for (const key in data) if (!f.includes(key)) out[key] = data[key];
  return out;
}

/** Seals and opens the content fields of events at the log's storage boundary (ADR 19). */
export function createSealingCodec(keystore: Keystore) {
  return {
    /**
     * An encoder for one append transaction: it remembers subject key ids and each memory's keys
     * for the rest of the batch (a derived event follows its MemoryWritten in the same append).
     * `prepare` each event in order, then `seal` them all: events under the same key ids share
     * one AES-GCM operation (at most `groupLimit` of them).
     */
    encoder() {
      const keyIds = new Map<string, Map<string, number>>();
      const memoryKeys = new Map<string, number[]>();
      const keyIdOf = (s: SubjectRef): number => {
        let ofKind = keyIds.get(s.kind);
        if (!ofKind) keyIds.set(s.kind, (ofKind = new Map()));
        let found = ofKind.get(s.id);
        if (found === undefined) ofKind.set(s.id, (found = keystore.keyIdFor(s)));
        return found;
      };
      const keysOfMemory = (memoryId: string): number[] => {
        const stream = streams.memory(memoryId);
        let known = memoryKeys.get(stream);
        if (!known) memoryKeys.set(stream, (known = keystore.memoryKeyIds(stream) ?? []));
        // A memory whose keys are gone (erased) seals what follows under the event's own subjects only.
        return known.length > 0 && keystore.dataKey(known) ? [...known] : [];
      };
      const prepare = (type: string, data: Data, eventId: string): Prepared => {
        const spec = sealSpecs.get(type);
        if (!spec) return { clear: JSON.stringify(data) };
        const values: unknown[] = [];
        let f: string[] = [];
        for (const path of spec.paths) {
          const value = getPath(data, path);
          if (value === undefined) continue;
          f.push(path);
          values.push(value);
        }
        if (f.length === 0) return { clear: JSON.stringify(data) };
        const all = f.length === spec.paths.length;
        if (all) f = spec.paths as string[];
        const memoryId = typeof data['memoryId'] === 'string' ? data['memoryId'] : '';
        const k = spec.ofMemory ? keysOfMemory(memoryId) : [];
        for (const subject of spec.subjects(data)) {
          const keyId = keyIdOf(subject);
          if (!k.includes(keyId)) k.push(keyId);
        }
        if (k.length === 0) k.push(keyIdOf({ kind: 'memory', id: memoryId }));
        k.sort((a, b) => a - b);
        if (type === 'MemoryWritten') memoryKeys.set(streams.memory(memoryId), k);
        const plaintext = JSON.stringify(values);
        const sealed = {
          type, eventId, k, keys: k.join(','), paths: all ? spec.pathList : f.join(','), fJson: all ? spec.pathsJson : JSON.stringify(f),
          plaintext, length: Buffer.byteLength(plaintext),
        };
        return { clear: JSON.stringify(clearPart(data, f)), sealed };
      };
      /** Every prepared event's data column; the events take positions `first`, `first + 1`, ... */
      const seal = (prepared: readonly Prepared[], first: number): string[] => {
        const out = prepared.map((item) => item.clear);
        const flush = (members: readonly number[]): void => {
          const items = members.map((i) => prepared[i]?.sealed as NonNullable<Prepared['sealed']>);
          const head = items[0] as NonNullable<Prepared['sealed']>;
          const dataKey = keystore.dataKey(head.k);
          if (!dataKey) throw new Error(`a key of ${head.type} ${head.eventId} vanished while it was sealed`);
          if (items.length === 1) {
            const { iv, ct, tag } = sealBytes(dataKey, head.plaintext, aadText(head.type, head.eventId, head.keys, head.paths));
            out[members[0] as number] = withEnvelope(out[members[0] as number] as string, head, iv, ct, tag);
            return;
          }
          const p = members.map((i) => first + i).join(',');
          const { iv, tag, cts } = sealGroup(dataKey, items.map((m) => m.plaintext), items.map((m) => m.length), groupAad(items, p));
          members.forEach((i, j) => {
            out[i] = withEnvelope(out[i] as string, items[j] as NonNullable<Prepared['sealed']>, iv, cts[j] as string, tag, p);
          });
        };
        const open = new Map<string, number[]>();
        prepared.forEach((item, i) => {
          if (!item.sealed) return;
          let members = open.get(item.sealed.keys);
          if (!members) open.set(item.sealed.keys, (members = []));
          members.push(i);
          if (members.length === groupLimit) {
            flush(members);
            open.delete(item.sealed.keys);
          }
        });
        for (const members of open.values()) flush(members);
        return out;
      };
      return { prepare, seal };
    },
  };
}

/**
 * Puts the sealed fields back. Without a keystore (the chain verifier) or without one of the
 * keys, each field takes its erased value; a box that fails authentication throws.
 */
export function openData(
  type: string,
  data: Data,
  eventId: string,
  keystore: Keystore | null,
  group?: { readonly position: number; readonly opener: GroupOpener },
): { data: Data; erased: boolean } {
  const envelope = data[envelopeField] as Envelope | undefined;
  if (envelope === undefined) return { data, erased: false };
  const spec = sealSpecs.get(type);
  if (!spec || !Array.isArray(envelope.k) || !Array.isArray(envelope.f)) throw new Error(`malformed sealed envelope in ${type}`);
  for (const path of envelope.f) if (!(path in spec.fields)) throw new Error(`sealed envelope of ${type} names an unknown field ${path}`);
  const dataKey = keystore ? keystore.dataKey(envelope.k) : null;
  let values: unknown[] | null = null;
  if (dataKey && envelope.p === undefined) values = JSON.parse(openBytes(dataKey, envelope, aadOf(type, eventId, envelope))) as unknown[];
  else if (dataKey) {
    if (!group) throw new Error(`sealed group of ${type} read without its other members`);
    values = group.opener.values(group.position, dataKey);
  }
  const put = envelope.f.map((path, i) => [path, values ? values[i] : spec.fields[path]] as const);
  return { data: reshape(data, [envelopeField], put), erased: values === null };
}
