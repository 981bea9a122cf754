/**
 * The report lines of the `pipeline` ingest mode: what the summarizer wrote, and what picking
 * memories at random would score, since a summary covering a whole session makes recall@k easier.
 */
import type { Conversation } from './dataset.js';
import type { ConversationResult } from './run.js';

/** Meta rows of the pipeline ingest (none for `turns`): memories, sources and length per memory, random recall@k. */
export function pipelineMeta(conversations: readonly Conversation[], results: readonly ConversationResult[]): Record<string, string | number> {
  const figures = results.flatMap((r) => (r.pipeline ? [r.pipeline] : []));
  if (figures.length === 0) return {};
  const memories = figures.reduce((a, f) => a + f.memories, 0);
  const weighted = (pick: (f: (typeof figures)[number]) => number) => figures.reduce((a, f) => a + pick(f) * f.memories, 0) / Math.max(1, memories);
  const questions = new Map(conversations.map((c) => [c.id, c.questions.length]));
  const asked = figures.reduce((a, f) => a + (questions.get(f.conversationId) ?? 0), 0);
  // Segments do not overlap, so k memories drawn at random hold an evidence turn with chance k / memories.
  const randomAt = (k: number) => figures.reduce((a, f) => a + (questions.get(f.conversationId) ?? 0) * Math.min(1, k / Math.max(1, f.memories)), 0) / Math.max(1, asked);
  const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
  const share = (part: number, whole: number) => `${part} of ${whole} (${((100 * part) / Math.max(1, whole)).toFixed(1)}%) with a sentence in their memory's text`;
  return {
    pipelineMemories: memories,
    pipelineMemoriesPerConversation: `${Math.min(...figures.map((f) => f.memories))}-${Math.max(...figures.map((f) => f.memories))}`,
    pipelineSourcesPerMemory: round(weighted((f) => f.sources)),
    pipelineCharsPerMemory: `${round(weighted((f) => f.chars), 0)} mean, ${Math.max(...figures.map((f) => f.maxChars))} max`,
    pipelineTurnsWithoutMemory: figures.reduce((a, f) => a + f.uncovered, 0),
    pipelineTurnsQuoted: share(figures.reduce((a, f) => a + f.quoted, 0), figures.reduce((a, f) => a + f.turns, 0)),
    pipelineEvidenceTurnsQuoted: share(figures.reduce((a, f) => a + f.evidenceQuoted, 0), figures.reduce((a, f) => a + f.evidence, 0)),
    pipelineRecordSeconds: round(figures.reduce((a, f) => a + f.recordSeconds, 0)),
    pipelineSummarizeSeconds: round(figures.reduce((a, f) => a + f.summarizeSeconds, 0)),
    pipelineRandomRecall: [1, 5, 10, 20].map((k) => `@${k} ${randomAt(k).toFixed(3)}`).join(', '),
  };
}
