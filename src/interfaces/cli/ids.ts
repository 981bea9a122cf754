import { ValidationError } from '../../events/errors.js';
import type { MemoryEngine } from '../../engine/engine.js';

type Kind = 'memory' | 'atom';

// Enough to name a few candidates in the error without listing a whole store.
const shown = 5;

/**
 * An id as typed: a whole id, or a unique prefix of one (ADR 26). An unknown id is passed on
 * unchanged, so the engine's own error ("does not exist") answers it; an ambiguous prefix is bad
 * input that lists its candidates.
 */
export function resolveId(engine: MemoryEngine, typed: string, field: string, kinds: readonly Kind[] = ['memory']): string {
  const history = engine.indexes.history;
  if (kinds.some((kind) => history.positionsOf(typed, kind))) return typed;
  const found = kinds.flatMap((kind) => history.idsWithPrefix(typed, kind, shown + 1));
  if (found.length === 1) return found[0] as string;
  if (found.length > 1) {
    const more = found.length > shown ? ', …' : '';
    throw new ValidationError(field, `"${typed}" is ambiguous: it starts ${found.slice(0, shown).join(', ')}${more}`);
  }
  return typed;
}
