/**
 * The raw baseline of a full rebuild (issue 17: "raw inserts of the same rows"): raw better-sqlite3
 * INSERTs of exactly the rows the rebuild left in every projection's live tables, into tables made
 * from the very DDL SQLite recorded for them (sqlite_master: tables, FTS5 virtual tables, indexes),
 * a thousand rows per prepared-statement transaction, plus raw FAISS adds of the same vectors of
 * both vector indexes. Rows and vectors are read and laid out before the timing starts; the copy's
 * digests must equal the rebuilt store's, so the baseline cannot write less than the rebuild did.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { IndexFlatIP } from 'faiss-node';
import { openDatabase, type SqliteDatabase } from '../../src/events/log/sqlite-database.js';
import { engineProjections } from '../../src/engine/indexes.js';
import { projectionDigest } from '../../src/projections/digest.js';
import { generationTable } from '../../src/projections/generations.js';
import type { Projection } from '../../src/projections/projection.js';
import { readSnapshot } from '../../src/projections/vectors/snapshot.js';
import { chunks, rawDocuments, type DocumentRow } from './core.bench.js';
import { row, type BenchRow } from './report.js';
import { progress, timed, type Timing } from './support.js';

const require = createRequire(import.meta.url);
const perTransaction = 1_000;

interface TableCopy {
  readonly name: string;
  readonly ddl: readonly string[];
  readonly insert: string;
  readonly rows: readonly unknown[][];
}

interface LiveProjection {
  readonly projection: Projection;
  readonly generation: number;
}

function liveGenerations(db: SqliteDatabase, projections: readonly Projection[]): LiveProjection[] {
  const live = db.prepare<[string], { generation: number }>("SELECT generation FROM projection_generations WHERE name = ? AND status = 'live'");
  return projections.map((projection) => {
    const found = live.get(projection.name);
    if (!found) throw new Error(`raw rebuild baseline: ${projection.name} has no live generation`);
    return { projection, generation: found.generation };
  });
}

/** One live table: its recorded DDL (table then indexes), an INSERT of every column (and an FTS5 rowid), its rows. */
function tableCopy(db: SqliteDatabase, name: string): TableCopy {
  const master = db.prepare<[string], { type: string; sql: string | null }>('SELECT type, sql FROM sqlite_master WHERE tbl_name = ? ORDER BY type DESC');
  const entries = master.all(name);
  const table = entries.find((e) => e.type === 'table')?.sql;
  if (!table) throw new Error(`raw rebuild baseline: no DDL for ${name}`);
  // Automatic indexes (a PRIMARY KEY's, a UNIQUE column's) have no SQL: the table's DDL makes them.
  const indexes = entries.filter((e) => e.type === 'index' && e.sql !== null).map((e) => e.sql as string);
  const virtual = /^create virtual table/i.test(table);
  // An FTS5 table's rowids are referenced from other tables (keys, fts_rowid): copied with the row.
  const select = db.prepare(`SELECT ${virtual ? 'rowid, ' : ''}* FROM ${name}`).raw(true);
  const columns = select.columns().map((c) => c.name);
  const rows = select.all() as unknown[][];
  const insert = `INSERT INTO ${name} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
  return { name, ddl: [table, ...indexes], insert, rows };
}

export interface RawRebuild {
  readonly sqlite: Timing;
  readonly faiss: Timing;
  readonly rows: number;
  readonly vectors: number;
  readonly tables: number;
}

const sum = (a: Timing, b: Timing): Timing => ({ wall: a.wall + b.wall, cpu: a.cpu + b.cpu });

/**
 * Raw inserts of the rebuilt store's rows into a new file at `path`, table by table (each read
 * before its timing starts, so only one table's rows are held at a time); checks every digest.
 */
async function rawSqlite(source: SqliteDatabase, path: string): Promise<{ timing: Timing; rows: number; tables: number }> {
  const live = liveGenerations(source, engineProjections);
  const names = live.flatMap(({ projection, generation }) => projection.tables.map((t) => generationTable(t.name, generation)));
  // The rebuild commits its pages at synchronous=NORMAL (withoutFsync, ADR 3): so does the baseline.
  const db = openDatabase(path, { synchronous: 'NORMAL' });
  const many = db.transaction((insert: ReturnType<SqliteDatabase['prepare']>, rows: readonly unknown[][]) => {
    for (const r of rows) insert.run(r);
  });
  let timing: Timing = { wall: 0, cpu: 0 };
  let rows = 0;
  for (const name of names) {
    const copy = tableCopy(source, name);
    db.exec(copy.ddl.join(';\n'));
    const insert = db.prepare(copy.insert);
    const batches = chunks(copy.rows, perTransaction);
    timing = sum(timing, await timed(() => {
      for (const batch of batches) many.immediate(insert, batch);
    }));
    rows += copy.rows.length;
  }
  for (const { projection, generation } of live) {
    if (projectionDigest(db, projection, generation) !== projectionDigest(source, projection, generation)) {
      throw new Error(`raw rebuild baseline: the raw ${projection.name} rows differ from the rebuilt ones`);
    }
  }
  db.close();
  return { timing, rows, tables: names.length };
}

/** Raw faiss-node adds of both vector indexes' vectors (read from their snapshots), a thousand per add. */
async function rawFaiss(db: SqliteDatabase, vectorsDir: string): Promise<{ timing: Timing; vectors: number }> {
  const faiss = require('faiss-node') as typeof import('faiss-node');
  const generation = db.prepare<[string], { generation: number }>("SELECT generation FROM projection_generations WHERE name = ? AND status = 'live'");
  const sets = ['vectors', 'graph_vectors'].map((name) => {
    const gen = generation.get(name)?.generation;
    const snapshot = gen === undefined ? null : readSnapshot(join(vectorsDir, `${name}-g${gen}.snap`), gen);
    if (!snapshot) throw new Error(`raw rebuild baseline: no snapshot of ${name}`);
    const { dimension, ids } = snapshot.header;
    // IndexFlat's serialisation ends with the raw vectors (flat-index.ts); copied out, as they need not be 4-byte aligned.
    const start = snapshot.index.byteOffset + snapshot.index.length - ids.length * dimension * 4;
    const floats = new Float32Array(snapshot.index.buffer.slice(start, start + ids.length * dimension * 4));
    // number[] is what faiss-node's add takes: laid out before the timing.
    const batches = chunks(Array.from({ length: ids.length }, (_, i) => i), perTransaction).map((part) =>
      Array.from(floats.subarray((part[0] ?? 0) * dimension, ((part.at(-1) ?? -1) + 1) * dimension)),
    );
    return { dimension, count: ids.length, batches };
  });
  const indexes: IndexFlatIP[] = [];
  const timing = await timed(() => {
    for (const set of sets) {
      const index = new faiss.IndexFlatIP(set.dimension);
      for (const batch of set.batches) index.add(batch);
      indexes.push(index);
    }
  });
  sets.forEach((set, i) => {
    if (indexes[i]?.ntotal() !== set.count) throw new Error('raw rebuild baseline: faiss holds another count of vectors');
  });
  return { timing, vectors: sets.reduce((n, s) => n + s.count, 0) };
}

/**
 * The baseline of the rebuild of the store in `dataDir` (closed; rebuilt just before): raw inserts
 * of its live rows into `rawPath`, then raw FAISS adds of its vectors. Time = the two summed.
 */
export async function rawRebuild(dataDir: string, rawPath: string): Promise<RawRebuild> {
  const source = openDatabase(join(dataDir, 'livingmemory.db'));
  try {
    const sqlite = await rawSqlite(source, rawPath);
    const faiss = await rawFaiss(source, join(dataDir, 'vectors'));
    return { sqlite: sqlite.timing, faiss: faiss.timing, rows: sqlite.rows, vectors: faiss.vectors, tables: sqlite.tables };
  } finally {
    source.close();
  }
}

export interface RebuildRowsInput {
  readonly events: number;
  readonly memories: number;
  /** The documents rows of the log, for the old documents-only reference row. */
  readonly documentRows: readonly DocumentRow[];
  /** Our full rebuild of the store in `dataDir`: rebuildAll of the SQLite projections + both vector indexes. */
  readonly ours: Timing;
  /** What the rebuild's row calls itself. */
  readonly label: string;
}

/** The full rebuild beside raw inserts of the same rows (the target row), and beside the old documents-only baseline. */
export async function rebuildRows(dataDir: string, file: (name: string) => string, input: RebuildRowsInput): Promise<BenchRow[]> {
  const { events, memories, ours } = input;
  progress(`raw inserts of the rows the rebuild wrote, and raw FAISS adds of its vectors (M=${memories})`);
  const raw = await rawRebuild(dataDir, file('rebuild-raw'));
  const rawWall = raw.sqlite.wall + raw.faiss.wall;
  const rawCpu = raw.sqlite.cpu + raw.faiss.cpu;
  progress(`raw documents inserts, ${memories} rows (the old reference baseline)`);
  const docs = await rawDocuments(file('documents-raw'), chunks(input.documentRows, 1_000), memories);
  return [
    row(`${input.label} vs raw inserts of the same rows (M=${memories}, ${events} events)`, events / ours.wall, events / rawWall, 'events/s', 0.2, {
      note:
        `ours = the log's ${events} events over the rebuild's wall time; raw = the same ${events} events over the time raw better-sqlite3 ` +
        `takes to INSERT exactly the ${raw.rows} rows the rebuild left in its ${raw.tables} live tables (same DDL from sqlite_master: ` +
        `FTS5 tables and indexes included; 1,000 rows per transaction; digests checked equal), ${raw.sqlite.wall.toFixed(2)} s, ` +
        `plus raw faiss-node adds of the same ${raw.vectors} vectors (1,000 per add), ${raw.faiss.wall.toFixed(2)} s`,
    }),
    row(`cpu: ${input.label} vs raw inserts of the same rows`, events / ours.cpu, events / rawCpu, 'events/cpu-s'),
    row(`reference: ${input.label} vs raw documents inserts only (the old baseline)`, events / ours.wall, events / (memories / docs.wall), 'events/s', undefined, {
      note: `the baseline before issue 17's rebuild work: the log's ${events} events over the time raw better-sqlite3 takes to insert only the ${memories} documents rows`,
    }),
  ];
}
