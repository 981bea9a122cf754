import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';

export interface WalFrames {
  /** Frames in the WAL since it last started over (the header's mxFrame). */
  readonly frames: number;
  /** Of those, the frames a checkpoint has copied into the database file (nBackfill). */
  readonly copied: number;
}

// SQLite's wal-index header, documented in its file format (walformat.html, "the WAL-index header"):
// two copies of 48 bytes, mxFrame at offset 16 of each, then the checkpoint info whose nBackfill is
// at byte 96; all in the machine's byte order, isInit (byte 12) set once the header is valid.
const headerBytes = 100;

/**
 * The WAL's frame counts as SQLite keeps them in the `-shm` file, read with one `pread` each time.
 * The checkpoint thread's answers say the same, but only as of its last checkpoint, which a busy
 * machine delays while pages go on (ADR 32, session 15). Null where the file cannot be read.
 */
export function walIndexReader(dbFile: string) {
  const buffer = Buffer.alloc(headerBytes);
  const u32 = endianness() === 'LE' ? (at: number) => buffer.readUInt32LE(at) : (at: number) => buffer.readUInt32BE(at);
  let fd: number | null = null;
  return {
    read(): WalFrames | null {
      try {
        fd ??= openSync(`${dbFile}-shm`, 'r');
        if (readSync(fd, buffer, 0, headerBytes, 0) < headerBytes || buffer[12] === 0) return null;
      } catch {
        return null;
      }
      // A writer may be between the two copies: the larger count is the one it is writing.
      return { frames: Math.max(u32(16), u32(64)), copied: u32(96) };
    },
    close(): void {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}
