/**
 * Core benchmark: the log's appends and the documents projection's replay, each beside raw
 * better-sqlite3 doing the same SQLite work, on real files with the same pragmas (openDatabase).
 *
 *   node dist/test/bench/core.bench.js [--json] [--reps=N] [--single=N] [--events=N]
 *
 * Figures are events per second; ratio is ours / raw. Each figure is the median of the reps (default 3);
 * the meta `*RatioRange` entries give the lowest and highest ours/raw of single reps, to show the noise.
 * The `cpu:` rows give events per CPU-second of this process, which fsync waits and other load on the
 * machine disturb far less than wall time. The raw appends turn the same event objects into the same
 * rows inside the timing (JSON.stringify + INSERT, as any store of these events must), but skip
 * everything ours adds: schema validation, the revision check, the streams table, the sealing of
 * content (ADR 19) and the hash chain (ADR 16). A second raw baseline for the batched appends,
 * "raw + same crypto", also does the security work every event needs, the plain node:crypto way:
 * one AES-256-GCM seal per event of the same content fields (one fixed key, IVs from a pool),
 * the clear fields and the box as JSON, a sha256 link per row over its columns, INSERT with the
 * link. It has no target: it shows what our sealing and chain cost beyond doing the same work naively.
 */
import { createCipheriv, createSecretKey, hash, randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { stampEvents, type EventBody } from '../../src/commands/decider.js';
import type { EventOf } from '../../src/events/catalog.js';
import { openDatabase, type SqliteDatabase } from '../../src/events/log/sqlite-database.js';
import { createSqliteEventLog } from '../../src/events/log/sqlite-event-log.js';
import { ensureHashChain } from '../../src/events/log/sqlite-chain-schema.js';
import { createLogSchema } from '../../src/events/log/sqlite-schema.js';
import { projectionDigest } from '../../src/projections/digest.js';
import { documentsProjection, writtenMetadata } from '../../src/projections/documents.js';
import { createProjectionRunner } from '../../src/projections/runner.js';
import { bindGeneration } from '../../src/projections/tx.js';
import { reportWhenEntryPoint, row, type BenchReport, type BenchRow } from './report.js';
import { benchDir, fileSystemOf, intArg, median, progress, rates, timed, type Rates, type Timing } from './support.js';

type Written = EventOf<'MemoryWritten'>;
/** An events row as the log stores it: stream_id, stream_revision, event_id, type, schema_version, data, metadata. */
export type EventRow = [string, number, string, string, number, string, string];
/**
 * A memory's rows as the documents projection writes them: its documents row (memory_id, text,
 * metadata without the vitals, last_position) and its memory_vitals row (status, created_at,
 * importance, access_count, last_accessed_at).
 */
export type DocumentRow = [string, string, string, number, string, string, number, number, string | null];

const batchSize = 1_000;
const pageSize = 1_000;

const insertEventSql = `INSERT INTO events (stream_id, stream_revision, event_id, type, schema_version, data, metadata)
  VALUES (?, ?, ?, ?, ?, ?, ?)`;
const insertDocumentSql = 'INSERT INTO documents_g1 (memory_id, text, metadata, last_position) VALUES (?, ?, ?, ?)';
const insertVitalsSql =
  'INSERT INTO memory_vitals_g1 (memory_id, status, created_at, importance, access_count, last_accessed_at) VALUES (?, ?, ?, ?, ?, ?)';

// ---------------------------------------------------------------------------------------------
// Data, generated before any timing.

const filler =
  'The user mentioned that they prefer green tea in the morning, are learning to play the cello, ' +
  'and will travel to Lisbon in the spring to visit an old friend from university who now works there as an architect.';

function memoryText(i: number): string {
  return `Memory ${i}: ${filler}`.slice(0, 200);
}

function makeEvents(count: number, prefix: string): Written[] {
  const base = Date.UTC(2024, 0, 1);
  const events: Written[] = [];
  for (let i = 0; i < count; i += 1) {
    const body: EventBody<Written> = {
      type: 'MemoryWritten',
      schemaVersion: 2,
      data: {
        memoryId: `${prefix}${i}`,
        text: memoryText(i),
        importance: (i % 100) / 100,
        sessionId: `session-${i % 50}`,
        personaId: 'persona-1',
        userId: `user-${i % 7}`,
        topics: ['tea', 'travel'],
        keyFacts: ['prefers green tea'],
        participants: ['user', 'assistant'],
        sentiment: 'positive',
        sources: [],
      },
    };
    const now = new Date(base + i * 1000).toISOString();
    const [event] = stampEvents<Written>([body], { commandId: `cmd-${prefix}${i}`, now, actor: 'bench' });
    if (!event) throw new Error('stampEvents returned nothing');
    events.push(event);
  }
  return events;
}

export function eventRow(streamId: string, revision: number, e: Written): EventRow {
  return [streamId, revision, e.metadata.eventId, e.type, e.schemaVersion, JSON.stringify(e.data), JSON.stringify(e.metadata)];
}

/** The rows exactly as documentsProjection writes them for a MemoryWritten. */
export function documentRow(e: Written, position: number): DocumentRow {
  const { importance, accessCount, lastAccessedAt, ...stored } = writtenMetadata(e);
  return [e.data.memoryId, e.data.text, JSON.stringify(stored), position, stored.status, stored.createdAt, importance, accessCount, lastAccessedAt];
}

const batchStream = (b: number) => `memory-batch-${b}`;

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Scenarios. Each opens its own new file and returns events per second.

export function countRows(db: SqliteDatabase, table: string): number {
  return db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${table}`).get()?.n ?? 0;
}

export function expectRows(db: SqliteDatabase, table: string, expected: number, what: string): void {
  const n = countRows(db, table);
  if (n !== expected) throw new Error(`${what}: ${table} has ${n} rows, expected ${expected}`);
}

async function oursSingle(path: string, events: readonly Written[]): Promise<Rates> {
  const db = openDatabase(path);
  const log = createSqliteEventLog(db);
  const timing = await timed(async () => {
    for (let i = 0; i < events.length; i += 1) {
      await log.append(`memory-${i}`, [events[i] as Written], { expectedRevision: 'no_stream' });
    }
  });
  expectRows(db, 'events', events.length, 'ours, one per transaction');
  await log.close();
  db.close();
  return rates(events.length, timing);
}

export async function rawSingle(path: string, events: readonly Written[]): Promise<Rates> {
  const rows = events;
  const db = openDatabase(path);
  createLogSchema(db);
  const insert = db.prepare(insertEventSql);
  const one = db.transaction((e: Written, i: number) => insert.run(...eventRow(`memory-${i}`, 0, e)));
  const timing = await timed(() => {
    rows.forEach((e, i) => one.immediate(e, i));
  });
  expectRows(db, 'events', rows.length, 'raw, one per transaction');
  db.close();
  return rates(rows.length, timing);
}

async function appendBatches(db: SqliteDatabase, batches: readonly (readonly Written[])[]): Promise<Timing> {
  const log = createSqliteEventLog(db);
  const timing = await timed(async () => {
    for (let b = 0; b < batches.length; b += 1) {
      await log.append(batchStream(b), batches[b] ?? [], { expectedRevision: 'no_stream' });
    }
  });
  await log.close();
  return timing;
}

async function oursBatched(path: string, batches: readonly (readonly Written[])[], count: number): Promise<Rates> {
  const db = openDatabase(path);
  const timing = await appendBatches(db, batches);
  expectRows(db, 'events', count, 'ours, batched');
  db.close();
  return rates(count, timing);
}

export async function rawBatched(path: string, batches: readonly (readonly Written[])[], count: number): Promise<Rates> {
  const db = openDatabase(path);
  createLogSchema(db);
  const insert = db.prepare(insertEventSql);
  const many = db.transaction((stream: string, events: readonly Written[]) => {
    events.forEach((e, r) => insert.run(...eventRow(stream, r, e)));
  });
  const timing = await timed(() => {
    batches.forEach((batch, b) => many.immediate(batchStream(b), batch));
  });
  expectRows(db, 'events', count, 'raw, batched');
  db.close();
  return rates(count, timing);
}

const insertLinkedSql = `INSERT INTO events (global_position, stream_id, stream_revision, event_id, type, schema_version, data, metadata, hash)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * The batched appends done the plain way with the security work of ours: per event, the content
 * fields sealed with one AES-256-GCM call, the row as JSON, a sha256 link over its columns.
 */
async function rawSealedBatched(path: string, batches: readonly (readonly Written[])[], count: number): Promise<Rates> {
  const db = openDatabase(path);
  createLogSchema(db);
  ensureHashChain(db);
  const insert = db.prepare(insertLinkedSql);
  const key = createSecretKey(randomBytes(32));
  let ivs = Buffer.alloc(0);
  let link = '0'.repeat(64);
  let position = 0;
  const many = db.transaction((stream: string, events: readonly Written[]) => {
    events.forEach((e, r) => {
      if (ivs.length < 12) ivs = randomBytes(12 * 1024);
      const iv = ivs.subarray(0, 12);
      ivs = ivs.subarray(12);
      const { text, topics, keyFacts, participants, sentiment, sources, ...clear } = e.data;
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(`${e.type}\n${e.metadata.eventId}`));
      const ct = cipher.update(JSON.stringify([text, topics, keyFacts, participants, sentiment, sources]), 'utf8', 'base64') + cipher.final('base64');
      const box = { iv: iv.toString('base64'), ct, tag: cipher.getAuthTag().toString('base64') };
      const data = JSON.stringify({ ...clear, $sealed: box });
      const metadata = JSON.stringify(e.metadata);
      position += 1;
      const columns = [String(position), stream, String(r), e.metadata.eventId, e.type, String(e.schemaVersion), data, metadata];
      link = hash('sha256', link + columns.map((c) => `${c.length}:${c}`).join(''), 'hex');
      insert.run(position, stream, r, e.metadata.eventId, e.type, e.schemaVersion, data, metadata, link);
    });
  });
  const timing = await timed(() => {
    batches.forEach((batch, b) => many.immediate(batchStream(b), batch));
  });
  expectRows(db, 'events', count, 'raw + same crypto, batched');
  db.close();
  return rates(count, timing);
}

interface ReplayResult extends Rates {
  /** Events per second of the batched appends that built the replayed log. */
  readonly build: number;
  readonly digest: string;
}

async function oursReplay(path: string, batches: readonly (readonly Written[])[], count: number): Promise<ReplayResult> {
  const db = openDatabase(path);
  const build = await appendBatches(db, batches);
  // Start the replay from an empty WAL, as the raw inserts do.
  db.pragma('wal_checkpoint(TRUNCATE)');
  const log = createSqliteEventLog(db);
  const runner = createProjectionRunner({ db, log, projections: [documentsProjection], pageSize });
  const timing = await timed(() => runner.catchUp());
  const [status] = runner.status();
  if (!status || status.checkpoint !== BigInt(count)) throw new Error(`replay stopped at ${String(status?.checkpoint)}`);
  expectRows(db, runner.liveTable('documents', 'documents'), count, 'ours, replay');
  const digest = projectionDigest(db, documentsProjection, status.generation);
  await runner.stop();
  await log.close();
  db.close();
  return { ...rates(count, timing), build: count / build.wall, digest };
}

export async function rawDocuments(path: string, batches: readonly (readonly DocumentRow[])[], count: number) {
  const db = openDatabase(path);
  // The very DDL of documentsProjection.init, in a table named as generation 1.
  const tx = bindGeneration(db, documentsProjection, 1);
  db.transaction(() => documentsProjection.init(tx)).immediate();
  const insert = db.prepare(insertDocumentSql);
  const insertVitals = db.prepare(insertVitalsSql);
  const many = db.transaction((rows: readonly DocumentRow[]) => {
    for (const [memoryId, text, metadata, position, ...vitals] of rows) {
      insert.run(memoryId, text, metadata, position);
      insertVitals.run(memoryId, ...vitals);
    }
  });
  const timing = await timed(() => {
    for (const batch of batches) many.immediate(batch);
  });
  expectRows(db, 'documents_g1', count, 'raw, documents');
  const digest = projectionDigest(db, documentsProjection, 1);
  db.close();
  return { ...rates(count, timing), digest };
}

// ---------------------------------------------------------------------------------------------

type Scenario = 'single' | 'batched' | 'batchedSealed' | 'replay';

/** Every rep's rates of one scenario, ours and raw side by side. */
class Figures {
  private readonly runs = new Map<Scenario, { ours: Rates; raw: Rates }[]>();

  add(scenario: Scenario, ours: Rates, raw: Rates): void {
    this.runs.set(scenario, [...(this.runs.get(scenario) ?? []), { ours, raw }]);
  }

  /** Median over the reps, of wall or CPU rates. */
  median(scenario: Scenario, side: 'ours' | 'raw', clock: keyof Rates): number {
    return median((this.runs.get(scenario) ?? []).map((run) => run[side][clock]));
  }

  /** Lowest and highest ours/raw of single reps (wall clock): how noisy the machine was. */
  ratioRange(scenario: Scenario): string {
    const ratios = (this.runs.get(scenario) ?? []).map((run) => run.ours.wall / run.raw.wall);
    return `${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)}`;
  }
}

/** Runs ours and raw one after the other, ours first on odd reps and raw first on even ones. */
async function pair<O, R>(rep: number, ours: () => Promise<O>, raw: () => Promise<R>): Promise<[O, R]> {
  if (rep % 2 === 1) {
    const o = await ours();
    return [o, await raw()];
  }
  const r = await raw();
  return [await ours(), r];
}

export interface CoreBenchOptions {
  /** Events appended one per transaction (default `--single`, else 2,000). */
  readonly single?: number;
  /** Events of the batched appends and the replay (default `--events`, else 100,000). */
  readonly events?: number;
  /** Repetitions of each scenario (default `--reps`, else 3). */
  readonly reps?: number;
}

/** Runs every core scenario and returns the report (printing nothing but progress on stderr). */
export async function runCoreBench(options: CoreBenchOptions = {}): Promise<BenchReport> {
  const singleCount = options.single ?? intArg('single', 2_000);
  const totalCount = options.events ?? intArg('events', 100_000);
  const reps = options.reps ?? intArg('reps', 3);
  const warmupCount = Math.min(5_000, totalCount);
  const started = process.hrtime.bigint();
  const dir = benchDir();
  try {
    progress(`generating ${singleCount.toLocaleString('en-US')} + ${totalCount.toLocaleString('en-US')} events`);
    const singleEvents = makeEvents(singleCount, 's');
    const events = makeEvents(totalCount, 'm');
    const batches = chunks(events, batchSize);
    const documentBatches = chunks(
      events.map((e, i) => documentRow(e, i + 1)),
      batchSize,
    );

    // Warm-up on scratch files: the JIT, zod's compiled parsers and better-sqlite3's statements.
    progress(`warming up on ${warmupCount.toLocaleString('en-US')} events`);
    const warmBatches = batches.slice(0, Math.ceil(warmupCount / batchSize));
    const warmCount = warmBatches.reduce((n, b) => n + b.length, 0);
    await oursSingle(dir.file('warm-single'), singleEvents.slice(0, 200));
    await rawSingle(dir.file('warm-single-raw'), singleEvents.slice(0, 200));
    await oursReplay(dir.file('warm-replay'), warmBatches, warmCount);
    await rawBatched(dir.file('warm-batched-raw'), warmBatches, warmCount);
    await rawSealedBatched(dir.file('warm-batched-raw-sealed'), warmBatches, warmCount);
    await rawDocuments(dir.file('warm-documents-raw'), documentBatches.slice(0, warmBatches.length), warmCount);

    const figures = new Figures();
    const digests = new Set<string>();
    const buildRates: number[] = [];
    for (let rep = 1; rep <= reps; rep += 1) {
      const tag = reps > 1 ? ` (rep ${rep}/${reps})` : '';
      progress(`1. append, one event per transaction, ${singleCount} events${tag}`);
      const [s1, s1raw] = await pair(
        rep,
        () => oursSingle(dir.file('single-ours'), singleEvents),
        () => rawSingle(dir.file('single-raw'), singleEvents),
      );
      figures.add('single', s1, s1raw);

      progress(`2. append in batches of ${batchSize}, ${totalCount} events${tag}`);
      const [s2, s2raw] = await pair(
        rep,
        () => oursBatched(dir.file('batched-ours'), batches, totalCount),
        () => rawBatched(dir.file('batched-raw'), batches, totalCount),
      );
      figures.add('batched', s2, s2raw);
      figures.add('batchedSealed', s2, await rawSealedBatched(dir.file('batched-raw-sealed'), batches, totalCount));

      progress(`3. documents replay, ${totalCount} events${tag}`);
      const [s3, s3raw] = await pair(
        rep,
        () => oursReplay(dir.file('replay-ours'), batches, totalCount),
        () => rawDocuments(dir.file('documents-raw'), documentBatches, totalCount),
      );
      figures.add('replay', s3, s3raw);
      buildRates.push(s3.build);
      digests.add(s3.digest).add(s3raw.digest);
    }
    // The raw rows must be what the projection writes, or the comparison means nothing.
    if (digests.size !== 1) throw new Error('the raw documents rows differ from what the projection wrote');

    const names: Record<Scenario, string> = {
      single: `append, 1 event/transaction (N=${singleCount})`,
      batched: `append, ${batchSize} events/transaction (N=${totalCount})`,
      batchedSealed: `append, ${batchSize}/transaction vs raw + same crypto (N=${totalCount})`,
      replay: `documents replay vs raw inserts (N=${totalCount})`,
    };
    const targets: Record<Scenario, number | undefined> = { single: undefined, batched: 0.5, batchedSealed: undefined, replay: 0.3 };
    const scenarios: Scenario[] = ['single', 'batched', 'batchedSealed', 'replay'];
    const rows: BenchRow[] = [
      ...scenarios.map((sc) =>
        row(names[sc], figures.median(sc, 'ours', 'wall'), figures.median(sc, 'raw', 'wall'), 'events/s', targets[sc]),
      ),
      // Per CPU-second: what the code costs, apart from fsync waits and the machine's other load.
      ...scenarios.map((sc) =>
        row(`cpu: ${names[sc]}`, figures.median(sc, 'ours', 'cpu'), figures.median(sc, 'raw', 'cpu'), 'events/cpu-s'),
      ),
    ];
    const probe = openDatabase(':memory:');
    const sqliteVersion = probe.prepare<[], { v: string }>('SELECT sqlite_version() AS v').get()?.v ?? '?';
    probe.close();
    return {
      title: 'LivingMemory core benchmark (ratio = ours / raw better-sqlite3)',
      meta: {
        node: process.version,
        platform: `${process.platform} ${process.arch}`,
        cpus: `${cpus().length} x ${cpus()[0]?.model ?? '?'}`,
        loadAverage1m: Math.round((loadavg()[0] ?? 0) * 100) / 100,
        sqlite: sqliteVersion,
        pragmas: 'journal_mode=WAL synchronous=FULL busy_timeout=10000 foreign_keys=ON',
        tmpdir: `${dir.dir} (${fileSystemOf(dir.dir)})`,
        singleEvents: singleCount,
        events: totalCount,
        batchSize,
        pageSize,
        reps,
        singleRatioRange: figures.ratioRange('single'),
        batchedRatioRange: figures.ratioRange('batched'),
        batchedSealedRatioRange: figures.ratioRange('batchedSealed'),
        replayRatioRange: figures.ratioRange('replay'),
        replayLogBuildEventsPerSecond: Math.round(median(buildRates)),
        documentsDigestMatches: digests.size === 1,
        totalSeconds: Math.round(Number(process.hrtime.bigint() - started) / 1e7) / 100,
      },
      rows,
    };
  } finally {
    dir.remove();
  }
}

reportWhenEntryPoint(import.meta.url, runCoreBench);
