import { createHash, type Hash } from 'node:crypto';
import { openReadOnly, type SqliteDatabase } from '../events/log/sqlite-database.js';
import { generationTable } from './generations.js';
import type { Projection } from './projection.js';
import { cpuMs, turn } from './turns.js';

const rowsOf = (db: SqliteDatabase, projection: Projection, generation: number, name: string, key: string) =>
  db.prepare(`SELECT * FROM ${generationTable(name, generation)} ORDER BY ${key}`).raw(true).iterate() as IterableIterator<unknown[]>;

const sortedTables = (projection: Projection) => [...projection.tables].sort((a, b) => a.name.localeCompare(b.name));

/** A canonical hash of every row of a projection generation, table by table in key order. */
export function projectionDigest(db: SqliteDatabase, projection: Projection, generation: number): string {
  const hash = createHash('sha256');
  for (const { name, key } of sortedTables(projection)) {
    hash.update(`table ${name}\n`);
    for (const row of rowsOf(db, projection, generation, name, key)) hashRow(hash, row);
  }
  return hash.digest('hex');
}

function hashRow(hash: Hash, row: unknown[]): void {
  hash.update(`${JSON.stringify(row, encodeBlobs)}\n`);
}

function encodeBlobs(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return { blob: Buffer.from(value).toString('hex') };
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/**
 * The same digest, with the generation's checkpoint, read from one snapshot of the file on a
 * connection of its own and hashed a slice of about `budgetMs` at a time with a turn of the event
 * loop between: at 100k memories the whole hash takes seconds (issue 17). Writes made meanwhile
 * (the next catch-up) are not in the snapshot, so digest and position still describe one state.
 * A database with no file to open twice is hashed at once.
 */
export async function projectionDigestAt(db: SqliteDatabase, projection: Projection, generation: number, budgetMs = 8): Promise<{ digest: string; position: bigint }> {
  const checkpointSql = 'SELECT checkpoint FROM projection_generations WHERE name = ? AND generation = ?';
  const checkpointOf = (on: SqliteDatabase): bigint =>
    BigInt((on.prepare(checkpointSql).pluck().get(projection.name, generation) as number | undefined) ?? 0);
  if (db.memory || db.name === '') return { position: checkpointOf(db), digest: projectionDigest(db, projection, generation) };
  const reader = openReadOnly(db.name);
  try {
    reader.pragma('busy_timeout = 10000');
    // One read transaction: every slice reads the snapshot its first read took.
    reader.exec('BEGIN');
    const position = checkpointOf(reader);
    const hash = createHash('sha256');
    let sliceStart = cpuMs();
    for (const { name, key } of sortedTables(projection)) {
      hash.update(`table ${name}\n`);
      let n = 0;
      for (const row of rowsOf(reader, projection, generation, name, key)) {
        hashRow(hash, row);
        if ((n += 1) % 16 === 0 && cpuMs() - sliceStart > budgetMs) {
          await turn();
          sliceStart = cpuMs();
        }
      }
    }
    reader.exec('COMMIT');
    return { digest: hash.digest('hex'), position };
  } finally {
    reader.close();
  }
}
