import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { ValidationError } from '../../events/errors.js';
import { checkImportSize } from '../../replay/transfer/parse.js';
import { required, str, type Command, type Handler } from './args.js';

const formatFlag = (value: string | undefined): 'json' | 'csv' | undefined => {
  if (value === undefined || value === 'json' || value === 'csv') return value;
  throw new ValidationError('format', `must be json or csv, got "${value}"`);
};

const importFile: Handler = async (engine, inv, out) => {
  const rollback = str(inv, 'rollback');
  if (rollback !== undefined) {
    const undone = await engine.rollbackImport(rollback);
    out.print(undone, () => `import ${undone.importId} rolled back: ${undone.forgotten.length} memories forgotten`);
    return;
  }
  const file = required(inv, 0, 'file');
  if (!existsSync(file)) throw new ValidationError('file', `${file} does not exist`);
  // The size limit is checked on the file itself, before a byte of it is read.
  checkImportSize(statSync(file).size);
  const format = formatFlag(str(inv, 'format'));
  const input = { content: readFileSync(file), source: basename(file), ...(format ? { format } : {}) };
  if (inv.flags.preview === true) {
    const preview = engine.previewImport(input);
    out.print(preview, () =>
      [
        `${preview.format}: ${preview.new} new, ${preview.duplicate} duplicate, ${preview.invalid} invalid (nothing written)`,
        ...preview.invalidRows.map((r) => `  row ${r.row}, ${r.field}: ${r.message}`),
        ...preview.duplicates.map((d) => `  row ${d.row} duplicates ${d.of === 'store' ? 'a stored memory' : `row ${d.of}`}`),
      ].join('\n'),
    );
    return;
  }
  const receipt = await engine.importMemories(input);
  out.print(receipt, () => `import ${receipt.importId}: ${receipt.memoryIds.length} memories written, ${receipt.duplicates} duplicates skipped`);
};

const exportFile: Handler = async (engine, inv, out) => {
  const format = formatFlag(str(inv, 'format')) ?? 'json';
  const session = str(inv, 'session');
  const user = str(inv, 'user');
  const options = { format, ...(session ? { sessionId: session } : {}), ...(user ? { userId: user } : {}) };
  const target = str(inv, 'out');
  if (target === undefined) {
    process.stdout.write(engine.exportMemories(options));
    return;
  }
  const written = await engine.exportMemoriesToFile(target, { ...options, force: inv.flags.force === true });
  out.print({ file: written.path, format, bytes: written.bytes }, () => `exported to ${written.path} (${format}, ${written.bytes} bytes)`);
};

/** Import and export of memories: registered beside the other commands. */
export const transferCommands: Readonly<Record<string, Command>> = {
  import: { run: importFile, usage: 'import <file> [--preview] [--format json|csv] | import --rollback <import-id>  import memories, all or nothing' },
  export: { run: exportFile, usage: 'export [--format json|csv] [--out FILE [--force]] [--session S] [--user U]  export live memories' },
};
