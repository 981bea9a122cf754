import type { ErasureCounts } from '../erasure.js';
import { streams } from '../streams.js';
import type { EsdbRecord } from './eventstore-client.js';
import type { EventStoreKeyring } from './eventstore-keyring.js';
import type { EventStoreReads } from './eventstore-reads.js';
import { sealedKeyIds } from './eventstore-stored.js';
import type { AppendResult, EventLog, RecordedEvent } from './event-log.js';
import type { SubjectRef } from './sealing/keystore.js';
import type { ErasureRecord } from './sqlite-event-log.js';
import { countsByType, type SubjectErasure } from './sealing/shred.js';

/**
 * Crypto-shredding on the shared log (ADR 27). There is no transaction across streams, so the
 * order carries the guarantee: the SubjectErased event is appended first and condemns the keys it
 * names on every node that reads it; then the keys' streams are tombstoned (and a scavenge removes
 * their bytes). An erasure interrupted between the two is finished by the next node that opens
 * the log (`finishErasures`).
 */
export function createEventStoreErasure(reads: EventStoreReads, keyring: EventStoreKeyring, append: EventLog['append']) {
  /** The subject's current key: the last one it was given, unless erased. */
  const currentKey = async (subject: SubjectRef): Promise<number | undefined> => {
    const ids = await keyring.subjectKeyIds(subject);
    await keyring.loadKeys(ids);
    const last = ids.at(-1);
    return last !== undefined && keyring.dataKey([last]) !== null ? last : undefined;
  };

  const scan = async (keyId: number | undefined): Promise<{ records: EsdbRecord[]; counts: ErasureCounts }> => {
    const counts: ErasureCounts = { memories: 0, memoryUpdates: 0, atoms: 0, graphLinks: 0, messages: 0, events: 0 };
    const records: EsdbRecord[] = [];
    if (keyId === undefined) return { records, counts };
    for await (const page of reads.pages()) {
      for (const record of page) {
        if (!sealedKeyIds(record).includes(keyId)) continue;
        records.push(record);
        const field = countsByType[record.type];
        if (field) counts[field] += 1;
        counts.events += 1;
      }
    }
    return { records, counts };
  };

  return {
    /** Every stored event the subject's current key seals, opened (a scan of the log). */
    async sealedEvents(subject: SubjectRef): Promise<RecordedEvent[]> {
      return reads.decode((await scan(await currentKey(subject))).records);
    },
    async eraseSubject(subject: SubjectRef, record: (erasure: SubjectErasure & { sealed(): RecordedEvent[] }) => ErasureRecord): Promise<AppendResult & SubjectErasure> {
      const keyId = await currentKey(subject);
      const { records, counts } = await scan(keyId);
      const opened = await reads.decode(records);
      const erasure: SubjectErasure = { subject, keyId, counts };
      const { streamId, event, expectedRevision } = record({ ...erasure, sealed: () => opened });
      const appended = await append(streamId, [event], { expectedRevision: expectedRevision ?? 'any' });
      const ids = await keyring.subjectKeyIds(subject);
      keyring.condemn(ids);
      await keyring.destroy(ids);
      return { ...appended, ...erasure };
    },
    /**
     * Reads every SubjectErased: its keys are condemned here, and any whose stream is still readable
     * (a node stopped between the event and the tombstones) is tombstoned now.
     */
    async finishErasures(readStream: EventLog['readStream']): Promise<number> {
      let finished = 0;
      for (const event of await readStream(streams.erasures)) {
        if (event.type !== 'SubjectErased') continue;
        keyring.condemn(event.data.keyIds);
        for (const keyId of event.data.keyIds) {
          if (await keyring.destroyed(keyId)) continue;
          await keyring.destroy([keyId]);
          finished += 1;
        }
      }
      return finished;
    },
  };
}
