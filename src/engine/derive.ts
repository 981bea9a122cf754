import type { DerivedEvent } from '../commands/memory/commands.js';
import type { EventData } from '../events/catalog.js';
import { liveOnly, type AtomQueries } from '../queries/atoms.js';
import { atomKey, extractAtoms, reinforcementTtl } from '../extraction/atoms.js';
import { extractGraph } from '../extraction/graph.js';

type Memory = Pick<
  EventData<'MemoryWritten'>,
  'memoryId' | 'text' | 'importance' | 'sessionId' | 'personaId' | 'participants' | 'topics' | 'keyFacts'
>;

/**
 * The graph links and atoms of a memory, decided here, before the append, so a replay never
 * extracts again. A statement already held as a live atom in the same scope reinforces it.
 */
export function deriveEvents(memory: Memory, now: string, newId: () => string, atoms: Pick<AtomQueries, 'withKey'>): DerivedEvent[] {
  const graph: DerivedEvent = { type: 'GraphEntriesLinked', schemaVersion: 1, data: extractGraph(memory) };
  const scope = { sessionId: memory.sessionId, personaId: memory.personaId };
  const derived: DerivedEvent[] = [graph];
  for (const atom of extractAtoms(memory, now, () => newId())) {
    const known = atoms.withKey(scope, atomKey(atom.content), liveOnly(now))[0];
    if (!known || known.memoryId === memory.memoryId) {
      derived.push({ type: 'AtomExtracted', schemaVersion: 1, data: atom });
      continue;
    }
    const { reinforcementCount, expiresAt } = reinforcementTtl(
      { ...known, atomType: known.atomType as EventData<'AtomExtracted'>['atomType'] },
      now,
    );
    derived.push({
      type: 'AtomReinforced',
      schemaVersion: 1,
      data: { atomId: known.atomId, byMemoryId: memory.memoryId, reinforcementCount, expiresAt },
    });
  }
  return derived;
}
