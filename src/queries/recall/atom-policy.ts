import { toEpochMs, type Instant } from './time.js';
import type { RecalledMemory } from './types.js';

/** What the policy needs of an atom (a `MemoryAtom` from `src/queries/atoms.ts` fits). */
export interface AtomView {
  readonly content: string;
  readonly status: string;
  readonly expiresAt: string | null;
}

/**
 * Live at `nowMs`: status 'active' and no expiry or an expiry strictly after now (an expiry
 * exactly at now has expired; an unparseable one counts as expired).
 */
export function isLiveAtom(atom: AtomView, nowMs: number): boolean {
  if (atom.status !== 'active') return false;
  if (atom.expiresAt === null) return true;
  const expires = toEpochMs(atom.expiresAt);
  return !Number.isNaN(expires) && expires > nowMs;
}

/**
 * Atom policy over recall results, order kept. An atom's expiry says how long a statement stays
 * current, not whether it was said; whether a memory can be recalled at all is its own lifecycle's
 * call (active, archived, forgotten: decay and forgetting), not its atoms'. So:
 * - a record (`isRecord`: the memory names the messages it came from, e.g. a chat turn or a
 *   summary of a conversation) is kept unchanged, with its own text, whatever its atoms' state:
 *   its header carries its date, and recency weighting already ranks old records down;
 * - an atom-backed memory (no sources, e.g. an `lmem add` note) with live atoms shows only those
 *   facts (their contents, first occurrence of each, in `facts`);
 * - one whose atoms merely aged out (expired, dormant, forgotten) is kept with its own text, dated
 *   by its header, like a record: dropping it hid an active note from every question a month after
 *   it was written (issue 16, zh-life: recall@5 0.867 -> 0.692), while the note itself was live;
 * - one with no live atom and a superseded one is dropped: a newer statement replaced what its
 *   text says, and showing the text would bring the replaced statement back;
 * - a memory without atoms is kept unchanged, with its text.
 * `now` is a parameter.
 */
export function applyAtomPolicy<T extends RecalledMemory>(
  results: readonly T[],
  atomsOf: (memoryId: string) => readonly AtomView[],
  now: Instant,
  isRecord: (memoryId: string) => boolean = () => false,
): T[] {
  const nowMs = toEpochMs(now);
  const kept: T[] = [];
  for (const result of results) {
    const atoms = atomsOf(result.memoryId);
    if (atoms.length === 0 || isRecord(result.memoryId)) {
      kept.push(result);
      continue;
    }
    const facts = [...new Set(atoms.filter((atom) => isLiveAtom(atom, nowMs)).map((atom) => atom.content))];
    if (facts.length > 0) kept.push({ ...result, facts });
    else if (!atoms.some((atom) => atom.status === 'superseded')) kept.push(result);
  }
  return kept;
}
