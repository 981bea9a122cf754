import { createHash, type Hash } from 'node:crypto';
import { openReadOnly, type SqliteDatabase } from '../events/log/sqlite-database.js';
import { generationTable } from './generations.js';
import type { Projection } from './projection.js';
import { digestOnThread } from './digest-worker.js';

/** What a digest of one generation reads: its tables' names in this file, in digest order, and their keys. */
export interface DigestPlan {
  readonly path: string;
  readonly name: string;
  readonly generation: number;
  readonly tables: readonly { readonly name: string; readonly table: string; readonly key: string }[];
}

const tablesOf = (projection: Projection, generation: number): DigestPlan['tables'] =>
  [...projection.tables].sort((a, b) => a.name.localeCompare(b.name)).map(({ name, key }) => ({ name, table: generationTable(name, generation), key }));

/** The plan of a digest of `projection`'s `generation` in the file at `path`. */
export const digestPlan = (path: string, projection: Projection, generation: number): DigestPlan => ({ path, name: projection.name, generation, tables: tablesOf(projection, generation) });

/** Every row of the tables, table by table in key order. */
function hashTables(db: SqliteDatabase, tables: DigestPlan['tables']): string {
  const hash = createHash('sha256');
  for (const { name, table, key } of tables) {
    hash.update(`table ${name}\n`);
    const rows = db.prepare(`SELECT * FROM ${table} ORDER BY ${key}`).raw(true).iterate() as IterableIterator<unknown[]>;
    for (const row of rows) hashRow(hash, row);
  }
  return hash.digest('hex');
}

/** A canonical hash of every row of a projection generation, table by table in key order. */
export function projectionDigest(db: SqliteDatabase, projection: Projection, generation: number): string {
  return hashTables(db, tablesOf(projection, generation));
}

function hashRow(hash: Hash, row: unknown[]): void {
  hash.update(`${JSON.stringify(row, encodeBlobs)}\n`);
}

function encodeBlobs(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return { blob: Buffer.from(value).toString('hex') };
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/** Events a generation has applied before its digest is made on a thread (at 10k memories a log holds about 47k). */
export const digestThreadFrom = 20_000;

const checkpointSql = 'SELECT checkpoint FROM projection_generations WHERE name = ? AND generation = ?';
const checkpointOf = (on: SqliteDatabase, name: string, generation: number): bigint =>
  BigInt((on.prepare(checkpointSql).pluck().get(name, generation) as number | undefined) ?? 0);

/** The digest and the checkpoint of `plan`'s generation, from one read snapshot on a connection of its own (the digest thread's work). */
export function digestFromFile(plan: DigestPlan): { digest: string; position: bigint } {
  const reader = openReadOnly(plan.path);
  try {
    reader.pragma('busy_timeout = 10000');
    // One read transaction: the checkpoint and every row from the same snapshot.
    reader.exec('BEGIN');
    const position = checkpointOf(reader, plan.name, plan.generation);
    const digest = hashTables(reader, plan.tables);
    reader.exec('COMMIT');
    return { digest, position };
  } finally {
    reader.close();
  }
}

/**
 * The same digest, with the generation's checkpoint, read from one snapshot of the file on a
 * connection of its own, on a worker thread: at 100k memories the hash takes seconds, and the first
 * row of a table sorted by a key no index holds takes a sort of every row (190-380 ms of the event
 * loop when it ran here in slices, issue 17). Writes made meanwhile (the next catch-up) are not in
 * the snapshot, so digest and position still describe one state. A database with no file to open
 * twice, a generation under `digestThreadFrom` events, or no built thread script: hashed here.
 */
export async function projectionDigestAt(db: SqliteDatabase, projection: Projection, generation: number): Promise<{ digest: string; position: bigint }> {
  if (db.memory || db.name === '') return { position: checkpointOf(db, projection.name, generation), digest: projectionDigest(db, projection, generation) };
  const plan = digestPlan(db.name, projection, generation);
  // A thread costs about 100 ms to start (a test's many small rebuilds took four times as long): a small generation is hashed here.
  if (checkpointOf(db, projection.name, generation) < digestThreadFrom) return digestFromFile(plan);
  return (await digestOnThread(plan)) ?? digestFromFile(plan);
}
