import { randomBytes, randomInt, type KeyObject } from 'node:crypto';
import { NO_STREAM, jsonEvent, type EventStoreDBClient } from '@eventstore/db-client';
import type { DomainEvent } from '../catalog.js';
import { collect, isStreamDeleted, isWrongExpectedVersion } from './eventstore-client.js';
import type { EventStoreNames } from './eventstore-names.js';
import { deriveDataKey } from './sealing/cipher.js';
import type { SubjectRef } from './sealing/keystore.js';
import { sealSpecs } from './sealing/specs.js';

/** Key ids are random 48-bit integers: no counter to share between nodes, and never reused (ADR 27). */
const newKeyId = (): number => randomInt(1, 2 ** 48);
const attempts = 5;

function hasSealedField(data: Record<string, unknown>, paths: readonly string[]): boolean {
  return paths.some((path) => {
    const [head, tail] = path.split('.', 2) as [string, string | undefined];
    const value = data[head];
    return tail === undefined ? value !== undefined : (value as Record<string, unknown> | undefined)?.[tail] !== undefined;
  });
}

/**
 * Subject keys kept in EventStoreDB itself, shared by every node (ADR 27): one stream per key
 * holds its bytes, a tombstone and a scavenge destroy it; one stream per subject lists the keys it
 * was given. The sealing codec is synchronous, so the async work (read, create) happens before an
 * append or a decode, and the codec reads the cache through the same methods as the SQLite
 * keystore. A key named by a SubjectErased event is condemned at once, before its tombstone.
 */
export function createEventStoreKeyring(client: EventStoreDBClient, names: EventStoreNames) {
  const keys = new Map<number, Buffer | null>();
  const condemned = new Set<number>();
  const current = new Map<string, number>();
  const memoryKeys = new Map<string, number[]>();
  const derived = new Map<string, KeyObject>();
  const inFlight = new Map<string, Promise<void>>();
  const subjectKey = (s: SubjectRef): string => `${s.kind}\u0000${s.id}`;
  const alive = (keyId: number): boolean => !condemned.has(keyId) && keys.get(keyId) instanceof Buffer;

  const readKey = async (keyId: number): Promise<Buffer | null> => {
    try {
      const [record] = await collect(client.readStream(names.key(keyId), { maxCount: 1 }));
      const key = (record?.data as { key?: unknown } | undefined)?.key;
      return typeof key === 'string' ? Buffer.from(key, 'base64') : null;
    } catch (error) {
      if (isStreamDeleted(error)) return null;
      throw error;
    }
  };
  const loadKeys = async (ids: Iterable<number>): Promise<void> => {
    const missing = [...new Set(ids)].filter((id) => !keys.has(id));
    const found = await Promise.all(missing.map(readKey));
    missing.forEach((id, i) => keys.set(id, condemned.has(id) ? null : (found[i] ?? null)));
  };
  const directory = async (subject: SubjectRef) => collect(client.readStream(names.subject(subject)));

  const createKey = async (subject: SubjectRef, after: bigint | undefined): Promise<number | null> => {
    const keyId = newKeyId();
    const key = randomBytes(32);
    const created = jsonEvent({ type: 'SubjectKeyCreated', data: { keyId, subject: { kind: subject.kind, id: subject.id }, key: key.toString('base64') } });
    try {
      await client.appendToStream(names.key(keyId), created, { expectedRevision: NO_STREAM });
    } catch (error) {
      if (isWrongExpectedVersion(error)) return null;
      throw error;
    }
    try {
      await client.appendToStream(names.subject(subject), jsonEvent({ type: 'SubjectKeyAssigned', data: { keyId } }), {
        expectedRevision: after ?? NO_STREAM,
      });
    } catch (error) {
      // Another node gave the subject a key first: this one was never used, so it goes.
      await client.tombstoneStream(names.key(keyId)).catch(() => undefined);
      if (isWrongExpectedVersion(error)) return null;
      throw error;
    }
    keys.set(keyId, key);
    return keyId;
  };

  const ensureSubject = async (subject: SubjectRef): Promise<void> => {
    const id = subjectKey(subject);
    const known = current.get(id);
    if (known !== undefined && alive(known)) return;
    const running = inFlight.get(id);
    if (running) return running;
    const work = (async () => {
      for (let attempt = 0; attempt < attempts; attempt += 1) {
        const entries = await directory(subject);
        const last = entries.at(-1);
        const lastId = (last?.data as { keyId?: number } | undefined)?.keyId;
        if (lastId !== undefined && !condemned.has(lastId)) {
          await loadKeys([lastId]);
          if (alive(lastId)) {
            current.set(id, lastId);
            return;
          }
        }
        const made = await createKey(subject, last?.revision);
        if (made !== null) {
          current.set(id, made);
          return;
        }
      }
      throw new Error(`could not give ${subject.kind} ${subject.id} a key in ${attempts} attempts`);
    })();
    inFlight.set(id, work);
    return work.finally(() => inFlight.delete(id));
  };

  return {
    /** The current key id of a subject, made ready by `prepareAppend` (the codec calls this). */
    keyIdFor(subject: SubjectRef): number {
      const keyId = current.get(subjectKey(subject));
      if (keyId === undefined || !alive(keyId)) throw new Error(`the key of ${subject.kind} ${subject.id} was not loaded before sealing`);
      return keyId;
    },
    /** The data key of an envelope, or null when any of its keys is gone or condemned. */
    dataKey(keyIds: readonly number[]): KeyObject | null {
      const cacheKey = keyIds.join(',');
      const cached = derived.get(cacheKey);
      if (cached) return cached;
      if (!keyIds.every(alive)) return null;
      const key = deriveDataKey(keyIds.map((id) => keys.get(id) as Buffer), keyIds);
      derived.set(cacheKey, key);
      return key;
    },
    memoryKeyIds: (streamId: string): number[] | undefined => memoryKeys.get(streamId),
    currentKeyId(subject: SubjectRef): number | undefined {
      const keyId = current.get(subjectKey(subject));
      return keyId !== undefined && alive(keyId) ? keyId : undefined;
    },
    /** Forgets the subject's key here; `destroy` is what removes it from EventStoreDB. */
    shred(subject: SubjectRef): number[] {
      const keyId = current.get(subjectKey(subject));
      if (keyId === undefined) return [];
      this.condemn([keyId]);
      return [keyId];
    },
    /** Remembers the key ids of a memory's MemoryWritten, read from its stream. */
    noteMemoryKeys(streamId: string, keyIds: number[]): void {
      memoryKeys.set(streamId, keyIds);
    },
    loadKeys,
    /** Loads or creates every key the events will be sealed under (the codec's rules, ahead of it). */
    async prepareAppend(events: readonly DomainEvent[], memoryKeysOf: (memoryId: string) => Promise<number[] | undefined>): Promise<void> {
      const written = new Set<string>();
      for (const event of events) {
        const spec = sealSpecs.get(event.type);
        const data = event.data as Record<string, unknown>;
        if (!spec || !hasSealedField(data, spec.paths)) continue;
        const memoryId = typeof data['memoryId'] === 'string' ? data['memoryId'] : '';
        let ofMemory = false;
        if (spec.ofMemory) {
          if (written.has(memoryId)) ofMemory = true;
          else {
            const ids = await memoryKeysOf(memoryId);
            if (ids) await loadKeys(ids);
            ofMemory = ids !== undefined && ids.length > 0 && ids.every(alive);
          }
        }
        const subjects = spec.subjects(data);
        for (const subject of subjects) await ensureSubject(subject);
        if (subjects.length === 0 && !ofMemory) await ensureSubject({ kind: 'memory', id: memoryId });
        if (event.type === 'MemoryWritten') written.add(memoryId);
      }
    },
    /** Every key the subject was ever given, oldest first. */
    async subjectKeyIds(subject: SubjectRef): Promise<number[]> {
      const entries = await directory(subject);
      return entries.map((e) => (e.data as { keyId?: number }).keyId).filter((id): id is number => typeof id === 'number');
    },
    /** From now on these keys open nothing here (a SubjectErased named them). */
    condemn(ids: Iterable<number>): void {
      for (const id of ids) {
        condemned.add(id);
        keys.set(id, null);
      }
      for (const [subject, keyId] of current) if (condemned.has(keyId)) current.delete(subject);
      derived.clear();
    },
    /** Tombstones the keys' streams: no read returns them again, a scavenge removes their bytes. */
    async destroy(ids: Iterable<number>): Promise<void> {
      for (const id of ids) {
        await client.tombstoneStream(names.key(id)).catch((error: unknown) => {
          if (!isStreamDeleted(error)) throw error;
        });
      }
    },
    /** True when the key's stream is tombstoned (or was never written). */
    async destroyed(keyId: number): Promise<boolean> {
      return (await readKey(keyId)) === null;
    },
  };
}

export type EventStoreKeyring = ReturnType<typeof createEventStoreKeyring>;
