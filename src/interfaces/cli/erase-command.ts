import { ValidationError } from '../../events/errors.js';
import type { MemoryEngine } from '../../engine/engine.js';
import type { Invocation } from './args.js';
import type { Output } from './output.js';
import { rebuildProgress, withProgress } from './progress.js';

const kinds = ['user', 'session', 'persona'] as const;

/** `lmem erase --user U|--session S|--persona P --reason R`: crypto-shreds one subject (ADR 19). */
export async function erase(engine: MemoryEngine, inv: Invocation, out: Output): Promise<void> {
  const given = kinds.filter((kind) => typeof inv.flags[kind] === 'string');
  if (given.length !== 1) throw new ValidationError('subject', 'give exactly one of --user, --session or --persona');
  const kind = given[0] as (typeof kinds)[number];
  const reason = inv.flags['reason'];
  if (typeof reason !== 'string') throw new ValidationError('reason', 'is required');
  const progress = rebuildProgress(engine, await engine.log.headPosition());
  const receipt = await withProgress(out, `erasing ${kind} ${String(inv.flags[kind])}`, progress, () => engine.eraseSubject({ kind, id: inv.flags[kind], reason }));
  const c = receipt.counts;
  out.print(receipt, () =>
    [
      `erased ${kind} ${receipt.subject.id} at position ${receipt.position} (erasure ${receipt.erasureId})`,
      `sealed content destroyed: ${c.memories} memories, ${c.memoryUpdates} updates, ${c.atoms} atoms, ${c.graphLinks} graph links, ${c.messages} messages`,
      `read models rebuilt, ${receipt.embeddingsForgotten} cached embeddings dropped` +
        (receipt.walTruncated ? ', WAL emptied and file vacuumed' : '; another connection kept the WAL: old pages leave at its next checkpoint'),
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
