import type { RecordedEvent } from '../../events/log/event-log.js';

/** One text to embed under an id, in the index of the owner (a memory) it belongs to. */
export interface VectorItem {
  readonly id: string;
  readonly text: string;
}

/**
 * What one event does to a vector index, per owner: `replace` makes the owner's items exactly
 * these, `drop` removes them all, `retry` looks the owner's pending items up in the cache again.
 */
export type VectorChange =
  | { readonly kind: 'replace'; readonly owner: string; readonly items: readonly VectorItem[] }
  | { readonly kind: 'drop'; readonly owner: string }
  | { readonly kind: 'retry'; readonly owner: string };

/** Which texts of the log one vector index holds: the same store code serves memories and graph entries. */
export interface VectorFeed {
  /** The projection's name: its generations and snapshot files go by it. */
  readonly name: string;
  changes(event: RecordedEvent): readonly VectorChange[];
}

/** What every feed does when a memory is repaired or forgotten: look its items up again, or drop them. */
function ownerChanges(event: RecordedEvent): readonly VectorChange[] {
  if (event.type === 'MemoryEmbeddingRepaired') return [{ kind: 'retry', owner: event.data.memoryId }];
  if (event.type === 'MemoryForgotten') return [{ kind: 'drop', owner: event.data.memoryId }];
  return [];
}

/** One vector per memory, of its text; the memory id is the item id. */
export const memoryVectorFeed: VectorFeed = {
  name: 'vectors',
  changes(event) {
    // An erased memory (ADR 19) keeps no vector: an embedding says something about its text.
    if (event.metadata.erased === true && (event.type === 'MemoryWritten' || event.type === 'MemoryUpdated')) {
      return [{ kind: 'drop', owner: event.data.memoryId }];
    }
    switch (event.type) {
      case 'MemoryWritten':
        return [{ kind: 'replace', owner: event.data.memoryId, items: [{ id: event.data.memoryId, text: event.data.text }] }];
      case 'MemoryUpdated': {
        const { text } = event.data.changes;
        return text === undefined ? [] : [{ kind: 'replace', owner: event.data.memoryId, items: [{ id: event.data.memoryId, text }] }];
      }
      default:
        return ownerChanges(event);
    }
  },
};

/**
 * One vector per graph entry, of the entry's text, owned by its memory: a re-extraction replaces
 * the memory's entries, as the graph projection does, and a forget drops them.
 */
export const graphEntryVectorFeed: VectorFeed = {
  name: 'graph_vectors',
  changes(event) {
    switch (event.type) {
      case 'GraphEntriesLinked':
        return [{ kind: 'replace', owner: event.data.memoryId, items: event.data.entries.map((e) => ({ id: e.entryId, text: e.text })) }];
      default:
        return ownerChanges(event);
    }
  },
};
