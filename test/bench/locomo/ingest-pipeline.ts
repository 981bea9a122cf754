/**
 * The `pipeline` ingest mode of the LoCoMo benchmark: the conversation goes through the host hooks
 * and the engine's own summarizer (the offline extractive one by default), so the memories are the
 * summaries the engine writes, each carrying its source messages.
 *
 * Mapping. LoCoMo is two people talking, not a user and an assistant, so every turn is a `user`
 * message of a group chat (`engine.beforeLlmRequest`, chatType `group`), sent by its speaker
 * (senderId and senderName = the speaker's name). No assistant reply is recorded: none was said,
 * and a made-up one would enter the summaries. The message id is the turn id (`D3:7`), so a
 * memory's sources name the evidence turns directly. A turn with an image carries its caption as
 * `[image: ...]`, as in `turns`. Messages are sent at their session's date, a minute apart, so
 * the summarizer splits segments on the day changes and idle gaps between sessions as it would
 * for a live chat. The hook's per-turn recall cannot be switched off; it runs on an empty store
 * (nothing is summarized before the end, since no assistant reply counts as a round) and asks
 * for one memory. Then the whole backlog is summarized (`engine.conversation.summarize`) until
 * nothing is left, and the engine's tasks are awaited.
 */
import type { MemoryEngine } from '../../../src/engine/engine.js';
import type { Conversation, Turn } from './dataset.js';
import { sourceTurnIds, type benchEnvironment } from './pipeline.js';

/** What the summarizer made of one conversation. */
export interface PipelineFigure {
  readonly conversationId: string;
  readonly turns: number;
  readonly memories: number;
  /** Sources (turns) per memory, and memory text length in characters, over the memories. */
  readonly sources: number;
  readonly chars: number;
  readonly maxChars: number;
  /** Turns no live memory holds as a source. */
  readonly uncovered: number;
  /** Turns with a sentence the text of their memory quotes (case aside), and the same for the evidence turns of the questions (one per question and id). */
  readonly quoted: number;
  readonly evidence: number;
  readonly evidenceQuoted: number;
  readonly recordSeconds: number;
  readonly summarizeSeconds: number;
}

/** The message a turn becomes: its words, and the caption of its image when it has one. */
export function turnMessage(turn: Turn): string {
  return turn.blipCaption ? `${turn.text} [image: ${turn.blipCaption}]` : turn.text;
}

/** Whether the memory text quotes one of the turn's sentences (of at least three words): the summary kept its words, not only its id. */
export function quotes(memoryText: string, turnText: string): boolean {
  const text = memoryText.toLowerCase();
  return turnText
    .split(/(?<=[.!?])\s+|\n/)
    .map((s) => s.trim().toLowerCase())
    .some((s) => s.split(/\s+/).length >= 3 && text.includes(s));
}

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

/**
 * Feeds the conversation through the hooks and summarizes it; returns the memory of each turn id
 * (the memory whose sources hold it) and the figures of what was written.
 */
export async function ingestPipeline(
  engine: MemoryEngine,
  conversation: Conversation,
  env: ReturnType<typeof benchEnvironment>,
): Promise<{ memoryOf: Map<string, string>; figure: PipelineFigure }> {
  const sessionId = conversation.id;
  let last = conversation.turns[0]?.at ?? Date.UTC(2023, 0, 1);
  let session = -1;
  let inSession = 0;
  const recordStart = process.hrtime.bigint();
  for (const turn of conversation.turns) {
    // As in `turns`: a minute apart; a session date that does not parse continues after the last one.
    if (turn.session !== session) {
      session = turn.session;
      last = turn.at ?? last + (inSession + 1) * 60_000;
      inSession = 0;
    }
    const sentAt = last + inSession * 60_000;
    env.setTime(sentAt);
    inSession += 1;
    const answer = await engine.beforeLlmRequest({
      sessionId,
      chatType: 'group',
      recall: false,
      message: { messageId: turn.diaId, content: turnMessage(turn), senderId: turn.speaker, senderName: turn.speaker, sentAt: new Date(sentAt).toISOString() },
    });
    if (answer.status !== 'ok') throw new Error(`${conversation.id} ${turn.diaId}: beforeLlmRequest answered ${answer.status}`);
  }
  const recordSeconds = seconds(recordStart);

  // The summaries are written a minute after the last message, before the questions are asked.
  env.setTime(last + inSession * 60_000);
  const summarizeStart = process.hrtime.bigint();
  for (;;) {
    const done = await engine.conversation.summarize({ sessionId, maxSegments: 1000 });
    if (done.length === 0) break;
    const bad = done.find((t) => t.state !== 'committed');
    if (bad) throw new Error(`${conversation.id}: summary task ${bad.taskId} ended ${bad.state}${bad.error ? `: ${bad.error}` : ''}`);
  }
  const summarizeSeconds = seconds(summarizeStart);

  const memoryOf = new Map<string, string>();
  const textOf = new Map<string, string>();
  const docs = engine.indexes.documents.list({ sessionId, status: 'active', limit: null });
  let sources = 0;
  let chars = 0;
  let maxChars = 0;
  for (const doc of docs) {
    const turnIds = sourceTurnIds(engine, doc.memoryId);
    sources += turnIds.length;
    chars += doc.text.length;
    maxChars = Math.max(maxChars, doc.text.length);
    for (const id of turnIds) if (!memoryOf.has(id)) memoryOf.set(id, doc.memoryId);
    textOf.set(doc.memoryId, doc.text);
  }
  const quoted = new Set(conversation.turns.filter((t) => quotes(textOf.get(memoryOf.get(t.diaId) ?? '') ?? '', t.text)).map((t) => t.diaId));
  const evidence = conversation.questions.flatMap((q) => q.evidence);
  const n = Math.max(1, docs.length);
  return {
    memoryOf,
    figure: {
      conversationId: conversation.id,
      turns: conversation.turns.length,
      memories: docs.length,
      sources: sources / n,
      chars: chars / n,
      maxChars,
      uncovered: conversation.turns.filter((t) => !memoryOf.has(t.diaId)).length,
      quoted: quoted.size,
      evidence: evidence.length,
      evidenceQuoted: evidence.filter((id) => quoted.has(id)).length,
      recordSeconds,
      summarizeSeconds,
    },
  };
}
