import type { z } from 'zod';
import { stampEvents, type CommandMetadata, type EventBody } from '../commands/decider.js';
import type { createMemoryCommandSchemas, DerivedEvent } from '../commands/memory/commands.js';
import type { DomainEvent } from '../events/catalog.js';
import type { StreamAppend } from '../events/log/event-log.js';
import { streams } from '../events/streams.js';
import { atomKey } from '../extraction/atoms.js';
import { embedWithCache, type EmbeddingCache, type EmbeddingProvider } from '../providers/embeddings/index.js';
import type { AtomQueries, MemoryAtom } from '../queries/atoms.js';
import { deriveEvents } from './derive.js';
import { embedMemory, embeddingFailedEvents } from './write-path.js';

type WriteMemoryData = z.output<ReturnType<typeof createMemoryCommandSchemas>['WriteMemory']>;
type AtomLookup = Pick<AtomQueries, 'withKey'>;

/** One memory of an import: its WriteMemory input (checked), and whether it is archived after. */
export interface ImportedMemory {
  readonly data: WriteMemoryData;
  readonly archived: boolean;
}

export interface BatchDeps<M extends ImportedMemory = ImportedMemory> {
  readonly atoms: AtomLookup;
  readonly provider: EmbeddingProvider;
  readonly cache: EmbeddingCache;
  readonly newId: () => string;
  /** Fresh metadata for each command the import stands for (a memory, its archiving). */
  readonly metadata: (memory: M) => CommandMetadata;
}

/**
 * The store's atoms plus those the batch extracted or reinforced so far: written one by one, a
 * later memory of the import reinforced an earlier one's atom; deriving the whole batch before its
 * one append must decide the same.
 */
function batchAtoms(store: AtomLookup) {
  const extracted = new Map<string, MemoryAtom>();
  const reinforced = new Map<string, { reinforcementCount: number; expiresAt: string | null; touchedAt: string }>();
  const scoped = (scope: { sessionId: string | null; personaId: string | null }, key: string) => JSON.stringify([scope.sessionId, scope.personaId, key]);
  const lookup: AtomLookup = {
    withKey(scope, key, filter) {
      const found = store.withKey(scope, key, filter)[0] ?? extracted.get(scoped(scope, key));
      if (!found) return [];
      return [{ ...found, ...reinforced.get(found.atomId) }];
    },
  };
  const record = (events: readonly DerivedEvent[], now: string): void => {
    for (const e of events) {
      if (e.type === 'AtomReinforced') reinforced.set(e.data.atomId, { reinforcementCount: e.data.reinforcementCount, expiresAt: e.data.expiresAt, touchedAt: now });
      if (e.type !== 'AtomExtracted') continue;
      const key = scoped(e.data, atomKey(e.data.content));
      if (extracted.has(key)) continue;
      const { atomId, memoryId, atomType, content, entities, importance, confidence, ttlDays, expiresAt, decayType, sessionId, personaId } = e.data;
      extracted.set(key, {
        atomId, memoryId, atomType, content, entities, importance, confidence, ttlDays, expiresAt, decayType, sessionId, personaId,
        status: 'active', reinforcementCount: 0, supersededBy: null, createdAt: now, updatedAt: now, touchedAt: now,
      });
    }
  };
  return { lookup, record };
}

/** The memory texts and their graph entries' texts, as the write path embeds them. */
const embeddedTexts = (data: WriteMemoryData, derived: readonly DerivedEvent[]): string[] => [
  data.text,
  ...derived.flatMap((e) => (e.type === 'GraphEntriesLinked' ? e.data.entries.map((entry) => entry.text) : [])),
];

/**
 * Every event of a batch of new memories (an import's, or `writeMemories`'), per memory stream,
 * decided before anything is appended: MemoryWritten with its derived graph links and atoms (as
 * WriteMemory would), an embedding failure when the provider failed (as WriteMemory records it),
 * then MemoryArchived when the row was archived. The caller appends them all in one append.
 * `memories` is read lazily, one at a time, so ids it makes come in the order one-by-one writes make them.
 * Embeddings: one provider call for the whole batch; only when it fails, memory by memory, to record which.
 */
export async function importStreams<M extends ImportedMemory>(memories: Iterable<M>, deps: BatchDeps<M>): Promise<StreamAppend[]> {
  const atoms = batchAtoms(deps.atoms);
  const decided: { data: WriteMemoryData; meta: CommandMetadata; derived: DerivedEvent[]; events: DomainEvent[]; archive: DomainEvent[] }[] = [];
  for (const memory of memories) {
    const { data, archived } = memory;
    const meta = deps.metadata(memory);
    const derived = deriveEvents(data, meta.now, deps.newId, atoms.lookup);
    atoms.record(derived, meta.now);
    const bodies: EventBody[] = [{ type: 'MemoryWritten', schemaVersion: 2, data }, ...derived];
    const body = { type: 'MemoryArchived' as const, schemaVersion: 1 as const, data: { memoryId: data.memoryId, reason: 'imported as archived' } };
    decided.push({ data, meta, derived, events: stampEvents(bodies, meta), archive: archived ? stampEvents([body], deps.metadata(memory)) : [] });
  }
  const batchEmbedded = await embedWithCache(deps.provider, deps.cache, decided.flatMap((d) => embeddedTexts(d.data, d.derived))).then(
    () => true,
    () => false,
  );
  const appends: StreamAppend[] = [];
  for (const { data, meta, derived, events, archive } of decided) {
    const embeddingError = batchEmbedded ? undefined : await embedMemory(deps.provider, deps.cache, data.text, derived);
    if (embeddingError) events.push(...embeddingFailedEvents(deps.provider, data.memoryId, embeddingError, meta));
    appends.push({ streamId: streams.memory(data.memoryId), events: [...events, ...archive], expectedRevision: 'no_stream' });
  }
  return appends;
}
