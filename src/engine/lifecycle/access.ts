import { accessReinforcement, cooledBy } from '../../commands/lifecycle/atoms.js';
import type { AtomLifecycleSettings } from '../../commands/lifecycle/settings.js';
import type { EventBody } from '../../commands/decider.js';
import type { EventLog } from '../../events/log/event-log.js';
import { reinforcementTtl } from '../../extraction/atoms.js';
import type { ProjectionRunner } from '../../projections/runner.js';
import type { AtomQueries } from '../../queries/atoms.js';

/**
 * Catches the atoms read model up to the log's head; false when it cannot get there (a generation
 * stopped at an event, a head locked below): a decision on it would start from a state the log has left.
 */
export function atomsAtHead(log: Pick<EventLog, 'headPosition'>, runner: Pick<ProjectionRunner, 'catchUp' | 'checkpoint'>) {
  return async (): Promise<boolean> => {
    const head = await log.headPosition();
    await runner.catchUp(['atoms']);
    return runner.checkpoint('atoms') >= head;
  };
}

/**
 * The atom events an access batch causes (ADR 29): the live atoms of each accessed memory are
 * reinforced (their TTL grows by the extraction's rule) and dormant ones wake. Appended in the
 * same append as the MemoriesAccessed that caused them, decided on the atoms as the log has them
 * then: on a read model that had not seen the last batch, a second recall woke an atom again.
 */
export function accessAtomEvents(atoms: AtomQueries, settings: AtomLifecycleSettings, fresh: () => Promise<boolean>) {
  return async (accesses: readonly { readonly memoryId: string; readonly lastAccessedAt: string }[]): Promise<EventBody[]> => {
    if (!settings.reinforceOnAccess || accesses.length === 0 || !(await fresh())) return [];
    // An access wakes a dormant atom or reinforces one past its cooldown, and changes no other: most
    // atoms of recalled memories were touched within it, and reading them was most of a batch's cost.
    const latest = Math.max(...accesses.map((a) => Date.parse(a.lastAccessedAt)));
    const dormantOrTouchedBy = new Date(cooledBy(settings, latest)).toISOString();
    const live = atoms.ofMemories(accesses.map((a) => a.memoryId), { statuses: ['active', 'dormant'], dormantOrTouchedBy });
    return accesses.flatMap(({ memoryId, lastAccessedAt }) =>
      (live.get(memoryId) ?? []).flatMap((atom) => {
        // Worked out only for an atom the access changes: most are within their cooldown (a third of a flush's CPU).
        const accessed = {
          ...atom,
          get next() {
            const { reinforcementCount, expiresAt } = reinforcementTtl(atom, lastAccessedAt);
            return { reinforcementCount, expiresAt };
          },
        };
        return accessReinforcement(accessed, settings, Date.parse(lastAccessedAt));
      }),
    );
  };
}
