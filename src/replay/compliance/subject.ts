import { ValidationError } from '../../events/errors.js';
import type { RecordedEvent } from '../../events/log/event-log.js';
import { derivedSubjects, memorySubjects, messageSubjects, namesSubject, type SubjectRef } from '../../events/subjects.js';

/** Whose data an export holds: one user, session or persona, or everything. */
export type ComplianceSubject =
  | { readonly kind: 'user' | 'session' | 'persona'; readonly id: string }
  | { readonly kind: 'all'; readonly id: null };

/** The subject from CLI-like options; exactly one must be given. */
export function parseSubject(options: { user?: string; session?: string; persona?: string; all?: boolean }): ComplianceSubject {
  const given = (['user', 'session', 'persona'] as const).filter((k) => options[k] !== undefined);
  if (given.length + (options.all ? 1 : 0) !== 1) throw new ValidationError('subject', 'give exactly one of --user, --session, --persona or --all');
  const kind = given[0];
  if (!kind) return { kind: 'all', id: null };
  const id = options[kind] ?? '';
  if (id.trim() === '') throw new ValidationError(kind, 'must not be empty');
  return { kind, id };
}

/**
 * Which memories, atoms and messages belong to the subject, decided as the log is read in order,
 * by the subjects the sealing keys each event under (`src/events/subjects.ts`): a memory at its
 * MemoryWritten (its scope, or a session or sender of a source message), an atom or graph entry by
 * its memory (or its own scope), a message at its MessageRecorded (session, sender, or the turn's
 * user). Only ids are kept.
 */
export function createSubjectFilter(subject: ComplianceSubject) {
  const memories = new Set<string>();
  const atoms = new Set<string>();
  const messages = new Set<string>();
  /** The subject's messages not rolled back yet, per session: a reset forgets these. */
  const live = new Map<string, Set<string>>();
  const all = subject.kind === 'all';
  const is = (kind: ComplianceSubject['kind'], id: string | null | undefined): boolean => subject.kind === kind && id === subject.id;
  // The same subjects the sealing keys an event under: an export lists what an erasure of the subject shreds.
  const one = subject.kind === 'all' ? null : subject;
  const names = (subjects: readonly SubjectRef[]): boolean => one === null || namesSubject(subjects, one);

  /** Takes the event's new members in; true when the event concerns the subject. */
  function admit(e: RecordedEvent): boolean {
    switch (e.type) {
      case 'MemoryWritten':
        if (names(memorySubjects(e.data))) memories.add(e.data.memoryId);
        return memories.has(e.data.memoryId);
      case 'AtomExtracted':
        if (names(derivedSubjects(e.data)) || memories.has(e.data.memoryId)) atoms.add(e.data.atomId);
        return atoms.has(e.data.atomId);
      case 'AtomReinforced':
      case 'AtomStateChanged':
        return atoms.has(e.data.atomId);
      case 'GraphEntriesLinked':
        return names(derivedSubjects(e.data)) || memories.has(e.data.memoryId);
      case 'MessageRecorded':
        if (names(messageSubjects(e.data))) {
          messages.add(e.data.messageId);
          live.set(e.data.sessionId, (live.get(e.data.sessionId) ?? new Set()).add(e.data.messageId));
        }
        return messages.has(e.data.messageId);
      case 'MessageCleaned':
      case 'MemoriesRecalled':
        return all || is('session', e.data.sessionId) || messages.has(e.data.messageId);
      case 'MessagesRolledBack':
      case 'SessionReset':
        return all || is('session', e.data.sessionId) || (live.get(e.data.sessionId)?.size ?? 0) > 0;
      case 'MemoriesConsolidated':
        return [e.data.memoryId, ...e.data.mergedMemoryIds].some((id) => memories.has(id));
      case 'MemoryUpdated':
      case 'MemoryArchived':
      case 'MemoryRestored':
      case 'MemoryForgotten':
        return memories.has(e.data.memoryId);
      case 'MemoryImportanceDecayed':
        return e.data.decays.some((d) => memories.has(d.memoryId));
      default:
        return false;
    }
  }
  /** The subject's messages a rollback (ids given) or a reset (every live one) takes away. */
  function dropMessages(sessionId: string, ids?: readonly string[]): string[] {
    const alive = live.get(sessionId) ?? new Set<string>();
    const dropped = (ids ?? [...alive]).filter((id) => alive.has(id));
    dropped.forEach((id) => alive.delete(id));
    return dropped;
  }
  return { admit, dropMessages, hasMemory: (id: string) => memories.has(id) };
}

export type SubjectFilter = ReturnType<typeof createSubjectFilter>;
