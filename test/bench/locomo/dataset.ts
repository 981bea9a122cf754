/**
 * The LoCoMo data set (Maharana et al. 2024, "Evaluating Very Long-Term Conversational Memory of
 * LLM Agents", CC BY-NC 4.0, research use only): ten long two-person conversations, each with
 * question/answer pairs whose `evidence` names the dialogue turns (`D3:7` = session 3, turn 7)
 * that hold the answer. The file is not in this repository: it sits at
 * `../shared/datasets/locomo10.json` beside the repository root, or wherever `--dataset=PATH` says.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Turn {
  readonly diaId: string;
  readonly speaker: string;
  readonly text: string;
  readonly blipCaption: string | null;
  /** 1-based session number. */
  readonly session: number;
  /** The session's `session_N_date_time`, as written in the file ("1:56 pm on 8 May, 2023"). */
  readonly dateTime: string;
  /** The same instant in ms since the epoch (read as UTC), or null when it does not parse. */
  readonly at: number | null;
}

export interface Question {
  /** Index in the conversation's `qa` array. */
  readonly index: number;
  readonly question: string;
  readonly answer: string;
  readonly category: number;
  /** Distinct evidence turn ids, all of them turns of this conversation. */
  readonly evidence: readonly string[];
}

export interface Conversation {
  readonly id: string;
  readonly speakers: readonly [string, string];
  readonly turns: readonly Turn[];
  /** Questions of categories 1-4 whose evidence ids are all turns of this conversation. */
  readonly questions: readonly Question[];
  readonly skipped: QuestionCounts;
}

/** Why questions were left out. */
export interface QuestionCounts {
  /** Questions of categories 1-4 in the file. */
  readonly inCategories: number;
  /** ... of which the evidence list is empty. */
  readonly emptyEvidence: number;
  /** ... of which some evidence id is not a turn id of the conversation ("D8:6; D9:17", "D", "D30:05"). */
  readonly invalidEvidence: number;
  /** ... of which every id is invalid (a subset of invalidEvidence). */
  readonly noValidEvidence: number;
}

/** Category numbers as the file has them, and how they are commonly read (the file carries numbers only). */
export const categoryNames: Readonly<Record<number, string>> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
};
export const usedCategories = [1, 2, 3, 4] as const;

/** The repository root: the nearest folder above this module with this package's package.json. */
export function repoRoot(from = dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: unknown }).name === 'livingmemory') return dir;
      } catch {
        // not ours; keep looking
      }
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the livingmemory repository root above ${from}`);
    dir = up;
  }
}

export function defaultDatasetPath(): string {
  return resolve(repoRoot(), '..', 'shared', 'datasets', 'locomo10.json');
}

const months = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" as UTC ms, or null. */
export function parseLocomoDate(text: string): number | null {
  const m = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(text);
  if (!m) return null;
  const [, h, min, ampm, day, month, year] = m;
  const mon = months.indexOf((month ?? '').toLowerCase());
  if (mon < 0) return null;
  const hour = (Number(h) % 12) + ((ampm ?? '').toLowerCase() === 'pm' ? 12 : 0);
  return Date.UTC(Number(year), mon, Number(day), hour, Number(min));
}

class DatasetError extends Error {
  override readonly name = 'DatasetError';
}

function fail(path: string, where: string, what: string): never {
  throw new DatasetError(`${path}: ${where}: ${what} (is this the LoCoMo locomo10.json?)`);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads and checks the file; a missing or malformed file fails with a message naming what is wrong. */
export function loadLocomo(path: string): Conversation[] {
  if (!existsSync(path)) {
    throw new DatasetError(
      `LoCoMo data set not found at ${path}\n` +
        '  expected ../shared/datasets/locomo10.json beside the repository root, or pass --dataset=PATH\n' +
        '  (locomo10.json from https://github.com/snap-research/locomo, CC BY-NC 4.0, research use)',
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new DatasetError(`${path}: not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(raw) || raw.length === 0) fail(path, 'top level', 'expected a non-empty array of conversations');
  return raw.map((entry, n) => parseConversation(path, entry, n));
}

function parseConversation(path: string, entry: unknown, n: number): Conversation {
  const at = `conversation [${n}]`;
  if (!isRecord(entry)) fail(path, at, 'not an object');
  const id = typeof entry.sample_id === 'string' ? entry.sample_id : `conv-${n}`;
  const conv = entry.conversation;
  if (!isRecord(conv)) fail(path, `${at} (${id})`, 'no `conversation` object');
  const speakerA = conv.speaker_a;
  const speakerB = conv.speaker_b;
  if (typeof speakerA !== 'string' || typeof speakerB !== 'string') fail(path, `${id}.conversation`, 'speaker_a / speaker_b missing');
  const sessions = Object.keys(conv)
    .map((key) => /^session_(\d+)$/.exec(key))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  if (sessions.length === 0) fail(path, `${id}.conversation`, 'no session_N arrays');
  const turns: Turn[] = [];
  for (const session of sessions) {
    const list = conv[`session_${session}`];
    const dateTime = conv[`session_${session}_date_time`];
    if (!Array.isArray(list)) fail(path, `${id}.session_${session}`, 'not an array');
    if (typeof dateTime !== 'string') fail(path, `${id}.session_${session}_date_time`, 'missing');
    const parsedAt = parseLocomoDate(dateTime);
    for (const [i, turn] of list.entries()) {
      if (!isRecord(turn) || typeof turn.dia_id !== 'string' || typeof turn.speaker !== 'string' || typeof turn.text !== 'string') {
        fail(path, `${id}.session_${session}[${i}]`, 'expected {speaker, dia_id, text}');
      }
      turns.push({
        diaId: turn.dia_id,
        speaker: turn.speaker,
        text: turn.text,
        blipCaption: typeof turn.blip_caption === 'string' && turn.blip_caption.trim() !== '' ? turn.blip_caption : null,
        session,
        dateTime,
        at: parsedAt,
      });
    }
  }
  const turnIds = new Set(turns.map((t) => t.diaId));
  const qa = entry.qa;
  if (!Array.isArray(qa)) fail(path, `${id}.qa`, 'not an array');
  const questions: Question[] = [];
  let inCategories = 0;
  let emptyEvidence = 0;
  let invalidEvidence = 0;
  let noValidEvidence = 0;
  for (const [index, q] of qa.entries()) {
    if (!isRecord(q) || typeof q.question !== 'string' || typeof q.category !== 'number' || !Array.isArray(q.evidence)) {
      fail(path, `${id}.qa[${index}]`, 'expected {question, answer, evidence[], category}');
    }
    if (!(usedCategories as readonly number[]).includes(q.category)) continue;
    inCategories += 1;
    const evidence = q.evidence.filter((e): e is string => typeof e === 'string');
    if (evidence.length === 0) {
      emptyEvidence += 1;
      continue;
    }
    const valid = evidence.filter((e) => turnIds.has(e));
    if (valid.length !== evidence.length || evidence.length !== q.evidence.length) {
      invalidEvidence += 1;
      if (valid.length === 0) noValidEvidence += 1;
      continue;
    }
    questions.push({ index, question: q.question, answer: String(q.answer), category: q.category, evidence: [...new Set(evidence)] });
  }
  return {
    id,
    speakers: [speakerA, speakerB],
    turns,
    questions,
    skipped: { inCategories, emptyEvidence, invalidEvidence, noValidEvidence },
  };
}
