import { derivedSubjects, memorySubjects, messageSubjects, type SubjectRef } from '../../subjects.js';

type Data = Record<string, unknown>;

/**
 * How one event type is sealed: its content fields (dotted paths into `data`) with the value each
 * reads as once its key is gone, and the subjects whose keys seal it. Everything else in the event
 * (ids, scope, numbers, times) stays in clear for the audit and for the projections' keys.
 */
export interface SealSpec {
  readonly fields: Readonly<Record<string, unknown>>;
  /** The keys of `fields`, in their order; comma-joined; as JSON (for the envelope of an event that has them all). */
  readonly paths: readonly string[];
  readonly pathList: string;
  readonly pathsJson: string;
  /** The subjects the event names itself. */
  subjects(data: Data): SubjectRef[];
  /** Also sealed under every key of the memory's MemoryWritten (updates, atoms, graph links of a memory). */
  readonly ofMemory?: boolean;
}

/** The text an erased content field reads as. */
export const erasedText = '[erased]';

const memoryLabels = { topics: [], keyFacts: [], participants: [], sentiment: null };

/** Every event type that carries free text, by name; the conversation's fields are sealed by name too. */
export const sealSpecs: ReadonlyMap<string, SealSpec> = new Map([...new Map<string, Omit<SealSpec, 'paths' | 'pathList' | 'pathsJson'>>([
  ['MemoryWritten', { fields: { text: erasedText, ...memoryLabels, sources: [] }, subjects: memorySubjects }],
  [
    'MemoryUpdated',
    {
      fields: Object.fromEntries(Object.entries({ text: erasedText, ...memoryLabels }).map(([k, v]) => [`changes.${k}`, v])),
      subjects: () => [],
      ofMemory: true,
    },
  ],
  ['AtomExtracted', { fields: { content: erasedText, entities: [] }, subjects: derivedSubjects, ofMemory: true }],
  ['GraphEntriesLinked', { fields: { entries: [], nodes: [], edges: [] }, subjects: derivedSubjects, ofMemory: true }],
  ['MessageRecorded', { fields: { content: erasedText, senderName: null }, subjects: messageSubjects }],
  ['MessageCleaned', { fields: { content: erasedText }, subjects: messageSubjects }],
]).entries()].map(([type, spec]) => [type, { ...spec, paths: Object.keys(spec.fields), pathList: Object.keys(spec.fields).join(','), pathsJson: JSON.stringify(Object.keys(spec.fields)) }]));
