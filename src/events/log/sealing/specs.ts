import type { SubjectRef } from './keystore.js';

/** What the codec reads about a memory's subjects while it seals. */
export interface SubjectLookup {
  subjectsOf(memoryId: string): readonly SubjectRef[] | undefined;
}

type Data = Record<string, unknown>;

/**
 * How one event type is sealed: its content fields (dotted paths into `data`) with the value each
 * reads as once its key is gone, and the subjects whose keys seal it. Everything else in the event
 * (ids, scope, numbers, times) stays in clear for the audit and for the projections' keys.
 */
export interface SealSpec {
  readonly fields: Readonly<Record<string, unknown>>;
  subjects(data: Data, lookup: SubjectLookup): SubjectRef[];
  /** Set on the event that fixes a memory's subjects for the events that follow it. */
  readonly binds?: boolean;
}

/** The text an erased content field reads as. */
export const erasedText = '[erased]';

const id = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

function scoped(data: Data, kinds: readonly ['user' | 'session' | 'persona', string][]): SubjectRef[] {
  return kinds.flatMap(([kind, field]) => {
    const value = id(data[field]);
    return value === null ? [] : [{ kind, id: value }];
  });
}

function union(...lists: readonly SubjectRef[][]): SubjectRef[] {
  const seen = new Map<string, SubjectRef>();
  for (const s of lists.flat()) seen.set(`${s.kind}:${s.id}`, s);
  return [...seen.values()];
}

/** A memory's own subjects, or the memory itself when it has none (then only its own key seals it). */
export function memorySubjects(data: Data): SubjectRef[] {
  const own = scoped(data, [['user', 'userId'], ['session', 'sessionId'], ['persona', 'personaId']]);
  const memoryId = id(data['memoryId']);
  return own.length > 0 || memoryId === null ? own : [{ kind: 'memory', id: memoryId }];
}

/** Events about a memory: the memory's subjects (from its MemoryWritten), plus their own scope fields. */
function derivedSubjects(data: Data, lookup: SubjectLookup): SubjectRef[] {
  const memoryId = id(data['memoryId']) ?? '';
  const bound = lookup.subjectsOf(memoryId) ?? [];
  const all = union(bound.filter((s) => s.kind !== 'memory'), scoped(data, [['session', 'sessionId'], ['persona', 'personaId']]));
  return all.length > 0 ? all : [{ kind: 'memory', id: memoryId }];
}

const memoryLabels = { topics: [], keyFacts: [], participants: [], sentiment: null };

/** Every event type that carries free text, by name; the conversation's fields are sealed by name too. */
export const sealSpecs: ReadonlyMap<string, SealSpec> = new Map<string, SealSpec>([
  ['MemoryWritten', { fields: { text: erasedText, ...memoryLabels, sources: [] }, subjects: memorySubjects, binds: true }],
  [
    'MemoryUpdated',
    {
      fields: Object.fromEntries(Object.entries({ text: erasedText, ...memoryLabels }).map(([k, v]) => [`changes.${k}`, v])),
      subjects: derivedSubjects,
    },
  ],
  ['AtomExtracted', { fields: { content: erasedText, entities: [] }, subjects: derivedSubjects }],
  ['GraphEntriesLinked', { fields: { entries: [], nodes: [], edges: [] }, subjects: derivedSubjects }],
  [
    'MessageRecorded',
    {
      fields: { content: erasedText, senderName: null },
      subjects: (data) => union(scoped(data, [['session', 'sessionId'], ['user', 'senderId']])),
    },
  ],
]);
