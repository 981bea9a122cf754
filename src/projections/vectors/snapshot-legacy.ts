import { parseHeader, parseLists, parseSummary, SnapshotDamagedError, type SnapshotHeader } from './snapshot-header.js';
import { digestOf } from './snapshot-write.js';

/** A snapshot of an older format, read and checked whole; the store rewrites it in format 4 at its next close. */
export interface LegacySnapshot {
  readonly header: SnapshotHeader;
  readonly index: Buffer;
}

export const format2Magic = Buffer.from('LMSNAP2\n', 'latin1');
export const format3Magic = Buffer.from('LMSNAP3\n', 'latin1');

/**
 * Format 3 (ADR 24, ADR 26 before format 4): magic, summary length (u32 LE), lists length (u64
 * LE), index length (u64 LE); sha256 of the magic, the lengths, the summary and the lists; sha256
 * of the index; then the summary, the lists and the FAISS bytes.
 */
export function readFormat3(bytes: Buffer, generation: number | undefined): LegacySnapshot {
  const prefixBytes = format3Magic.length + 20;
  const start = prefixBytes + 64;
  if (bytes.length < start) throw new SnapshotDamagedError(`truncated: ${bytes.length} bytes`);
  const summaryLength = bytes.readUInt32LE(format3Magic.length);
  const [listsLength, indexLength] = [bytes.readBigUInt64LE(format3Magic.length + 4), bytes.readBigUInt64LE(format3Magic.length + 12)];
  const expected = BigInt(start + summaryLength) + listsLength + indexLength;
  if (BigInt(bytes.length) !== expected) throw new SnapshotDamagedError(`${bytes.length} bytes, its lengths say ${expected}: truncated or extended`);
  const headEnd = start + summaryLength + Number(listsLength);
  if (!digestOf([bytes.subarray(0, prefixBytes), bytes.subarray(start, headEnd)]).equals(bytes.subarray(prefixBytes, prefixBytes + 32))) {
    throw new SnapshotDamagedError('checksum mismatch: a byte changed (header)');
  }
  const index = bytes.subarray(headEnd);
  if (!digestOf([index]).equals(bytes.subarray(prefixBytes + 32, start))) throw new SnapshotDamagedError('checksum mismatch: a byte changed (index)');
  const summary = parseSummary(bytes.subarray(start, start + summaryLength), generation);
  const { size: _size, pendingCount: _pending, ...rest } = summary;
  return { header: { ...rest, ...parseLists(bytes.subarray(start + summaryLength, headEnd), summary) }, index };
}

/**
 * Format 2 (ADR 24): magic, header length (u32 LE), index length (u64 LE), one sha256 over the
 * magic, both lengths, the header and the index; then the JSON header and the FAISS bytes.
 */
export function readFormat2(bytes: Buffer, generation: number | undefined): LegacySnapshot {
  const prefixBytes = format2Magic.length + 4 + 8;
  const start = prefixBytes + 32;
  if (bytes.length < start) throw new SnapshotDamagedError(`truncated: ${bytes.length} bytes`);
  const headerLength = bytes.readUInt32LE(format2Magic.length);
  const expected = BigInt(start + headerLength) + bytes.readBigUInt64LE(format2Magic.length + 4);
  if (BigInt(bytes.length) !== expected) throw new SnapshotDamagedError(`${bytes.length} bytes, its lengths say ${expected}: truncated or extended`);
  const header = bytes.subarray(start, start + headerLength);
  const index = bytes.subarray(start + headerLength);
  if (!digestOf([bytes.subarray(0, prefixBytes), header, index]).equals(bytes.subarray(prefixBytes, start))) throw new SnapshotDamagedError('checksum mismatch: a byte changed');
  return { header: parseHeader(header, generation), index };
}

/** Format 1 (before checksums): a u32 header length and a JSON header with `format: 1`, then the FAISS bytes. */
export function readFormat1(bytes: Buffer, generation: number | undefined): LegacySnapshot {
  if (bytes.length < 4) throw new SnapshotDamagedError(`truncated: ${bytes.length} bytes`);
  const length = bytes.readUInt32LE(0);
  if (4 + length > bytes.length) {
    throw new SnapshotDamagedError(`truncated or not a snapshot: its first bytes announce a ${length}-byte header, the file has ${bytes.length} bytes`);
  }
  const raw = bytes.subarray(4, 4 + length);
  const format = (() => {
    try {
      return (JSON.parse(raw.toString('utf8')) as { format?: unknown }).format;
    } catch {
      return undefined;
    }
  })();
  if (format !== 1) throw new SnapshotDamagedError('neither a checksummed snapshot nor a format 1 one');
  return { header: parseHeader(raw, generation), index: bytes.subarray(4 + length) };
}

/** An older snapshot read whole, by the magic its first bytes carry. */
export function readLegacy(bytes: Buffer, generation: number | undefined): LegacySnapshot {
  const first = bytes.subarray(0, 8);
  if (first.equals(format3Magic)) return readFormat3(bytes, generation);
  return first.equals(format2Magic) ? readFormat2(bytes, generation) : readFormat1(bytes, generation);
}
