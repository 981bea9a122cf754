import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KeyObject } from 'node:crypto';
import type { EventLog } from '../../events/log/event-log.js';
import type { ChainReport } from '../../events/log/verify-chain.js';
import { csvRow } from '../transfer/csv.js';
import { writeThrough } from '../output/atomic.js';
import { openHashedFile, type ExportFile, type HashedFile } from './files.js';
import { csvColumns, csvRowOf, recordsOf, recordTypes, type ComplianceRecord, type RecordType } from './records.js';
import { signatureName, signatureText, signingOf, type ManifestSigning } from './signature.js';
import { createSubjectFilter, type ComplianceSubject } from './subject.js';

export type ExportFormat = 'jsonl' | 'csv' | 'both';

/** `manifest.json`: what the export holds and how to check it was not changed since. */
export interface ComplianceManifest {
  readonly format: 'livingmemory-compliance-export';
  /** 2: signed (ADR 24); version 1 manifests had no signature. */
  readonly version: 2;
  readonly subject: ComplianceSubject;
  readonly exportedAt: string;
  /** The log as read: up to `position`; the hash chain's head link when the export was made (ADR 16). */
  readonly log: { readonly position: string; readonly chainOk: boolean; readonly chainHeadPosition: string; readonly chainHeadHash: string };
  readonly counts: Readonly<Record<RecordType, number>>;
  readonly files: readonly ExportFile[];
  /** The key whose signature of this file's exact bytes is in `manifest.sig`. */
  readonly signing: ManifestSigning;
}

/** Signs the manifest's bytes with the store's key. */
export interface ManifestSigner {
  readonly publicKey: KeyObject;
  sign(bytes: Buffer): Buffer;
}

export interface ComplianceExportDeps {
  readonly log: EventLog & { verifyChain(): Promise<ChainReport> };
  readonly now: () => Date;
  readonly signer: ManifestSigner;
  readonly pageSize?: number;
}

export const manifestName = 'manifest.json';
export const fileNames = { jsonl: 'records.jsonl', csv: 'records.csv' } as const;
/** Every file an export may hold: what a target directory is checked for before writing. */
export const exportFileNames: readonly string[] = [manifestName, signatureName, fileNames.jsonl, fileNames.csv];

/**
 * Writes every record of the subject, read from the log in pages (forgotten and rolled-back items
 * included, as the log has them), as JSONL and/or CSV, then the manifest with counts and digests,
 * signed. Every file goes through a temporary name and a rename; `out.dir` is already checked
 * (`checkOutputDir`) and is created here. With `force`, files of an earlier export are replaced,
 * and those this one does not write are removed.
 */
export async function exportSubject(
  deps: ComplianceExportDeps,
  subject: ComplianceSubject,
  out: { dir: string; format?: ExportFormat; force?: boolean },
): Promise<ComplianceManifest> {
  const format = out.format ?? 'both';
  const force = out.force === true;
  mkdirSync(out.dir, { recursive: true });
  const chain = await deps.log.verifyChain();
  const to = chain.ok ? chain.headPosition : await deps.log.headPosition();
  const jsonl = format === 'csv' ? null : await openHashedFile(out.dir, fileNames.jsonl, force);
  const csv = format === 'jsonl' ? null : await openHashedFile(out.dir, fileNames.csv, force);
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
    version: 2,
    subject,
    exportedAt: deps.now().toISOString(),
    log: { position: to.toString(), chainOk: chain.ok, chainHeadPosition: chain.headPosition.toString(), chainHeadHash: chain.headHash },
    counts,
    files,
    signing: signingOf(deps.signer.publicKey),
  };
  // What is signed is the manifest file's exact bytes: nothing to canonicalise, any edit shows.
  const bytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8');
  const request = { flag: 'out', force };
  await writeThrough(join(out.dir, manifestName), (tmp) => writeFileSync(tmp, bytes), request);
  await writeThrough(join(out.dir, signatureName), (tmp) => writeFileSync(tmp, signatureText(deps.signer.sign(bytes))), request);
  const written = new Set([manifestName, signatureName, ...files.map((f) => f.name)]);
  if (force) for (const stale of exportFileNames.filter((n) => !written.has(n))) rmSync(join(out.dir, stale), { force: true });
  return manifest;
}
