import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ValidationError } from '../../events/errors.js';
import type { EventLog } from '../../events/log/event-log.js';
import type { ChainReport } from '../../events/log/verify-chain.js';
import { csvRow } from '../transfer/csv.js';
import { openHashedFile, type ExportFile, type HashedFile } from './files.js';
import { csvColumns, csvRowOf, recordsOf, recordTypes, type ComplianceRecord, type RecordType } from './records.js';
import { createSubjectFilter, type ComplianceSubject } from './subject.js';

export type ExportFormat = 'jsonl' | 'csv' | 'both';

/** `manifest.json`: what the export holds and how to check it was not changed since. */
export interface ComplianceManifest {
  readonly format: 'livingmemory-compliance-export';
  readonly version: 1;
  readonly subject: ComplianceSubject;
  readonly exportedAt: string;
  /** The log as read: up to `position`; the hash chain's head link when the export was made (ADR 16). */
  readonly log: { readonly position: string; readonly chainOk: boolean; readonly chainHeadPosition: string; readonly chainHeadHash: string };
  readonly counts: Readonly<Record<RecordType, number>>;
  readonly files: readonly ExportFile[];
}

export interface ComplianceExportDeps {
  readonly log: EventLog & { verifyChain(): Promise<ChainReport> };
  readonly now: () => Date;
  readonly pageSize?: number;
}

export const manifestName = 'manifest.json';
export const fileNames = { jsonl: 'records.jsonl', csv: 'records.csv' } as const;

/**
 * Writes every record of the subject, read from the log in pages (forgotten and rolled-back items
 * included, as the log has them), as JSONL and/or CSV, then the manifest with counts and digests.
 * The directory is created; existing export files are never overwritten.
 */
export async function exportSubject(deps: ComplianceExportDeps, subject: ComplianceSubject, out: { dir: string; format?: ExportFormat }): Promise<ComplianceManifest> {
  const format = out.format ?? 'both';
  mkdirSync(out.dir, { recursive: true });
  if (existsSync(join(out.dir, manifestName))) throw new ValidationError('out', `${out.dir} already holds an export`);
  const chain = await deps.log.verifyChain();
  const to = chain.ok ? chain.headPosition : await deps.log.headPosition();
  const jsonl = format === 'csv' ? null : await openHashedFile(out.dir, fileNames.jsonl);
  const csv = format === 'jsonl' ? null : await openHashedFile(out.dir, fileNames.csv);
  const open = [jsonl, csv].filter((f): f is HashedFile => f !== null);
  const counts = Object.fromEntries(recordTypes.map((t) => [t, 0])) as Record<RecordType, number>;
  try {
    await csv?.write(csvRow(csvColumns), 0);
    const filter = createSubjectFilter(subject);
    const limit = deps.pageSize ?? 1000;
    for (let from = 1n; from <= to; ) {
      const page = await deps.log.readAll({ from, to, limit });
      if (page.length === 0) break;
      const records: ComplianceRecord[] = page.flatMap((e) => (filter.admit(e) ? recordsOf(e, filter) : []));
      records.forEach((r) => (counts[r.record] += 1));
      await jsonl?.write(records.map((r) => `${JSON.stringify(r)}\n`).join(''), records.length);
      await csv?.write(records.map((r) => csvRow(csvRowOf(r))).join(''), records.length);
      from = (page.at(-1)?.globalPosition ?? to) + 1n;
    }
  } catch (error) {
    await Promise.all(open.map((f) => f.abort()));
    throw error;
  }
  const files = await Promise.all(open.map((f) => f.close()));
  const manifest: ComplianceManifest = {
    format: 'livingmemory-compliance-export',
    version: 1,
    subject,
    exportedAt: deps.now().toISOString(),
    log: { position: to.toString(), chainOk: chain.ok, chainHeadPosition: chain.headPosition.toString(), chainHeadHash: chain.headHash },
    counts,
    files,
  };
  writeFileSync(join(out.dir, manifestName), `${JSON.stringify(manifest, null, 2)}\n`, { flag: 'wx' });
  return manifest;
}
