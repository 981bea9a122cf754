import { ValidationError } from '../../events/errors.js';
import type { MemoryEngine } from '../../engine/engine.js';
import type { Invocation } from './args.js';
import type { Output } from './output.js';
import { rebuildProgress, withProgress } from './progress.js';

const kinds = ['user', 'session', 'persona'] as const;

function subjectOf(inv: Invocation): { kind: (typeof kinds)[number]; id: string } {
  const given = kinds.filter((kind) => typeof inv.flags[kind] === 'string');
  if (given.length !== 1) throw new ValidationError('subject', 'give exactly one of --user, --session or --persona');
  const kind = given[0] as (typeof kinds)[number];
  const id = inv.flags[kind] as string;
  if (id.trim() === '') throw new ValidationError(kind, 'must not be empty');
  return { kind, id };
}

/**
 * `lmem erase --user U|--session S|--persona P --reason R [--force]`: crypto-shreds one subject
 * (ADR 19); a subject with no data exits 2 unless --force. `--preview` counts what it would shred
 * and writes nothing.
 */
export async function erase(engine: MemoryEngine, inv: Invocation, out: Output): Promise<void> {
  const { kind, id } = subjectOf(inv);
  if (inv.flags['preview'] === true) {
    const reach = await engine.previewErasure({ kind, id });
    out.print({ subject: { kind, id }, ...reach }, () =>
      [
        `erasing ${kind} ${id} would shred: ${reach.events} events`,
        `  ${reach.messages} messages, ${reach.memories} memories (${reach.derivedMemories} derived from its messages), ${reach.memoryUpdates} updates`,
        `  ${reach.atoms} atoms, ${reach.graphEntries} graph entries, ${reach.embeddings} cached embeddings`,
      ].join('\n'),
    );
    return;
  }
  const reason = inv.flags['reason'];
  if (typeof reason !== 'string') throw new ValidationError('reason', 'is required');
  const progress = rebuildProgress(engine, await engine.log.headPosition());
  const receipt = await withProgress(out, `erasing ${kind} ${id}`, progress, () => engine.eraseSubject({ kind, id, reason, force: inv.flags['force'] === true }));
  const c = receipt.counts;
  out.print(receipt, () =>
    [
      `erased ${kind} ${receipt.subject.id} at position ${receipt.position} (erasure ${receipt.erasureId}${receipt.forced ? ', forced: no data' : ''})`,
      `sealed content destroyed: ${c.memories} memories, ${c.memoryUpdates} updates, ${c.atoms} atoms, ${c.graphLinks} graph links, ${c.messages} messages`,
      `steps done: ${receipt.steps.join(', ')}; ${receipt.embeddingsForgotten} cached embeddings dropped` +
        (receipt.walTruncated ? ', WAL emptied' : '; another connection kept the WAL: old pages leave at its next checkpoint') +
        (receipt.vacuumed ? ', file rewritten (VACUUM: not known to keep no old bytes in its pages)' : ''),
    ].join('\n'),
  );
}

/** `lmem backup <path> [--force]`: an online copy of the store file, recorded as BackupTaken. */
export async function backup(engine: MemoryEngine, inv: Invocation, out: Output): Promise<void> {
  const path = inv.positionals[0];
  if (path === undefined || path.length === 0) throw new ValidationError('path', 'is required');
  const receipt = await engine.backup(path, { force: inv.flags.force === true });
  out.print(receipt, () => `backup ${receipt.backupId}: ${receipt.bytes} bytes to ${receipt.path} at position ${receipt.position}, sha256 ${receipt.sha256}`);
}
