import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sqliteLockedHead } from '../src/events/log/sqlite-event-log.js';
import { applyVectorPage, emptyGeneration } from '../src/projections/vectors/apply.js';
import { vectorDigest } from '../src/projections/vectors/generation-snapshot.js';
import { memoryVectorFeed } from '../src/projections/vectors/feed.js';
import { readSnapshot, SnapshotDamagedError, writeSnapshot, type Snapshot } from '../src/projections/vectors/snapshot.js';
import { createVectorStore } from '../src/projections/vectors/vector-store.js';
import { writeTestMemory } from './support/memory-events.js';
import { openTestStore, type TestStore } from './support/store.js';
import { testVectorSource } from './support/vector-source.js';

// Issue 11, case 3: a truncated vectors-g1.snap locked every command out.
let store: TestStore;
let dir: string;
beforeEach(() => {
  store = openTestStore();
  dir = mkdtempSync(join(tmpdir(), 'lmem-heal-'));
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});
const open = (source = testVectorSource()) =>
  createVectorStore({ db: store.db, log: store.log, dir, source, pageSize: 10, lockedHead: sqliteLockedHead(store.db), now: () => new Date(Date.UTC(2026, 0, 2)) });
const file = join('vectors-g1.snap');

/** What a fresh replay of the whole log gives: the digest every healed open must reach. */
async function replayedDigest(source = testVectorSource()): Promise<string> {
  const gen = emptyGeneration(0, source);
  applyVectorPage(gen, await store.log.readAll({ limit: 10_000 }), source, memoryVectorFeed);
  return vectorDigest(gen);
}

async function storeWithSnapshot(memories = 25): Promise<Buffer> {
  for (let n = 0; n < memories; n += 1) await writeTestMemory(store.log, n);
  const vectors = open();
  await vectors.catchUp();
  await vectors.close();
  return readFileSync(join(dir, file));
}

/** Format 2, as snapshots were written before the header had a digest of its own: one sha256 over the rest. */
function format2Bytes(snapshot: Snapshot): Buffer {
  const header = Buffer.from(JSON.stringify(snapshot.header));
  const prefix = Buffer.alloc(20);
  prefix.write('LMSNAP2\n', 'latin1');
  prefix.writeUInt32LE(header.length, 8);
  prefix.writeBigUInt64LE(BigInt(snapshot.index.length), 12);
  const digest = createHash('sha256').update(prefix).update(header).update(snapshot.index).digest();
  return Buffer.concat([prefix, digest, header, snapshot.index]);
}

/** Format 3, as snapshots were written before the FAISS bytes came first: magic, lengths, two digests, summary, lists, index. */
function format3Bytes(snapshot: Snapshot): Buffer {
  const { ids, pending, owners, ...rest } = snapshot.header;
  const summary = Buffer.from(JSON.stringify({ ...rest, size: ids.length, pendingCount: pending.length }));
  const lists = Buffer.from(JSON.stringify({ ids, pending, ...(owners ? { owners } : {}) }));
  const prefix = Buffer.alloc(28);
  prefix.write('LMSNAP3\n', 'latin1');
  prefix.writeUInt32LE(summary.length, 8);
  prefix.writeBigUInt64LE(BigInt(lists.length), 12);
  prefix.writeBigUInt64LE(BigInt(snapshot.index.length), 20);
  const sha = (...parts: Buffer[]) => parts.reduce((hash, part) => hash.update(part), createHash('sha256')).digest();
  return Buffer.concat([prefix, sha(prefix, summary, lists), sha(snapshot.index), summary, lists, snapshot.index]);
}

/** The magic of a format 4 file, at the start of its 92-byte trailer. */
const format4Magic = (bytes: Buffer): string => bytes.subarray(bytes.length - 92, bytes.length - 84).toString('latin1');

/** Format 1, as snapshots were written before checksums: u32 length, JSON header with format 1, FAISS bytes. */
function legacyBytes(snapshot: Snapshot): Buffer {
  const header = Buffer.from(JSON.stringify({ format: 1, ...snapshot.header }));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  return Buffer.concat([length, header, snapshot.index]);
}

describe('snapshot format with a checksum', () => {
  it('reads what it wrote, and refuses every truncation and every changed byte', async () => {
    const bytes = await storeWithSnapshot(6);
    const path = join(dir, file);
    expect(readSnapshot(path, 1)?.header.ids).toHaveLength(6);
    const accepted: string[] = [];
    for (let at = 0; at < bytes.length; at += 1) {
      writeFileSync(path, bytes.subarray(0, at));
      if (!(() => { try { readSnapshot(path, 1); return false; } catch (e) { return e instanceof SnapshotDamagedError; } })()) accepted.push(`truncated to ${at}`);
      const flipped = Buffer.from(bytes);
      flipped[at] = (flipped[at] ?? 0) ^ 0x20;
      writeFileSync(path, flipped);
      if (!(() => { try { readSnapshot(path, 1); return false; } catch (e) { return e instanceof SnapshotDamagedError; } })()) accepted.push(`byte ${at} changed`);
    }
    expect(accepted).toEqual([]);
    writeFileSync(path, bytes);
    expect(() => readSnapshot(path, 2)).toThrow(/holds generation 1, not 2/);
  });

  it('writes format 4: the FAISS bytes first, then the summary, the lists and the trailer', async () => {
    const bytes = await storeWithSnapshot();
    expect(bytes.subarray(0, 4).toString('latin1')).toBe('IxFI');
    expect(format4Magic(bytes)).toBe('LMSNAP4\n');
  });

  it('still reads a format 3 snapshot, checks it whole, and writes format 4 at its next close', async () => {
    const bytes = await storeWithSnapshot();
    const path = join(dir, file);
    const format3 = format3Bytes(readSnapshot(path, 1) as Snapshot);
    writeFileSync(path, format3);
    const vectors = open();
    expect(vectors.status()).toMatchObject({ checkpoint: 25n, size: 25, setAside: [] });
    expect(vectors.digest()).toBe(await replayedDigest());
    await vectors.close();
    expect(readFileSync(path).equals(bytes)).toBe(true);
    // A changed index byte of a format 3 file is found at open (read whole).
    format3[format3.length - 3] = (format3[format3.length - 3] ?? 0) ^ 1;
    writeFileSync(path, format3);
    const again = open();
    expect(again.status().setAside[0]).toMatchObject({ movedTo: 'vectors-g1.snap.damaged-1', reason: expect.stringMatching(/checksum mismatch: a byte changed \(index\)/) });
    await again.close();
  });

  it('still reads a format 1 snapshot (no checksum), and writes format 4 at its next flush', async () => {
    const bytes = await storeWithSnapshot();
    const path = join(dir, file);
    const snapshot = readSnapshot(path, 1) as Snapshot;
    writeFileSync(path, legacyBytes(snapshot));
    const source = testVectorSource();
    const vectors = open(source);
    expect(vectors.status()).toMatchObject({ checkpoint: 25n, size: 25, setAside: [] });
    expect(source.asked).toBe(0);
    expect(vectors.digest()).toBe(await replayedDigest());
    await vectors.close();
    expect(format4Magic(readFileSync(path))).toBe('LMSNAP4\n');
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it('still reads a format 2 snapshot (one checksum over everything), checks it whole, and writes format 4 at its next close', async () => {
    const bytes = await storeWithSnapshot();
    const path = join(dir, file);
    writeFileSync(path, format2Bytes(readSnapshot(path, 1) as Snapshot));
    const vectors = open();
    expect(vectors.status()).toMatchObject({ checkpoint: 25n, size: 25, setAside: [] });
    expect(vectors.digest()).toBe(await replayedDigest());
    await vectors.close();
    expect(readFileSync(path).equals(bytes)).toBe(true);
    // A changed index byte of a format 2 file is found at open, as before.
    const flipped = format2Bytes(readSnapshot(path, 1) as Snapshot);
    flipped[flipped.length - 3] = (flipped[flipped.length - 3] ?? 0) ^ 1;
    writeFileSync(path, flipped);
    const again = open();
    expect(again.status().setAside[0]).toMatchObject({ movedTo: 'vectors-g1.snap.damaged-1', reason: expect.stringMatching(/checksum mismatch/) });
    await again.catchUp();
    expect(again.digest()).toBe(await replayedDigest());
    await again.close();
  });
});

describe('self-healing open', () => {
  const damages: [string, (bytes: Buffer, path: string) => void, RegExp][] = [
    ['truncated', (b, p) => writeFileSync(p, b.subarray(0, 100)), /truncated/],
    ['emptied', (_b, p) => writeFileSync(p, ''), /truncated: 0 bytes/],
    ['one byte changed', (b, p) => writeFileSync(p, Buffer.from(b.map((x, i) => (i === b.length - 3 ? x ^ 1 : x)))), /checksum mismatch/],
    ['garbage', (_b, p) => writeFileSync(p, 'not a snapshot at all'), /truncated or not a snapshot/],
    ['a JSON header of something else', (_b, p) => writeFileSync(p, Buffer.concat([Buffer.from([2, 0, 0, 0]), Buffer.from('{}')])), /neither a checksummed snapshot nor a format 1 one/],
    ['unreadable (a directory)', (_b, p) => { rmSync(p); mkdirSync(p); }, /unreadable: EISDIR/],
  ];
  for (const [what, damage, reason] of damages) {
    it(`sets a ${what} live snapshot aside, rebuilds it from the log, and records why`, async () => {
      const bytes = await storeWithSnapshot();
      const path = join(dir, file);
      damage(bytes, path);
      const vectors = open();
      // The first use of its vectors (a search, a write, verify, start's check) reads the index bytes.
      await vectors.load();
      await vectors.catchUp();
      expect(vectors.status()).toMatchObject({ checkpoint: 25n, size: 25 });
      expect(vectors.status().setAside).toEqual([
        { projection: 'vectors', generation: 1, file: 'vectors-g1.snap', movedTo: 'vectors-g1.snap.damaged-1', reason: expect.stringMatching(reason), at: '2026-01-02T00:00:00.000Z' },
      ]);
      expect(vectors.digest()).toBe(await replayedDigest());
      await vectors.close();
      // Set aside, not deleted; the live snapshot is whole again.
      expect(readdirSync(dir).sort()).toEqual(['vectors-g1.snap', 'vectors-g1.snap.damaged-1']);
      expect(readSnapshot(path, 1)?.header.checkpoint).toBe('25');
    });
  }

  it('opens by the header alone: a changed index byte is found at the first search, which still answers from a replay', async () => {
    const bytes = await storeWithSnapshot();
    const path = join(dir, file);
    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 3] = (flipped[flipped.length - 3] ?? 0) ^ 1;
    writeFileSync(path, flipped);
    const source = testVectorSource();
    const vectors = open(source);
    await vectors.catchUp();
    // Status needs no vector: it reads the header, whose own digest holds.
    expect(vectors.status()).toMatchObject({ checkpoint: 25n, size: 25, pending: 0, setAside: [] });
    expect(vectors.ids()).toHaveLength(25);
    const query = source.lookup(source.keyOf('memory number 7')) as Float32Array;
    const hits = await vectors.search(query, 3);
    expect(vectors.status().setAside[0]).toMatchObject({ movedTo: 'vectors-g1.snap.damaged-1', reason: expect.stringMatching(/checksum mismatch: a byte changed \(index\)/) });
    expect(hits).toHaveLength(3);
    expect(vectors.digest()).toBe(await replayedDigest());
    await vectors.close();
    expect(readSnapshot(path, 1)?.header.checkpoint).toBe('25');
  });

  it('a changed header byte is found at open, by the header\'s own digest', async () => {
    const bytes = await storeWithSnapshot();
    const path = join(dir, file);
    const at = bytes.indexOf('"checkpoint":"25"') + '"checkpoint":"'.length;
    const changed = Buffer.from(bytes);
    changed[at] = '1'.charCodeAt(0);
    writeFileSync(path, changed);
    const vectors = open();
    expect(vectors.status().setAside[0]).toMatchObject({ reason: expect.stringMatching(/checksum mismatch: a byte changed \(header\)/) });
    await vectors.catchUp();
    expect(vectors.status()).toMatchObject({ checkpoint: 25n, size: 25 });
    await vectors.close();
  });

  it('keeps reading the snapshot it opened when another process renames a newer one into its place', async () => {
    await storeWithSnapshot();
    const path = join(dir, file);
    const vectors = open();
    const other = open();
    await writeTestMemory(store.log, 30);
    // Another process (here a second store over the same files) writes a snapshot at 26 meanwhile.
    await other.catchUp();
    await other.flush();
    await other.close();
    expect(readSnapshot(path, 1)?.header.checkpoint).toBe('26');
    await vectors.catchUp();
    expect(vectors.status()).toMatchObject({ checkpoint: 26n, size: 26, setAside: [] });
    expect(vectors.digest()).toBe(await replayedDigest());
    await vectors.close();
  });

  it('sets aside a damaged legacy snapshot too, and numbers a second set-aside after the first', async () => {
    await storeWithSnapshot();
    const path = join(dir, file);
    const legacy = legacyBytes(readSnapshot(path, 1) as Snapshot);
    for (const n of [1, 2]) {
      // A wrong vector count: caught before faiss reads it.
      const bad = Buffer.from(legacy);
      bad.writeBigUInt64LE(1n << 38n, bad.length - 25 * 8 * 4 - 8);
      writeFileSync(path, bad);
      const vectors = open();
      await vectors.catchUp();
      expect(vectors.status().setAside[0]).toMatchObject({ movedTo: `vectors-g1.snap.damaged-${n}`, reason: expect.stringMatching(/another count of vectors/) });
      expect(vectors.digest()).toBe(await replayedDigest());
      await vectors.close();
    }
    expect(existsSync(`${path}.damaged-2`)).toBe(true);
  });

  it('checks a format 4 index\'s vector count before faiss reads the file (a count faiss would allocate without bound)', async () => {
    await storeWithSnapshot();
    const path = join(dir, file);
    const snapshot = readSnapshot(path, 1) as Snapshot;
    const index = Buffer.from(snapshot.index);
    index.writeBigUInt64LE(1n << 38n, 37);
    // Written by the snapshot writer: both digests hold, the count is what is wrong.
    writeSnapshot(path, { ...snapshot, index });
    const vectors = open();
    expect(vectors.status().setAside).toEqual([]);
    expect(await vectors.search(new Float32Array(8).fill(0.5), 3)).toHaveLength(3);
    expect(vectors.status().setAside[0]).toMatchObject({ movedTo: 'vectors-g1.snap.damaged-1', reason: expect.stringMatching(/another count of vectors/) });
    expect(vectors.digest()).toBe(await replayedDigest());
    await vectors.close();
  });

  it('sets aside a sound snapshot ahead of the log (its WAL lost frames), and indexes the positions written next', async () => {
    await storeWithSnapshot();
    // The log's tail gone, as a cut WAL leaves it; the snapshot still says 25.
    store.db.prepare('DELETE FROM events WHERE global_position > 20').run();
    const vectors = open();
    await vectors.catchUp();
    expect(vectors.status().setAside[0]).toMatchObject({ movedTo: 'vectors-g1.snap.damaged-1', reason: expect.stringMatching(/checkpoint 25 is ahead of the log's head 20/) });
    expect(vectors.status()).toMatchObject({ checkpoint: 20n, size: 20 });
    await writeTestMemory(store.log, 30);
    await vectors.catchUp();
    expect(vectors.status()).toMatchObject({ checkpoint: 21n, size: 21 });
    expect(vectors.digest()).toBe(await replayedDigest());
    await vectors.close();
  });

  it('sets a damaged shadow snapshot aside and finishes the rebuild from the start', async () => {
    for (let n = 0; n < 40; n += 1) await writeTestMemory(store.log, n);
    const vectors = open();
    await vectors.catchUp();
    const controller = new AbortController();
    // A rebuild killed after its first persisted step leaves a building generation with a snapshot.
    const first = await vectors.rebuild({ persistEvery: 10, signal: controller.signal, onProgress: () => controller.abort() });
    expect(first.status).toBe('cancelled');
    const shadow = join(dir, `vectors-g${first.generation}.snap`);
    writeFileSync(shadow, readFileSync(shadow).subarray(0, 50));
    const resumed = await vectors.rebuild();
    expect(resumed).toMatchObject({ status: 'completed', resumed: true, generation: first.generation, size: 40 });
    expect(vectors.status().setAside[0]).toMatchObject({ generation: first.generation, reason: expect.stringMatching(/truncated/) });
    expect(vectors.digest()).toBe(await replayedDigest());
    await vectors.close();
  });
});

// Keeps writeSnapshot in the import list honest: a snapshot it writes reads back equal.
it('round-trips a snapshot byte for byte', async () => {
  await storeWithSnapshot(3);
  const path = join(dir, file);
  const snapshot = readSnapshot(path, 1) as Snapshot;
  writeSnapshot(join(dir, 'copy.snap'), snapshot);
  expect(readFileSync(join(dir, 'copy.snap')).equals(readFileSync(path))).toBe(true);
});
