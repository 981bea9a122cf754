import type { EventData, EventOf } from '../../events/catalog.js';

export type MemoryEvent = EventOf<
  | 'MemoryWritten'
  | 'MemoryUpdated'
  | 'MemoryImportanceDecayed'
  | 'MemoryArchived'
  | 'MemoryRestored'
  | 'MemoryForgotten'
  | 'MemoryEmbeddingFailed'
  | 'MemoryEmbeddingRepaired'
  | 'MemoriesConsolidated'
  | 'GraphEntriesLinked'
  | 'AtomExtracted'
  | 'AtomReinforced'
  | 'AtomStateChanged'
>;

export type MemoryFields = Omit<EventData<'MemoryWritten'>, 'sources'>;

export type MemoryState =
  | { readonly status: 'absent' }
  | {
      /** Erased: its write reads as erased (ADR 19), so nothing may be said of it again. */
      readonly status: 'active' | 'archived' | 'forgotten' | 'erased';
      readonly memory: MemoryFields;
      /** Atoms extracted from this memory that are still active: an edit of the text supersedes them. */
      readonly atomIds: readonly string[];
    };

export const initialMemoryState = (): MemoryState => ({ status: 'absent' });

/** The memory stream's state: what the rules need, nothing more. */
export function evolveMemory(state: MemoryState, event: MemoryEvent): MemoryState {
  switch (event.type) {
    case 'MemoryWritten': {
      const { sources: _sources, ...memory } = event.data;
      return { status: event.metadata.erased === true ? 'erased' : 'active', memory, atomIds: [] };
    }
    case 'MemoryUpdated':
      return withMemory(state, (memory) => ({ ...memory, ...event.data.changes }));
    case 'MemoryImportanceDecayed':
      // Ticks append to their own streams; a memory stream holds only a v1 decay (upcast to a batch of one).
      return withMemory(state, (memory) => {
        const decay = event.data.decays.find((d) => d.memoryId === memory.memoryId);
        return decay ? { ...memory, importance: decay.to } : memory;
      });
    case 'MemoryArchived':
      return withStatus(state, 'archived');
    case 'MemoryRestored':
      return withStatus(state, 'active');
    case 'MemoryForgotten':
      return withStatus(state, 'forgotten');
    case 'AtomExtracted':
      return state.status === 'absent' ? state : { ...state, atomIds: [...state.atomIds, event.data.atomId] };
    case 'AtomStateChanged':
      if (state.status === 'absent' || event.data.to === 'active') return state;
      return { ...state, atomIds: state.atomIds.filter((id) => id !== event.data.atomId) };
    // Derived facts travel in the memory's stream but change none of its rules.
    case 'MemoryEmbeddingFailed':
    case 'MemoryEmbeddingRepaired':
    case 'MemoriesConsolidated':
    case 'GraphEntriesLinked':
    case 'AtomReinforced':
      return state;
    default:
      return assertNever(event);
  }
}

function withMemory(state: MemoryState, change: (m: MemoryFields) => MemoryFields): MemoryState {
  return state.status === 'absent' ? state : { ...state, memory: change(state.memory) };
}

function withStatus(state: MemoryState, status: 'active' | 'archived' | 'forgotten'): MemoryState {
  // Nothing brings an erased memory back: its later events were stamped before the erasure read them.
  return state.status === 'absent' || state.status === 'erased' ? state : { ...state, status };
}

export function assertNever(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}
