import { accessReinforcement } from '../../commands/lifecycle/atoms.js';
import type { AtomLifecycleSettings } from '../../commands/lifecycle/settings.js';
import type { EventBody } from '../../commands/decider.js';
import { reinforcementTtl } from '../../extraction/atoms.js';
import type { AtomQueries } from '../../queries/atoms.js';

/**
 * The atom events an access batch causes (ADR 29): the live atoms of each accessed memory are
 * reinforced (their TTL grows by the extraction's rule) and dormant ones wake. Appended in the
 * same append as the MemoriesAccessed that caused them.
 */
export function accessAtomEvents(atoms: AtomQueries, settings: AtomLifecycleSettings, catchUp: () => Promise<void>) {
  return async (accesses: readonly { readonly memoryId: string; readonly lastAccessedAt: string }[]): Promise<EventBody[]> => {
    if (!settings.reinforceOnAccess) return [];
    // The atoms read model lags the log: a batch decided on it could wake an atom the batch before already woke.
    await catchUp();
    return accesses.flatMap(({ memoryId, lastAccessedAt }) =>
      atoms.ofMemory(memoryId, { statuses: ['active', 'dormant'] }).flatMap((atom) => {
        const { reinforcementCount, expiresAt } = reinforcementTtl(atom, lastAccessedAt);
        return accessReinforcement({ ...atom, next: { reinforcementCount, expiresAt } }, settings, Date.parse(lastAccessedAt));
      }),
    );
  };
}
