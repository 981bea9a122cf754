import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ValidationError } from '../../events/errors.js';
import { parseCsv } from '../transfer/csv.js';
import { fileNames, manifestName, type ComplianceManifest } from './export.js';
import { csvColumns, type RecordType } from './records.js';
import { signatureName } from './signature.js';
import { checkSignature, type SignatureCheck, type TrustedKey } from './verify-signature.js';

// readline is loaded when an export is verified, not by every command that loads this module (ADR 26).
const lazyRequire = createRequire(import.meta.url);

export type { SignatureTrust, TrustedKey } from './verify-signature.js';

/** Whether the manifest's chain head is a link of the store's log; null detail when not checked. */
export interface ChainHeadCheck {
  readonly checked: boolean;
  readonly ok: boolean;
  readonly detail: string;
}

export interface ExportVerification {
  readonly ok: boolean;
  /** null when manifest.json is not a manifest at all. */
  readonly manifest: ComplianceManifest | null;
  /** One line per mismatch: the file and what differs. */
  readonly problems: string[];
  readonly signature: SignatureCheck;
  readonly chainHead: ChainHeadCheck;
}

export interface VerifyExportOptions {
  /** The keys the signature must be by; none: the manifest's own key, which proves nothing against a forger. */
  readonly trusted?: readonly TrustedKey[];
  /** With a store: null when `position:hash` is a link of its log, otherwise why not. */
  readonly chainHead?: (position: bigint, hash: string) => Promise<string | null>;
}

async function sha256Of(path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), bytes };
}

/** Record counts per type in the JSONL file, read a line at a time. */
async function jsonlCounts(path: string): Promise<{ counts: Map<string, number>; lines: number; bad: number }> {
  const counts = new Map<string, number>();
  let lines = 0;
  let bad = 0;
  const { createInterface } = lazyRequire('node:readline') as typeof import('node:readline');
  for await (const line of createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity })) {
    lines += 1;
    try {
      const type = (JSON.parse(line) as { record?: unknown }).record;
      counts.set(String(type), (counts.get(String(type)) ?? 0) + 1);
    } catch {
      bad += 1;
    }
  }
  return { counts, lines, bad };
}

const parseManifest = (bytes: Buffer, problems: string[]): ComplianceManifest | null => {
  try {
    const parsed = JSON.parse(bytes.toString('utf8')) as ComplianceManifest;
    if (parsed?.format === 'livingmemory-compliance-export' && Array.isArray(parsed.files)) return parsed;
  } catch {
    // Reported below.
  }
  problems.push(`${manifestName}: not a compliance export manifest`);
  return null;
};

async function checkFiles(dir: string, manifest: ComplianceManifest, problems: string[]): Promise<void> {
  const listed = new Set([manifestName, signatureName, ...manifest.files.map((f) => f.name)]);
  for (const name of readdirSync(dir).filter((n) => !listed.has(n)).sort()) problems.push(`${name}: not in the manifest`);
  for (const file of manifest.files) {
    const filePath = join(dir, file.name);
    if (!existsSync(filePath)) {
      problems.push(`${file.name}: missing`);
      continue;
    }
    const found = await sha256Of(filePath);
    if (found.sha256 !== file.sha256) problems.push(`${file.name}: sha256 ${found.sha256}, manifest says ${file.sha256}`);
    if (found.bytes !== file.bytes) problems.push(`${file.name}: ${found.bytes} bytes, manifest says ${file.bytes}`);
    if (file.name === fileNames.jsonl) {
      const { counts, lines, bad } = await jsonlCounts(filePath);
      if (lines !== file.records) problems.push(`${file.name}: ${lines} records, manifest says ${file.records}`);
      if (bad > 0) problems.push(`${file.name}: ${bad} lines are not JSON`);
      for (const [type, n] of Object.entries(manifest.counts)) {
        if ((counts.get(type) ?? 0) !== n) problems.push(`${file.name}: ${counts.get(type) ?? 0} ${type} records, manifest says ${n}`);
      }
    } else if (file.name === fileNames.csv) {
      problems.push(...checkCsv(readFileSync(filePath, 'utf8'), file.records, manifest.counts));
    }
  }
}

async function checkChainHead(manifest: ComplianceManifest | null, options: VerifyExportOptions, problems: string[]): Promise<ChainHeadCheck> {
  if (!options.chainHead) return { checked: false, ok: false, detail: 'no store given (--data-dir): the chain head was not checked against a log' };
  const head = manifest?.log;
  if (!head || !/^\d+$/.test(String(head.chainHeadPosition)) || !/^[0-9a-f]{64}$/.test(String(head.chainHeadHash))) {
    problems.push(`${manifestName}: no chain head to check`);
    return { checked: true, ok: false, detail: 'the manifest names no chain head' };
  }
  const link = `${head.chainHeadPosition}:${head.chainHeadHash}`;
  const why = await options.chainHead(BigInt(head.chainHeadPosition), head.chainHeadHash);
  if (why) problems.push(`${manifestName}: chain head ${link} is not in this store's log: ${why}`);
  return { checked: true, ok: why === null, detail: why ?? `chain head ${link} is a link of this store's log` };
}

/**
 * Checks an export directory: the manifest's signature (ADR 24), each file's sha256 and size, its
 * record count, the JSONL counts per record type, that the CSV parses with the expected header,
 * that no file beside them was added, and, with a store, the chain head against its log.
 */
export async function verifyComplianceExport(dir: string, options: VerifyExportOptions = {}): Promise<ExportVerification> {
  const path = join(dir, manifestName);
  if (!existsSync(path)) throw new ValidationError('verify', `${dir} holds no ${manifestName}`);
  const problems: string[] = [];
  const bytes = readFileSync(path);
  const manifest = parseManifest(bytes, problems);
  const signature = checkSignature(dir, bytes, manifest?.signing, options.trusted ?? [], problems);
  if (manifest) await checkFiles(dir, manifest, problems);
  const chainHead = await checkChainHead(manifest, options, problems);
  return { ok: problems.length === 0 && signature.valid, manifest, problems, signature, chainHead };
}

function checkCsv(text: string, records: number, counts: Readonly<Record<RecordType, number>>): string[] {
  let rows: string[][];
  try {
    rows = parseCsv(text, records + 2);
  } catch (error) {
    return [`${fileNames.csv}: ${error instanceof Error ? error.message : String(error)}`];
  }
  const problems: string[] = [];
  if (rows[0]?.join(',') !== csvColumns.join(',')) problems.push(`${fileNames.csv}: unexpected header`);
  if (rows.length - 1 !== records) problems.push(`${fileNames.csv}: ${rows.length - 1} records, manifest says ${records}`);
  for (const [type, n] of Object.entries(counts)) {
    const found = rows.slice(1).filter((r) => r[0] === type).length;
    if (found !== n) problems.push(`${fileNames.csv}: ${found} ${type} records, manifest says ${n}`);
  }
  return problems;
}
