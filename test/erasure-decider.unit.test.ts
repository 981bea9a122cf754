import { describe, expect, it } from 'vitest';
import type { EventBody } from '../src/commands/decider.js';
import {
  erasureDecider, nextStep, unfinishedErasures, type ErasureCommand, type ErasureEvent,
} from '../src/commands/erasure/decider.js';
import { stampEvents } from '../src/commands/decider.js';
import { DomainError } from '../src/commands/errors.js';
import { deciderSpec, testMetadata } from './support/decider-spec.js';

const spec = deciderSpec(erasureDecider);
const cmd = (c: Omit<ErasureCommand, 'metadata'>): ErasureCommand => ({ ...c, metadata: testMetadata(1) }) as ErasureCommand;
const erasureId = 'e1';
const subject = { kind: 'user' as const, id: 'ann' };
const plan = ['destroy-key', 'rebuild-read-models', 'scrub-store-file'];
const started: EventBody<ErasureEvent> = { type: 'ErasureStarted', schemaVersion: 1, data: { erasureId, subject, reason: 'asked', steps: plan, forced: false } };
const keyDestroyed: EventBody<ErasureEvent> = {
  type: 'SubjectErased', schemaVersion: 1,
  data: { erasureId, subject, reason: 'asked', keyIds: [3], counts: { memories: 1, memoryUpdates: 0, atoms: 0, graphLinks: 0, messages: 0, events: 1 } },
};
const stepDone = (step: string): EventBody<ErasureEvent> => ({ type: 'ErasureStepCompleted', schemaVersion: 1, data: { erasureId, step } });

describe('erasure process decider', () => {
  it('starts a plan once; a plan must begin with the key and name each step once', () => {
    spec.given([]).when(cmd({ type: 'StartErasure', data: started.data as never })).then([started]);
    spec.given([started]).when(cmd({ type: 'StartErasure', data: started.data as never })).then([]);
    const bad = { ...started.data, steps: ['rebuild-read-models', 'destroy-key'] };
    spec.given([]).when(cmd({ type: 'StartErasure', data: bad as never })).thenThrows(DomainError, /starts with destroy-key/);
    spec.given([]).when(cmd({ type: 'StartErasure', data: { ...started.data, steps: ['destroy-key', 'destroy-key'] } as never })).thenThrows(DomainError);
  });

  it('completes steps in plan order, each once; the key step is recorded only by SubjectErased', () => {
    const complete = (step: string) => cmd({ type: 'CompleteErasureStep', data: { erasureId, step } });
    spec.given([started]).when(complete('rebuild-read-models')).thenThrows(DomainError, /at step destroy-key/);
    spec.given([started]).when(complete('destroy-key')).thenThrows(DomainError, /at step destroy-key/);
    spec.given([started, keyDestroyed]).when(complete('scrub-store-file')).thenThrows(DomainError, /at step rebuild-read-models/);
    spec.given([started, keyDestroyed]).when(complete('rebuild-read-models')).then([stepDone('rebuild-read-models')]);
    spec.given([started, keyDestroyed, stepDone('rebuild-read-models')]).when(complete('rebuild-read-models')).then([]);
    spec.given([]).when(complete('rebuild-read-models')).thenThrows(DomainError, /no erasure e1/);
  });

  it('finishes only when every step is done, once', () => {
    const finish = cmd({ type: 'FinishErasure', data: { erasureId } });
    spec.given([started, keyDestroyed, stepDone('rebuild-read-models')]).when(finish).thenThrows(DomainError, /not done scrub-store-file/);
    const all = [started, keyDestroyed, stepDone('rebuild-read-models'), stepDone('scrub-store-file')];
    spec.given(all).when(finish).then([{ type: 'ErasureFinished', schemaVersion: 1, data: { erasureId } }]);
    spec.given([...all, { type: 'ErasureFinished', schemaVersion: 1, data: { erasureId } }]).when(finish).then([]);
  });

  it('tells which erasures a killed process left, and their next step; an erasure from before plans belongs to none', () => {
    const fold = (events: EventBody<ErasureEvent>[]) =>
      stampEvents<ErasureEvent>(events, testMetadata()).reduce(erasureDecider.evolve, erasureDecider.initialState());
    const legacy = { ...keyDestroyed, data: { ...keyDestroyed.data, erasureId: 'old' } } as EventBody<ErasureEvent>;
    const state = fold([legacy, started, keyDestroyed]);
    expect(unfinishedErasures(state).map((p) => [p.erasureId, nextStep(p)])).toEqual([['e1', 'rebuild-read-models']]);
  });
});
