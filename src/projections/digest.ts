import { createHash } from 'node:crypto';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { generationTable } from './generations.js';
import type { Projection } from './projection.js';

/** A canonical hash of every row of a projection generation, table by table in key order. */
export function projectionDigest(db: SqliteDatabase, projection: Projection, generation: number): string {
  const hash = createHash('sha256');
  const tables = [...projection.tables].sort((a, b) => a.name.localeCompare(b.name));
  for (const { name, key } of tables) {
    hash.update(`table ${name}\n`);
    const rows = db.prepare(`SELECT * FROM ${generationTable(name, generation)} ORDER BY ${key}`).raw(true);
    for (const row of rows.iterate() as Iterable<unknown[]>) hash.update(`${JSON.stringify(row, encodeBlobs)}\n`);
  }
  return hash.digest('hex');
}

function encodeBlobs(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return { blob: Buffer.from(value).toString('hex') };
  if (typeof value === 'bigint') return value.toString();
  return value;
}
