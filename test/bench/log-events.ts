/**
 * The events `engine.writeMemory` appends for a memory, computed without an engine: the command
 * parsed as the write path parses it, deriveEvents for the graph and atoms, the decider's events,
 * stamped. Used by the projections benchmark to build a large log quickly (see events-worker.ts).
 */
import { stampEvents } from '../../src/commands/decider.js';
import { commandSchemasFor, type MemoryCommand } from '../../src/commands/memory/commands.js';
import { defaultLimits } from '../../src/events/bounds.js';
import { memoryDecider } from '../../src/commands/memory/decider.js';
import { deriveEvents } from '../../src/engine/derive.js';
import type { DomainEvent, EventData, EventOf } from '../../src/events/catalog.js';
import { atomKey } from '../../src/projections/atoms.js';
import type { AtomQueries, MemoryAtom } from '../../src/queries/atoms.js';
import { memoryInput, type MemoryInput } from './corpus.js';

/** Time of the first memory; each next one a second later. */
export const logStart = Date.UTC(2025, 0, 1);

/**
 * The one AtomQueries call deriveEvents makes (`withKey`), answered from the atoms derived so far
 * instead of from the atoms projection: the same answers, since this log never changes an atom's
 * status (only updates supersede atoms).
 */
export function derivedAtoms() {
  const byKey = new Map<string, MemoryAtom[]>();
  const byId = new Map<string, MemoryAtom>();
  const scopeKey = (sessionId: string | null, personaId: string | null, key: string) => `${sessionId ?? ''}\u0000${personaId ?? ''}\u0000${key}`;
  const queries = {
    withKey(scope: { sessionId: string | null; personaId: string | null }, key: string, filter: { aliveAt?: string } = {}): MemoryAtom[] {
      const at = filter.aliveAt === undefined ? null : Date.parse(filter.aliveAt);
      return (byKey.get(scopeKey(scope.sessionId, scope.personaId, key)) ?? [])
        .filter((a) => a.status === 'active' && (at === null || a.expiresAt === null || Date.parse(a.expiresAt) > at))
        .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.atomId < b.atomId ? -1 : a.atomId > b.atomId ? 1 : 0));
    },
  } as unknown as AtomQueries;
  const record = (events: readonly DomainEvent[]): void => {
    for (const e of events) {
      if (e.type === 'AtomExtracted') {
        const d = e.data;
        const atom: MemoryAtom = {
          atomId: d.atomId, memoryId: d.memoryId, atomType: d.atomType, content: d.content, entities: d.entities,
          importance: d.importance, confidence: d.confidence, ttlDays: d.ttlDays,
          expiresAt: d.expiresAt === null ? null : new Date(d.expiresAt).toISOString(), status: 'active', reinforcementCount: 0,
          decayType: d.decayType, supersededBy: null, sessionId: d.sessionId, personaId: d.personaId,
          createdAt: e.metadata.occurredAt, updatedAt: e.metadata.occurredAt, touchedAt: e.metadata.occurredAt,
        };
        const key = scopeKey(d.sessionId, d.personaId, atomKey(d.content));
        byKey.set(key, [...(byKey.get(key) ?? []), atom]);
        byId.set(d.atomId, atom);
      } else if (e.type === 'AtomReinforced') {
        const atom = byId.get(e.data.atomId);
        if (!atom) throw new Error(`reinforced unknown atom ${e.data.atomId}`);
        const next = { ...atom, reinforcementCount: e.data.reinforcementCount, expiresAt: e.data.expiresAt === null ? null : new Date(e.data.expiresAt).toISOString() };
        byId.set(atom.atomId, next);
        const list = byKey.get(scopeKey(atom.sessionId, atom.personaId, atomKey(atom.content))) ?? [];
        list[list.indexOf(atom)] = next;
      }
    }
  };
  return { queries, record };
}

/** The MemoryWritten event alone of a write, as a raw baseline stores it (no derived events). */
export function writtenEvent(memoryId: string, input: MemoryInput, at: number): EventOf<'MemoryWritten'> {
  const data = commandSchemasFor(defaultLimits).WriteMemory.parse({ memoryId, ...input }) as EventData<'MemoryWritten'>;
  const [event] = stampEvents<EventOf<'MemoryWritten'>>([{ type: 'MemoryWritten', schemaVersion: 2, data }], {
    commandId: `cmd-${memoryId}`, now: new Date(at).toISOString(), actor: 'bench',
  });
  if (!event) throw new Error('stampEvents returned nothing');
  return event;
}

/** Everything one WriteMemory appends to the memory's stream, as the write path decides it. */
export function writeEvents(memoryId: string, input: MemoryInput, at: number, atoms: AtomQueries): DomainEvent[] {
  const data = commandSchemasFor(defaultLimits).WriteMemory.parse({ memoryId, ...input }) as EventData<'MemoryWritten'>;
  const metadata = { commandId: `cmd-${memoryId}`, now: new Date(at).toISOString(), actor: 'bench' };
  let ids = 0;
  const derived = deriveEvents(data, metadata.now, () => `${memoryId}-atom-${(ids += 1)}`, atoms);
  const command: MemoryCommand = { type: 'WriteMemory', data, metadata, derived };
  return stampEvents<DomainEvent>(memoryDecider.decide(command, memoryDecider.initialState()), metadata);
}

/** The events of memories `from` to `to` (exclusive) of the corpus, in order; `atoms` carries over between calls. */
export function corpusEvents(from: number, to: number, atoms: ReturnType<typeof derivedAtoms>): DomainEvent[][] {
  const out: DomainEvent[][] = [];
  for (let i = from; i < to; i += 1) {
    const events = writeEvents(`mem-${i}`, memoryInput(i), logStart + i * 1000, atoms.queries);
    atoms.record(events);
    out.push(events);
  }
  return out;
}
