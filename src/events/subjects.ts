/*
 * Whose content an event holds. One answer serves the sealing (an event's content is sealed under
 * the key of every subject named here, so erasing any one of them shreds it) and the compliance
 * export (an event is a subject's when it names the subject here), so what an erasure reaches and
 * what an export lists are the same by construction (ADR 19, ADR 20).
 */

export type SubjectKind = 'user' | 'session' | 'persona' | 'memory' | 'stream';

export interface SubjectRef {
  readonly kind: SubjectKind;
  readonly id: string;
}

type Data = Readonly<Record<string, unknown>>;

const idOf = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

function push(out: SubjectRef[], kind: SubjectKind, value: unknown): void {
  const id = idOf(value);
  if (id !== null && !out.some((s) => s.kind === kind && s.id === id)) out.push({ kind, id });
}

/** The session, the sender (as a user) and the host's user on the turn of a message. */
export function messageSubjects(data: Data): SubjectRef[] {
  const out: SubjectRef[] = [];
  push(out, 'session', data['sessionId']);
  push(out, 'user', data['senderId']);
  push(out, 'user', data['userId']);
  return out;
}

/**
 * A memory's own scope (user, session, persona), then every subject of the messages it was derived
 * from (`sources`: a summary's segment, a consolidation's union of its memories' sources): erasing
 * anyone whose words went into a memory shreds the memory. With none of these, the memory itself.
 */
export function memorySubjects(data: Data): SubjectRef[] {
  const out: SubjectRef[] = [];
  push(out, 'user', data['userId']);
  push(out, 'session', data['sessionId']);
  push(out, 'persona', data['personaId']);
  const sources = Array.isArray(data['sources']) ? (data['sources'] as Data[]) : [];
  for (const source of sources) {
    push(out, 'session', source['sessionId']);
    push(out, 'user', source['senderId']);
  }
  const memoryId = idOf(data['memoryId']);
  return out.length > 0 || memoryId === null ? out : [{ kind: 'memory', id: memoryId }];
}

/** The session and persona an atom or graph link names itself (it also takes its memory's keys). */
export function derivedSubjects(data: Data): SubjectRef[] {
  const out: SubjectRef[] = [];
  push(out, 'session', data['sessionId']);
  push(out, 'persona', data['personaId']);
  return out;
}

export const namesSubject = (subjects: readonly SubjectRef[], subject: SubjectRef): boolean =>
  subjects.some((s) => s.kind === subject.kind && s.id === subject.id);
