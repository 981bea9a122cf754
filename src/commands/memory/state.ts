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
  | 'GraphEntriesLinked'
  | 'AtomExtracted'
>;

export type MemoryFields = Omit<EventData<'MemoryWritten'>, 'sources'>;

export type MemoryState =
  | { readonly status: 'absent' }
  | { readonly status: 'active' | 'archived' | 'forgotten'; readonly memory: MemoryFields };

export const initialMemoryState = (): MemoryState => ({ status: 'absent' });

/** The memory stream's state: what the rules need, nothing more. */
export function evolveMemory(state: MemoryState, event: MemoryEvent): MemoryState {
  switch (event.type) {
    case 'MemoryWritten': {
      const { sources: _sources, ...memory } = event.data;
      return { status: 'active', memory };
    }
    case 'MemoryUpdated':
      return withMemory(state, (memory) => ({ ...memory, ...event.data.changes }));
    case 'MemoryImportanceDecayed':
      return withMemory(state, (memory) => ({ ...memory, importance: event.data.to }));
    case 'MemoryArchived':
      return withStatus(state, 'archived');
    case 'MemoryRestored':
      return withStatus(state, 'active');
    case 'MemoryForgotten':
      return withStatus(state, 'forgotten');
    // Derived facts travel in the memory's stream but change none of its rules.
    case 'MemoryEmbeddingFailed':
    case 'MemoryEmbeddingRepaired':
    case 'GraphEntriesLinked':
    case 'AtomExtracted':
      return state;
    default:
      return assertNever(event);
  }
}

function withMemory(state: MemoryState, change: (m: MemoryFields) => MemoryFields): MemoryState {
  return state.status === 'absent' ? state : { status: state.status, memory: change(state.memory) };
}

function withStatus(state: MemoryState, status: 'active' | 'archived' | 'forgotten'): MemoryState {
  return state.status === 'absent' ? state : { status, memory: state.memory };
}

export function assertNever(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}
