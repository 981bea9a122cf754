import type { EventData, EventOf } from '../../events/catalog.js';
import type { Command, Decider, EventBody } from '../decider.js';
import { DomainError } from '../errors.js';
import { assertNever } from '../memory/state.js';

/** The step whose record is SubjectErased itself: the key's destruction, in the transaction that records it. */
export const destroyKeyStep = 'destroy-key';

export type ErasureEvent = EventOf<'ErasureStarted' | 'SubjectErased' | 'ErasureStepCompleted' | 'ErasureFinished'>;

export type StartErasure = Command<'StartErasure', EventData<'ErasureStarted'>>;
export type CompleteErasureStep = Command<'CompleteErasureStep', EventData<'ErasureStepCompleted'>>;
export type FinishErasure = Command<'FinishErasure', EventData<'ErasureFinished'>>;
export type ErasureCommand = StartErasure | CompleteErasureStep | FinishErasure;

/** One erasure as the log tells it: its plan, the steps done (in order), whether it finished. */
export interface ErasureProcess {
  readonly erasureId: string;
  readonly subject: EventData<'ErasureStarted'>['subject'];
  readonly reason: string;
  readonly forced: boolean;
  readonly steps: readonly string[];
  readonly done: readonly string[];
  readonly finished: boolean;
}

/** Every erasure of the store (the `system-erasures` stream), in the order they started. */
export interface ErasureState {
  readonly processes: ReadonlyMap<string, ErasureProcess>;
}

const initialErasureState = (): ErasureState => ({ processes: new Map() });

function withStep(state: ErasureState, erasureId: string, change: (p: ErasureProcess) => ErasureProcess): ErasureState {
  const found = state.processes.get(erasureId);
  // A SubjectErased of an erasure recorded before erasures had a plan belongs to no process.
  if (!found) return state;
  return { processes: new Map(state.processes).set(erasureId, change(found)) };
}

function evolveErasure(state: ErasureState, event: ErasureEvent): ErasureState {
  switch (event.type) {
    case 'ErasureStarted': {
      const { erasureId, subject, reason, forced, steps } = event.data;
      return { processes: new Map(state.processes).set(erasureId, { erasureId, subject, reason, forced, steps, done: [], finished: false }) };
    }
    case 'SubjectErased':
      return withStep(state, event.data.erasureId, (p) => ({ ...p, done: [...p.done, destroyKeyStep] }));
    case 'ErasureStepCompleted':
      return withStep(state, event.data.erasureId, (p) => ({ ...p, done: [...p.done, event.data.step] }));
    case 'ErasureFinished':
      return withStep(state, event.data.erasureId, (p) => ({ ...p, finished: true }));
    default:
      return assertNever(event);
  }
}

/** The next step of the plan, or null when every step is done. */
export const nextStep = (p: ErasureProcess): string | null => p.steps[p.done.length] ?? null;

/** Erasures that started and did not finish: a process died part-way. */
export const unfinishedErasures = (state: ErasureState): ErasureProcess[] => [...state.processes.values()].filter((p) => !p.finished);

function running(state: ErasureState, erasureId: string): ErasureProcess {
  const found = state.processes.get(erasureId);
  if (!found) throw new DomainError('erasure_not_found', `no erasure ${erasureId} was started`);
  return found;
}

/** Rules of the erasure process: a plan that starts the key's destruction, steps done in plan order, each once. */
function decideErasure(command: ErasureCommand, state: ErasureState): EventBody<ErasureEvent>[] {
  switch (command.type) {
    case 'StartErasure': {
      const { steps, erasureId } = command.data;
      if (state.processes.has(erasureId)) return [];
      if (steps[0] !== destroyKeyStep || new Set(steps).size !== steps.length) {
        throw new DomainError('erasure_plan', `a plan starts with ${destroyKeyStep} and names each step once, got ${steps.join(', ')}`);
      }
      return [{ type: 'ErasureStarted', schemaVersion: 1, data: command.data }];
    }
    case 'CompleteErasureStep': {
      const p = running(state, command.data.erasureId);
      if (p.done.includes(command.data.step)) return [];
      if (command.data.step === destroyKeyStep || nextStep(p) !== command.data.step) {
        throw new DomainError('erasure_step_order', `erasure ${p.erasureId} is at step ${nextStep(p) ?? '(none)'}, not ${command.data.step}`);
      }
      return [{ type: 'ErasureStepCompleted', schemaVersion: 1, data: command.data }];
    }
    case 'FinishErasure': {
      const p = running(state, command.data.erasureId);
      if (p.finished) return [];
      if (nextStep(p) !== null) throw new DomainError('erasure_step_order', `erasure ${p.erasureId} has not done ${nextStep(p)} yet`);
      return [{ type: 'ErasureFinished', schemaVersion: 1, data: command.data }];
    }
    default:
      return assertNever(command);
  }
}

export const erasureDecider: Decider<ErasureCommand, ErasureEvent, ErasureState> = {
  initialState: initialErasureState,
  evolve: evolveErasure,
  decide: decideErasure,
};
