import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ValidationError } from '../../events/errors.js';
import { parseCsv } from '../transfer/csv.js';
import { fileNames, manifestName, type ComplianceManifest } from './export.js';
import { csvColumns, type RecordType } from './records.js';

export interface ExportVerification {
  readonly ok: boolean;
  readonly manifest: ComplianceManifest;
  /** One line per mismatch: the file and what differs. */
  readonly problems: string[];
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

/**
 * Checks an export directory against its manifest: each file's sha256 and size, its record count,
 * the JSONL counts per record type, and that the CSV parses with the expected header.
 */
export async function verifyComplianceExport(dir: string): Promise<ExportVerification> {
  const path = join(dir, manifestName);
  if (!existsSync(path)) throw new ValidationError('dir', `${dir} holds no ${manifestName}`);
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as ComplianceManifest;
  const problems: string[] = [];
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
  return { ok: problems.length === 0, manifest, problems };
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
