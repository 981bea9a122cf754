import { NO_STREAM, jsonEvent, type EventStoreDBClient } from '@eventstore/db-client';
import { allLink, streamLink } from './eventstore-chain.js';
import { collect, isWrongExpectedVersion, type EsdbRecord } from './eventstore-client.js';
import type { EventStoreNames } from './eventstore-names.js';
import type { EventStoreReads } from './eventstore-reads.js';
import { decodeRecord, storedParts } from './eventstore-stored.js';
import { genesisHash } from './hash-chain.js';
import type { ChainBreak, ChainReport, VerifyChainOptions } from './verify-chain.js';

export interface AnchorReceipt {
  /** The last event the digest covers. */
  readonly position: bigint;
  readonly digest: string;
  readonly events: number;
}

interface Anchor extends AnchorReceipt {
  readonly revision: bigint;
}

async function readAnchors(client: EventStoreDBClient, names: EventStoreNames): Promise<Anchor[]> {
  return (await collect(client.readStream(names.anchors))).map((r) => {
    const data = r.data as { position?: unknown; digest?: unknown; events?: unknown };
    return { revision: r.revision, position: BigInt(String(data.position ?? -1)), digest: String(data.digest ?? ''), events: Number(data.events ?? -1) };
  });
}

const eventOf = (record: EsdbRecord) => {
  const { meta } = storedParts(record);
  return { type: record.type, schemaVersion: meta.schemaVersion, eventId: String(meta.metadata.eventId) };
};

/** One record's check against the state of its stream: the first thing wrong, or its recomputed link. */
function checkRecord(record: EsdbRecord, streamId: string, previous: { revision: bigint; link: string } | undefined): ChainBreak | string {
  const position = record.position;
  let parts: ReturnType<typeof storedParts>;
  try {
    parts = storedParts(record);
  } catch (error) {
    return { position, kind: 'unparsable', detail: (error as Error).message };
  }
  const expected = (previous?.revision ?? -1n) + 1n;
  if (record.revision !== expected) {
    return { position, kind: 'missing', detail: `stream ${streamId} goes from revision ${expected - 1n} to ${record.revision}: events were removed` };
  }
  const link = streamLink(previous?.link ?? genesisHash, streamId, record.revision, eventOf(record), JSON.stringify(parts.data), JSON.stringify(parts.meta.metadata));
  if (link !== parts.meta.link) return { position, kind: 'hash-mismatch', detail: `the event hashes to ${link}, its stored link is ${parts.meta.link}` };
  try {
    decodeRecord(record, streamId, null);
  } catch (error) {
    return { position, kind: 'unparsable', detail: (error as Error).message };
  }
  return link;
}

/**
 * Walks every engine event of $all in order (ADR 27): each stream's revisions and links from its
 * genesis, the log's digest, and each anchor's digest at its position. An external `anchor`
 * (a previous report's head) is checked the same way.
 */
export async function verifyEventStoreChain(
  client: EventStoreDBClient,
  names: EventStoreNames,
  reads: EventStoreReads,
  options: VerifyChainOptions = {},
): Promise<ChainReport> {
  const anchors = new Map<bigint, string>((await readAnchors(client, names)).map((a) => [a.position, a.digest]));
  if (options.anchor) anchors.set(options.anchor.position, options.anchor.hash.toLowerCase());
  const heads = new Map<string, { revision: bigint; link: string }>();
  let digest = genesisHash;
  let checked = 0n;
  let head = 0n;
  const report = (firstBreak: ChainBreak | null): ChainReport => ({ ok: firstBreak === null, checked, headPosition: head, headHash: digest, firstBreak });
  for await (const page of reads.pages(options.pageSize ?? 1000)) {
    for (const record of page) {
      const streamId = names.engineStream(record.streamId) as string;
      const link = checkRecord(record, streamId, heads.get(streamId));
      if (typeof link !== 'string') return report(link);
      heads.set(streamId, { revision: record.revision, link });
      const next = allLink(digest, record.position, streamId, record.revision, eventOf(record), link);
      const anchored = anchors.get(record.position);
      if (anchored !== undefined && anchored !== next) {
        return report({ position: record.position, kind: 'anchor-mismatch', detail: `the log's digest here is ${next}, the anchor says ${anchored}` });
      }
      anchors.delete(record.position);
      digest = next;
      checked += 1n;
      head = record.position;
    }
  }
  const [missed] = [...anchors.keys()].sort((a, b) => (a < b ? -1 : 1));
  if (missed !== undefined) {
    const detail = missed > head ? `an anchor is at position ${missed} but the log ends at ${head}` : `an anchor names position ${missed}, where no event is left`;
    return report({ position: missed, kind: 'missing', detail });
  }
  return report(null);
}

/**
 * Appends the log's digest up to its head to the anchors stream, continuing from the last anchor
 * (each node may anchor; the expected revision lets one win a round). Verify then catches an
 * event removed or changed anywhere before an anchor, including a whole deleted stream.
 */
export async function writeAnchor(client: EventStoreDBClient, names: EventStoreNames, reads: EventStoreReads): Promise<AnchorReceipt> {
  for (;;) {
    const last = (await readAnchors(client, names)).at(-1);
    let digest = last?.digest ?? genesisHash;
    let events = last?.events ?? 0;
    let position = last?.position ?? 0n;
    for (let from = position + 1n; ; ) {
      const page = await reads.readRecords({ from, limit: 1000 });
      for (const record of page) {
        digest = allLink(digest, record.position, names.engineStream(record.streamId) as string, record.revision, eventOf(record), storedParts(record).meta.link);
        events += 1;
        position = record.position;
      }
      if (page.length < 1000) break;
      from = position + 1n;
    }
    const receipt = { position, digest, events };
    if (last && last.position === position) return receipt;
    try {
      const event = jsonEvent({ type: 'LogAnchored', data: { position: position.toString(), digest, events } });
      await client.appendToStream(names.anchors, event, { expectedRevision: last ? last.revision : NO_STREAM });
      return receipt;
    } catch (error) {
      if (!isWrongExpectedVersion(error)) throw error;
    }
  }
}
