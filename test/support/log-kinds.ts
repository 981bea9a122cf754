import type { EngineOptions, MemoryEngine } from '../../src/engine/engine.js';
import { openTestEngine } from './engine.js';
import { openEventStoreEngine } from './eventstore-engine.js';
import { eventStoreTarget, eventStoreUnderTest, realEventStoreUrl, type EventStoreUnderTest } from './eventstore-log.js';

export interface EngineHost {
  /** A fresh store on `dir`: each call its own log (its own stand-in, or a namespace of its own on a real server). */
  open(dir: string, options?: EngineOptions): Promise<MemoryEngine>;
  stop(): Promise<void>;
}

export interface EngineLogKind {
  readonly name: string;
  /** Runs of a property: EventStoreDB goes through gRPC, so it gets fewer of the same property. */
  runs(sqliteRuns: number): number;
  start(): Promise<EngineHost>;
}

/** The engine's properties hold on both logs: the SQLite file, and EventStoreDB (stand-in or EVENTSTORE_URL). */
export const engineLogKinds: readonly EngineLogKind[] = [
  { name: 'sqlite log', runs: (n) => n, start: async () => ({ open: openTestEngine, stop: async () => undefined }) },
  {
    name: `EventStoreDB log (${eventStoreTarget})`,
    runs: (n) => Math.max(2, Math.ceil(n / 8)),
    async start() {
      // On the stand-in each store gets a server of its own: one server's $all would hold every
      // earlier store's events, and each replay would read them all. A real server gets namespaces.
      const targets: EventStoreUnderTest[] = [];
      let stores = 0;
      return {
        async open(dir, options = {}) {
          const target = realEventStoreUrl && targets[0] ? targets[0] : await eventStoreUnderTest();
          if (!targets.includes(target)) targets.push(target);
          return openEventStoreEngine(dir, target.url, `${target.namespace}_${(stores += 1)}`, options);
        },
        stop: async () => void (await Promise.all(targets.map((t) => t.cleanup()))),
      };
    },
  },
];
