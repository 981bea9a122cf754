import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { ValidationError } from '../../events/errors.js';
import { oneOf, required, str, type Command, type Handler } from './args.js';
import { opt } from './options.js';
import { importProgress, withProgress } from './progress.js';

const formatFlag = (value: string | undefined): 'json' | 'csv' | undefined => {
  if (value === undefined || value === 'json' || value === 'csv') return value;
  throw new ValidationError('format', `must be json or csv, got "${value}"`);
};

const importFile: Handler = async (engine, inv, out) => {
  const rollback = str(inv, 'rollback');
  if (rollback !== undefined && inv.positionals.length > 0) throw new ValidationError('rollback', 'give a file to import or --rollback, not both');
  if (rollback !== undefined) {
    const undone = await engine.rollbackImport(rollback);
    out.print(undone, () => `import ${undone.importId} rolled back: ${undone.forgotten.length} memories forgotten`);
    return;
  }
  const file = required(inv, 0, 'file');
  if (!existsSync(file)) throw new ValidationError('file', `${file} does not exist`);
  if (!statSync(file).isFile()) throw new ValidationError('file', `${file} is not a file`);
  // The size limit is checked on the file itself, before a byte of it is read.
  const { checkImportSize } = await import('../../replay/transfer/parse.js');
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
  const progress = importProgress(engine, engine.previewImport(input).new);
  const receipt = await withProgress(out, `importing ${basename(file)}`, progress, () => engine.importMemories(input));
  out.print(receipt, () => `import ${receipt.importId}: ${receipt.memoryIds.length} memories written, ${receipt.duplicates} duplicates skipped`);
};

const exportFile: Handler = async (engine, inv, out) => {
  const format = formatFlag(str(inv, 'format')) ?? 'json';
  const session = str(inv, 'session');
  const user = str(inv, 'user');
  const options = { format, ...(session ? { sessionId: session } : {}), ...(user ? { userId: user } : {}) };
  const target = str(inv, 'out');
  if (target === undefined) {
    const content = engine.exportMemories(options);
    // --json keeps its promise of one object; otherwise the export itself is the output.
    if (out.json) out.print({ format, bytes: Buffer.byteLength(content), content }, () => content);
    else process.stdout.write(content);
    return;
  }
  const written = await engine.exportMemoriesToFile(target, { ...options, force: inv.flags.force === true });
  out.print({ file: written.path, format, bytes: written.bytes }, () => `exported to ${written.path} (${format}, ${written.bytes} bytes)`);
};

const format = { flags: '--format <format>', description: 'json or csv', value: oneOf('json', 'csv') };

/** Import and export of memories: registered beside the other commands. */
export const transferCommands: Readonly<Record<string, Command>> = {
  import: {
    run: importFile,
    summary: 'import memories from a JSON or CSV file, all or nothing; or take an import back with --rollback',
    args: ['[file]'],
    options: [opt.preview, format, { flags: '--rollback <import-id>', description: 'forget what an import wrote' }],
    creates: true,
  },
  export: { run: exportFile, summary: 'export live memories', options: [format, opt.out, opt.force, opt.session, opt.user] },
};
