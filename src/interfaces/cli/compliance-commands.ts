import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../engine/config.js';
import { ValidationError } from '../../events/errors.js';
import { verifyExportWithoutStore } from '../../engine/compliance.js';
import type { ExportFormat } from '../../replay/compliance/export.js';
import type { ExportVerification } from '../../replay/compliance/verify.js';
import type { ReplayTurn } from '../../replay/session-replay.js';
import { integer, naturalNumber, oneOf, parsePosition, position, str, type Command, type Handler, type Invocation } from './args.js';
import type { Output } from './output.js';
import { opt, subjectOptions } from './options.js';
import { verifyFailedExitCode } from './exit-codes.js';
import { withProgress } from './progress.js';

const formatFlag = (value: string | undefined): ExportFormat | undefined => {
  if (value === undefined || value === 'jsonl' || value === 'csv' || value === 'both') return value;
  throw new ValidationError('format', `must be jsonl, csv or both, got "${value}"`);
};

const short = (text: string, max = 100): string => JSON.stringify(text.length > max ? `${text.slice(0, max - 1)}…` : text);

const describeTurn = (t: ReplayTurn): string[] => [
  `turn ${t.turn} (positions ${t.fromPosition}-${t.toPosition})`,
  ...t.messages.map((m) => `  [${m.index}] ${m.role}${m.sender ? ` ${m.sender}` : ''}: ${short(m.content)}`),
  ...t.recalls.map((r) =>
    r.error
      ? `  recall failed: ${r.error}`
      : `  recalled ${r.memoryIds.length ? r.memoryIds.map((id, i) => `${id} (${r.scores[i]?.toFixed(3)})`).join(', ') : 'nothing'}; ${r.injectedChars} characters injected`,
  ),
  ...t.summaries.map((s) => `  summary ${s.taskId} ${s.status}${s.memoryIds.length ? `: ${s.memoryIds.join(', ')}` : ''}${s.detail ? ` (${s.detail})` : ''}`),
  ...t.written.map((w) => `  memory written ${w.memoryId}: ${short(w.text)}`),
  ...t.forgotten.map((f) => `  memory forgotten ${f.memoryId}: ${f.reason}`),
  ...t.rolledBack.map((r) => `  ${r.reset ? 'session reset' : 'rolled back'} ${r.messageIds.join(', ') || '-'}: ${r.reason}`),
  ...t.cleaned.map((c) => `  message ${c.messageId} cleaned of injected text`),
];

const replay: Handler = async (engine, inv, out) => {
  const sessionId = str(inv, 'session');
  if (!sessionId) throw new ValidationError('session', 'is required');
  const turn = integer(inv, 'to', 0);
  const at = position(inv, 'to-position');
  if (turn !== undefined && at !== undefined) throw new ValidationError('to', 'give --to or --to-position, not both');
  const result = await engine.replaySession(sessionId, turn !== undefined ? { turn } : at !== undefined ? { position: at } : undefined);
  out.print(result, () =>
    [`session ${result.sessionId}: ${result.turns.filter((t) => t.turn > 0).length} of ${result.totalTurns} turns, up to position ${result.position}`, ...result.turns.flatMap(describeTurn)].join('\n'),
  );
};

const publicKeyOf = (inv: Invocation): string | undefined => {
  const file = str(inv, 'public-key');
  if (file === undefined) return undefined;
  if (!existsSync(file)) throw new ValidationError('public-key', `${file} does not exist`);
  return readFileSync(file, 'utf8');
};

const describeCheck = (dir: string, c: ExportVerification): string =>
  [
    c.ok ? `export in ${dir} verifies: files match the manifest, signature valid` : 'export does NOT verify:',
    ...c.problems.map((p) => `  ${p}`),
    `signature: ${c.signature.valid ? 'valid, ' : 'INVALID; '}${c.signature.meaning}${c.signature.keyId ? ` (key ${c.signature.keyId})` : ''}`,
    `chain head: ${c.chainHead.detail}`,
  ].join('\n');

const printCheck = (dir: string, checked: ExportVerification, out: Output): number => {
  out.print(checked, () => describeCheck(dir, checked));
  return checked.ok ? 0 : verifyFailedExitCode;
};

/** `--verify` without `--data-dir` opens no store (and creates none): the check is the files' own, or against `--public-key`. */
const verifyBare = (inv: Invocation, out: Output): Promise<number> | null => {
  const dir = str(inv, 'verify');
  const dataDir = str(inv, 'data-dir');
  if (dir === undefined) return null;
  if (dataDir !== undefined) {
    const config = loadConfig({ file: str(inv, 'config'), env: process.env, overrides: { dataDir } });
    if (existsSync(join(config.dataDir, config.databaseFile))) return null;
    throw new ValidationError('data-dir', `${dataDir} holds no store to check the export against`);
  }
  return verifyExportWithoutStore(dir, publicKeyOf(inv)).then((checked) => printCheck(dir, checked, out));
};

const complianceExport: Handler = async (engine, inv, out) => {
  const verify = str(inv, 'verify');
  if (verify !== undefined) {
    const publicKey = publicKeyOf(inv);
    return printCheck(verify, await engine.verifyComplianceExport(verify, publicKey === undefined ? {} : { publicKey }), out);
  }
  const dir = str(inv, 'out');
  if (!dir) throw new ValidationError('out', 'is required: the directory to write the export to');
  const subject = { user: str(inv, 'user'), session: str(inv, 'session'), persona: str(inv, 'persona'), all: inv.flags.all === true };
  const format = formatFlag(str(inv, 'format'));
  // The export reports no progress of its own: an elapsed-time line, on a terminal only.
  const manifest = await withProgress(out, `exporting to ${dir}`, () => null, () =>
    engine.complianceExport(subject, { dir, force: inv.flags.force === true, ...(format ? { format } : {}) }),
  );
  out.print(manifest, () =>
    [
      `exported ${manifest.subject.kind}${manifest.subject.id ? ` ${manifest.subject.id}` : ''} up to position ${manifest.log.position} to ${dir}`,
      `  ${Object.entries(manifest.counts).map(([t, n]) => `${n} ${t}`).join(', ')}`,
      ...manifest.files.map((f) => `  ${f.name}: ${f.records} records, ${f.bytes} bytes, sha256 ${f.sha256}`),
      `  manifest.json signed with key ${manifest.signing.keyId} (manifest.sig)`,
    ].join('\n'),
  );
};

/** Session replay and compliance export (ADR 20). */
export const complianceCommands: Readonly<Record<string, Command>> = {
  replay: {
    run: replay,
    summary: 'one session turn by turn: messages, recalls, memories written and taken back',
    options: [
      { ...opt.session, description: 'the session (required)' },
      { flags: '--to <turn>', description: 'stop after this turn', value: naturalNumber },
      { flags: '--to-position <position>', description: 'stop at this log position', value: parsePosition },
    ],
  },
  'compliance-export': {
    run: complianceExport,
    bare: verifyBare,
    summary: 'every record of a subject with a signed manifest (--out DIR), or check an export (--verify DIR; exit 3 when it does not verify)',
    options: [
      ...subjectOptions,
      { flags: '--all', description: 'every subject' },
      opt.out,
      opt.force,
      { flags: '--format <format>', description: 'jsonl, csv or both', value: oneOf('jsonl', 'csv', 'both') },
      { flags: '--verify <dir>', description: "check an export: its signature, digests and counts (and, with --data-dir, the store's key and log)" },
      { flags: '--public-key <file>', description: 'with --verify: the public key the export must be signed by (PEM, from keys export-public)' },
    ],
  },
};
