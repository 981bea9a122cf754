import type { SqliteDatabase } from '../events/log/sqlite-database.js';

export type GenerationStatus = 'building' | 'live' | 'retired' | 'failed';

export interface Generation {
  readonly name: string;
  readonly generation: number;
  readonly version: number;
  readonly status: GenerationStatus;
  readonly checkpoint: bigint;
}

/** Where a generation stopped for good: the event its apply threw on, and the error (ADR 23). */
export interface ProjectionFailure {
  readonly position: bigint;
  readonly error: string;
}

interface Row {
  name: string;
  generation: number;
  version: number;
  status: GenerationStatus;
  checkpoint: number;
}

/*
 * Live generation numbers for the read path, which asks for them on every query; one cache per
 * connection, so a switch made through any store on it clears it, and a switch made by another
 * connection moves PRAGMA data_version. That pragma is read once per run of synchronous code (a
 * recall asks for table names dozens of times, and read it twice for each): a switch another connection
 * commits meanwhile is seen at the next turn, as one committed just after the check always was.
 */
interface LiveCache {
  numbers: Map<string, number>;
  failures: Map<string, ProjectionFailure | null>;
  version: number;
  checked: boolean;
}
const liveCaches = new WeakMap<SqliteDatabase, LiveCache>();
function liveCacheOf(db: SqliteDatabase): LiveCache {
  let cache = liveCaches.get(db);
  if (!cache) liveCaches.set(db, (cache = { numbers: new Map(), failures: new Map(), version: -1, checked: false }));
  return cache;
}
const clear = (cache: LiveCache): void => {
  cache.numbers.clear();
  cache.failures.clear();
};

/** Which generation of each projection is live, and how far each has read the log. */
export function createGenerationStore(db: SqliteDatabase) {
  db.exec(`
    CREATE TABLE IF NOT EXISTS projection_generations (
      name TEXT NOT NULL,
      generation INTEGER NOT NULL,
      version INTEGER NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('building', 'live', 'retired', 'failed')),
      checkpoint INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (name, generation)
    );
    CREATE UNIQUE INDEX IF NOT EXISTS projection_one_live ON projection_generations (name) WHERE status = 'live';
    CREATE TABLE IF NOT EXISTS projection_failures (
      name TEXT NOT NULL,
      generation INTEGER NOT NULL,
      position INTEGER NOT NULL,
      error TEXT NOT NULL,
      PRIMARY KEY (name, generation)
    );
  `);
  const stmt = {
    find: db.prepare<[string, string], Row>(
      'SELECT * FROM projection_generations WHERE name = ? AND status = ? ORDER BY generation DESC LIMIT 1',
    ),
    one: db.prepare<[string, number], Row>('SELECT * FROM projection_generations WHERE name = ? AND generation = ?'),
    lives: db.prepare<[], Row>("SELECT * FROM projection_generations WHERE status = 'live'"),
    // One query for what a page's apply checks first (the status, and no failure recorded).
    writable: db.prepare<[string, number], { checkpoint: number }>(
      `SELECT g.checkpoint FROM projection_generations g WHERE g.name = ? AND g.generation = ? AND g.status IN ('building', 'live')
       AND NOT EXISTS (SELECT 1 FROM projection_failures f WHERE f.name = g.name AND f.generation = g.generation)`,
    ),
    next: db.prepare<[string], { next: number }>(
      'SELECT coalesce(max(generation), 0) + 1 AS next FROM projection_generations WHERE name = ?',
    ),
    insert: db.prepare('INSERT INTO projection_generations (name, generation, version, status) VALUES (?, ?, ?, ?)'),
    setStatus: db.prepare('UPDATE projection_generations SET status = ? WHERE name = ? AND generation = ?'),
    setCheckpoint: db.prepare('UPDATE projection_generations SET checkpoint = ? WHERE name = ? AND generation = ?'),
    dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
    failure: db.prepare<[string, number], { position: number; error: string }>('SELECT position, error FROM projection_failures WHERE name = ? AND generation = ?'),
    fail: db.prepare('INSERT OR IGNORE INTO projection_failures (name, generation, position, error) VALUES (?, ?, ?, ?)'),
    forget: db.prepare('DELETE FROM projection_failures WHERE name = ? AND generation = ?'),
  };
  const cache = liveCacheOf(db);
  const toGeneration = (row: Row | undefined): Generation | undefined =>
    row && { ...row, checkpoint: BigInt(row.checkpoint) };
  const failure = (name: string, generation: number): ProjectionFailure | undefined => {
    const row = stmt.failure.get(name, generation);
    return row && { position: BigInt(row.position), error: row.error };
  };
  const fresh = (): void => {
    if (cache.checked) return;
    cache.checked = true;
    queueMicrotask(() => {
      cache.checked = false;
    });
    const version = stmt.dataVersion.get() as number;
    if (version !== cache.version) {
      clear(cache);
      cache.version = version;
    }
  };

  return {
    live: (name: string) => toGeneration(stmt.find.get(name, 'live')),
    /** The live generation of each of `names` (undefined where none), in one query. */
    lives(names: readonly string[]): (Generation | undefined)[] {
      const live = new Map(stmt.lives.all().map((row) => [row.name, row]));
      return names.map((name) => toGeneration(live.get(name)));
    },
    /** The live generation's number, or undefined when there is none; cached between switches. */
    liveNumber(name: string): number | undefined {
      fresh();
      const cached = cache.numbers.get(name);
      if (cached !== undefined) return cached;
      const found = stmt.find.get(name, 'live')?.generation;
      if (found !== undefined) cache.numbers.set(name, found);
      return found;
    },
    /** Why the live generation stopped, or null while it applies the log; cached like `liveNumber`. */
    liveFailure(name: string): ProjectionFailure | null {
      fresh();
      const cached = cache.failures.get(name);
      if (cached !== undefined) return cached;
      const generation = stmt.find.get(name, 'live')?.generation;
      const found = (generation === undefined ? undefined : failure(name, generation)) ?? null;
      cache.failures.set(name, found);
      return found;
    },
    failure,
    /** Marks the generation failed at `position`: it applies no more events until a rebuild replaces it. */
    markFailed(gen: Pick<Generation, 'name' | 'generation'>, position: bigint, error: string): void {
      clear(cache);
      stmt.fail.run(gen.name, gen.generation, Number(position), error.slice(0, 2000));
    },
    /** The checkpoint of a generation that still takes writes (building or live, not stopped at an event); undefined otherwise. */
    writableCheckpoint: (name: string, generation: number): bigint | undefined => {
      const row = stmt.writable.get(name, generation);
      return row && BigInt(row.checkpoint);
    },
    building: (name: string) => toGeneration(stmt.find.get(name, 'building')),
    get: (name: string, generation: number) => toGeneration(stmt.one.get(name, generation)),
    create(name: string, version: number, status: 'building' | 'live'): Generation {
      const generation = stmt.next.get(name)?.next ?? 1;
      clear(cache);
      stmt.insert.run(name, generation, version, status);
      return { name, generation, version, status, checkpoint: 0n };
    },
    setStatus(gen: Generation, status: GenerationStatus): void {
      clear(cache);
      stmt.setStatus.run(status, gen.name, gen.generation);
      // A retired or failed generation's tables are gone: so is the record of where it stopped.
      if (status === 'retired' || status === 'failed') stmt.forget.run(gen.name, gen.generation);
    },
    setCheckpoint(gen: Generation, position: bigint): void {
      stmt.setCheckpoint.run(Number(position), gen.name, gen.generation);
    },
  };
}

export type GenerationStore = ReturnType<typeof createGenerationStore>;

/** The physical name of a projection table in one generation. */
export function generationTable(table: string, generation: number): string {
  return `${table}_g${generation}`;
}
