import { handleCommand } from '../../commands/handler.js';
import { erasureDecider, nextStep, type ErasureCommand, type ErasureEvent, type ErasureProcess, type ErasureState } from '../../commands/erasure/decider.js';
import { destroyKeyStep } from '../../commands/erasure/decider.js';
import type { EventData } from '../../events/catalog.js';
import { ConcurrencyError } from '../../events/errors.js';
import type { ExpectedRevision } from '../../events/log/event-log.js';
import { streams } from '../../events/streams.js';
import { commandMetadata } from '../system-events.js';
import { newErasureReport, pausePoint, retiredErasureSteps, type ErasureDeps, type ErasureRun, type ErasureStep } from './steps.js';

/** The erasure stream folded by its decider, with the revision it was read at. */
async function load(deps: ErasureDeps): Promise<{ state: ErasureState; revision: ExpectedRevision }> {
  const recorded = await deps.log.readStream(streams.erasures);
  const state = recorded.reduce((s, e) => erasureDecider.evolve(s, e as unknown as ErasureEvent), erasureDecider.initialState());
  return { state, revision: recorded.at(-1)?.streamRevision ?? 'no_stream' };
}

/**
 * Runs erasures as recorded processes (ADR 19): ErasureStarted names the plan, each step is
 * recorded when done (the key's destruction by SubjectErased), ErasureFinished closes it. A
 * process killed anywhere leaves its plan and the steps done in the log; `resume` runs the rest.
 */
const resumeActor = 'system:erasure';

export function createErasureProcess(deps: ErasureDeps, steps: readonly ErasureStep[]) {
  const byName = new Map([...retiredErasureSteps, ...steps].map((s) => [s.name, s]));
  const handle = (command: Omit<ErasureCommand, 'metadata'>, erasureId: string, actor: string, commandId?: string) =>
    handleCommand(deps.log, erasureDecider, streams.erasures, {
      ...command,
      metadata: { ...commandMetadata(deps.env, actor, { correlationId: erasureId }), ...(commandId ? { commandId } : {}) },
    } as ErasureCommand);

  /** Runs the process's remaining steps in order, each recorded, then finishes it. */
  async function drive(erasureId: string, actor: string, report: ErasureRun['report']): Promise<ErasureProcess> {
    for (;;) {
      const { state, revision } = await load(deps);
      const process = state.processes.get(erasureId);
      if (!process) throw new Error(`erasure ${erasureId} was never started`);
      if (process.finished) return process;
      const name = nextStep(process);
      if (name === null) {
        await handle({ type: 'FinishErasure', data: { erasureId } }, erasureId, actor);
        continue;
      }
      const step = byName.get(name);
      if (!step) throw new Error(`erasure ${erasureId} needs step ${name}, which this build does not know`);
      try {
        await step.run(deps, { process, revision, report, actor });
        if (name !== destroyKeyStep) {
          await pausePoint(`${name}:unmarked`);
          await handle({ type: 'CompleteErasureStep', data: { erasureId, step: name } }, erasureId, actor);
        }
      } catch (error) {
        // Another process recorded a step of this erasure meanwhile: read the log again.
        if (error instanceof ConcurrencyError) continue;
        throw error;
      }
      await pausePoint(name);
    }
  }

  return {
    steps: steps.map((s) => s.name),
    /** Records the start of an erasure with this build's plan (its id is the command's), then runs it to the end. */
    async start(data: Omit<EventData<'ErasureStarted'>, 'steps'>, actor: string, report: ErasureRun['report']): Promise<ErasureProcess> {
      await handle({ type: 'StartErasure', data: { ...data, steps: steps.map((s) => s.name) } }, data.erasureId, actor, data.erasureId);
      await pausePoint('started');
      return drive(data.erasureId, actor, report);
    },
    /** Finishes every erasure a killed process left part-way, oldest first; returns their ids. */
    async resume(): Promise<string[]> {
      const { state } = await load(deps);
      const open = [...state.processes.values()].filter((p) => !p.finished);
      for (const p of open) await drive(p.erasureId, resumeActor, newErasureReport());
      return open.map((p) => p.erasureId);
    },
    load: () => load(deps),
  };
}

export type ErasureProcessRunner = ReturnType<typeof createErasureProcess>;
