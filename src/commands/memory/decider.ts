import { DomainError } from '../errors.js';
import { transition } from '../lifecycle/atoms.js';
import type { Decider, EventBody } from '../decider.js';
import type { MemoryCommand, UpdateMemory } from './commands.js';
import { assertNever, evolveMemory, initialMemoryState, type MemoryEvent, type MemoryFields, type MemoryState } from './state.js';

type Body = EventBody<MemoryEvent>;

/** Rules of one memory: written once, changed while it lives, forgotten for good. */
export function decideMemory(command: MemoryCommand, state: MemoryState): Body[] {
  switch (command.type) {
    case 'WriteMemory':
      if (state.status !== 'absent') throw new DomainError('memory_exists', `memory ${command.data.memoryId} already exists`);
      if (command.consolidates && command.consolidates.data.memoryId !== command.data.memoryId) {
        throw new DomainError('consolidation_mismatch', `a consolidation of ${command.consolidates.data.memoryId} cannot be written with memory ${command.data.memoryId}`);
      }
      return [{ type: 'MemoryWritten', schemaVersion: 2, data: command.data }, ...(command.derived ?? []), ...(command.consolidates ? [command.consolidates] : [])];
    case 'UpdateMemory':
      return decideUpdate(command, living(state, command.data.memoryId, 'update'));
    case 'ForgetMemory': {
      // An erased memory is already gone further than a forget takes it.
      const { status } = requireExisting(state, command.data.memoryId);
      if (status === 'forgotten' || status === 'erased') return [];
      return [{ type: 'MemoryForgotten', schemaVersion: 1, data: command.data }];
    }
    case 'ArchiveMemory':
      if (living(state, command.data.memoryId, 'archive').status === 'archived') return [];
      return [{ type: 'MemoryArchived', schemaVersion: 1, data: command.data }];
    case 'RestoreMemory':
      if (living(state, command.data.memoryId, 'restore').status === 'active') return [];
      return [{ type: 'MemoryRestored', schemaVersion: 1, data: command.data }];
    default:
      return assertNever(command);
  }
}

function decideUpdate(command: UpdateMemory, memory: { memory: MemoryFields; atomIds: readonly string[] }): Body[] {
  // Importance decays in the ticks' streams, so the stream's copy may be stale: a given importance always records.
  const changes = Object.fromEntries(
    Object.entries(command.data.changes).filter(
      ([key, value]) => key === 'importance' || JSON.stringify(memory.memory[key as keyof MemoryFields]) !== JSON.stringify(value),
    ),
  );
  if (Object.keys(changes).length === 0) return [];
  const updated: Body = { type: 'MemoryUpdated', schemaVersion: 1, data: { memoryId: command.data.memoryId, changes } };
  if (changes.text === undefined || !command.derived) return [updated];
  // New text, new facts: the live atoms of the old text are superseded by the ones derived from the new.
  // An atom the read model does not show yet was extracted just now, so it is active.
  const superseded: Body[] = memory.atomIds.flatMap((atomId) => {
    const from = command.atomStatuses?.[atomId] ?? 'active';
    return from === 'active' || from === 'dormant' ? [transition(atomId, from, 'superseded', 'memory text updated')] : [];
  });
  return [updated, ...superseded, ...command.derived];
}

function requireExisting(state: MemoryState, memoryId: string): Exclude<MemoryState, { status: 'absent' }> {
  if (state.status === 'absent') throw new DomainError('memory_not_found', `memory ${memoryId} does not exist`);
  return state;
}

function living(state: MemoryState, memoryId: string, action: string) {
  const existing = requireExisting(state, memoryId);
  if (existing.status === 'forgotten') {
    throw new DomainError('memory_forgotten', `cannot ${action} memory ${memoryId}: it was forgotten`);
  }
  // An update would write its text in the clear under no destroyed key: the erased content would come back.
  if (existing.status === 'erased') {
    throw new DomainError('memory_erased', `cannot ${action} memory ${memoryId}: it was erased`);
  }
  return existing;
}

export const memoryDecider: Decider<MemoryCommand, MemoryEvent, MemoryState> = {
  initialState: initialMemoryState,
  evolve: evolveMemory,
  decide: decideMemory,
};
