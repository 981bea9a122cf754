import { destroyKeyStep } from '../commands/erasure/decider.js';
import type { EventOf } from '../events/catalog.js';
import type { RecordedEvent } from '../events/log/event-log.js';
import { streams } from '../events/streams.js';
import { truncateForEmbedding } from '../providers/embeddings/index.js';
import { defaultErasureSteps, newErasureReport, type ErasureDeps } from './erase/index.js';

type Erased = RecordedEvent & EventOf<'SubjectErased'>;
const isErasure = (event: RecordedEvent): event is Erased => event.type === 'SubjectErased';

/**
 * How an erasure recorded by one node reaches the read models of every other (ADR 27): the keys
 * are already gone from the shared log, but a node's own file still holds what it applied before,
 * so it runs the erasure's local steps (every read model replayed, the file scrubbed) and drops the
 * cached embeddings of the subject's texts that no live memory still has. Which erasures a node has
 * done is its own bookkeeping, beside its read models (like its secrets: never derived from events,
 * never replayed).
 */
export function createRemoteErasures(deps: ErasureDeps) {
  const { db } = deps;
  db.exec(`CREATE TABLE IF NOT EXISTS erasures_applied (erasure_id TEXT PRIMARY KEY, position TEXT NOT NULL)`);
  const isApplied = db.prepare<[string], { found: number }>('SELECT 1 AS found FROM erasures_applied WHERE erasure_id = ?');
  const insert = db.prepare<[string, string]>('INSERT OR IGNORE INTO erasures_applied (erasure_id, position) VALUES (?, ?)');
  const applied = (e: Erased): boolean => isApplied.get(e.data.erasureId) !== undefined;
  const mark = (erasureId: string, position: bigint): void => void insert.run(erasureId, position.toString());
  const localSteps = defaultErasureSteps.filter((s) => s.name !== destroyKeyStep);
  const keyOf = (text: string): string => deps.cache.keyOf(truncateForEmbedding(text, deps.provider.maxInputChars));

  const apply = async (events: readonly RecordedEvent[]): Promise<number> => {
    const todo = events.filter(isErasure).filter((e) => !applied(e));
    if (todo.length === 0) return 0;
    // What this node holds of the subjects before the replay: the texts whose cached vectors go.
    const texts = todo.flatMap(({ data: { subject } }) =>
      deps.indexes.documents.list({ [`${subject.kind}Id`]: subject.id, limit: null }).map((d) => d.text),
    );
    const report = newErasureReport();
    // The local steps replay every read model and scrub the whole file, whoever the subject: once
    // for the batch reaches every erasure in it (the last one names the run).
    const { erasureId, subject, reason } = (todo[todo.length - 1] as Erased).data;
    const process = { erasureId, subject, reason, forced: false, steps: [], done: [], finished: false };
    for (const step of localSteps) await step.run(deps, { process, revision: 'any', actor: 'system:erasure', report });
    const kept = new Set(deps.indexes.documents.list({ limit: null }).filter((d) => d.status !== 'erased' && d.status !== 'forgotten').map((d) => keyOf(d.text)));
    deps.cache.forget([...new Set(texts.map(keyOf))].filter((key) => !kept.has(key)));
    for (const e of todo) mark(e.data.erasureId, e.globalPosition);
    return todo.length;
  };

  return {
    mark,
    apply,
    /**
     * At open: a node whose read models were empty built them after the erasures (their content read
     * as erased already), so it only notes them; any other catches up on those it missed.
     */
    async reconcile(startedEmpty: boolean): Promise<number> {
      const erasures = (await deps.log.readStream(streams.erasures)).filter(isErasure);
      if (startedEmpty) {
        for (const e of erasures) mark(e.data.erasureId, e.globalPosition);
        return 0;
      }
      return apply(erasures);
    },
  };
}
