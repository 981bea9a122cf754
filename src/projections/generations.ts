import type { SqliteDatabase } from '../events/log/sqlite-database.js';

export type GenerationStatus = 'building' | 'live' | 'retired' | 'failed';

export interface Generation {
  readonly name: string;
  readonly generation: number;
  readonly version: number;
  readonly status: GenerationStatus;
  readonly checkpoint: bigint;
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
 * connection moves PRAGMA data_version.
 */
const liveCaches = new WeakMap<SqliteDatabase, { numbers: Map<string, number>; version: number }>();
function liveCacheOf(db: SqliteDatabase): { numbers: Map<string, number>; version: number } {
  let cache = liveCaches.get(db);
  if (!cache) liveCaches.set(db, (cache = { numbers: new Map(), version: -1 }));
  return cache;
}

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
  `);
  const stmt = {
    find: db.prepare<[string, string], Row>(
      'SELECT * FROM projection_generations WHERE name = ? AND status = ? ORDER BY generation DESC LIMIT 1',
    ),
    one: db.prepare<[string, number], Row>('SELECT * FROM projection_generations WHERE name = ? AND generation = ?'),
    next: db.prepare<[string], { next: number }>(
      'SELECT coalesce(max(generation), 0) + 1 AS next FROM projection_generations WHERE name = ?',
    ),
    insert: db.prepare('INSERT INTO projection_generations (name, generation, version, status) VALUES (?, ?, ?, ?)'),
    setStatus: db.prepare('UPDATE projection_generations SET status = ? WHERE name = ? AND generation = ?'),
    setCheckpoint: db.prepare('UPDATE projection_generations SET checkpoint = ? WHERE name = ? AND generation = ?'),
    dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
  };
  const cache = liveCacheOf(db);
  const toGeneration = (row: Row | undefined): Generation | undefined =>
    row && { ...row, checkpoint: BigInt(row.checkpoint) };

  return {
    live: (name: string) => toGeneration(stmt.find.get(name, 'live')),
    /** The live generation's number, or undefined when there is none; cached between switches. */
    liveNumber(name: string): number | undefined {
      const version = stmt.dataVersion.get() as number;
      if (version !== cache.version) {
        cache.numbers.clear();
        cache.version = version;
      }
      const cached = cache.numbers.get(name);
      if (cached !== undefined) return cached;
      const found = stmt.find.get(name, 'live')?.generation;
      if (found !== undefined) cache.numbers.set(name, found);
      return found;
    },
    building: (name: string) => toGeneration(stmt.find.get(name, 'building')),
    get: (name: string, generation: number) => toGeneration(stmt.one.get(name, generation)),
    create(name: string, version: number, status: 'building' | 'live'): Generation {
      const generation = stmt.next.get(name)?.next ?? 1;
      cache.numbers.clear();
      stmt.insert.run(name, generation, version, status);
      return { name, generation, version, status, checkpoint: 0n };
    },
    setStatus(gen: Generation, status: GenerationStatus): void {
      cache.numbers.clear();
      stmt.setStatus.run(status, gen.name, gen.generation);
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
