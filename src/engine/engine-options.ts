import type { Environment } from './clock.js';
import type { Migration } from './migrations.js';
import type { RecallSettings } from '../queries/recall/types.js';
import type { EmbeddingProvider } from '../providers/embeddings/index.js';
import type { LlmProvider } from '../providers/llm/index.js';
import type { Reranker } from '../queries/recall/rank.js';

export interface EngineOptions {
  readonly env?: Environment;
  /** Overrides the provider built from the configuration (tests, embedding hosts). */
  readonly embeddingProvider?: EmbeddingProvider;
  /** Overrides the reranker built from the configuration. */
  readonly reranker?: Reranker | null;
  /** Overrides of the recall defaults (timeouts, weights, budgets). */
  readonly recallSettings?: Partial<RecallSettings>;
  /** Run the start-up consistency check in the background (default true). */
  readonly maintenance?: boolean;
  /**
   * Overrides the summarizer built from the `llm` configuration (extractive by default). Null records
   * conversations and recalls, but schedules no summaries.
   */
  readonly llmProvider?: LlmProvider | null;
  /** On a shared log (log.kind eventstoredb), keep the read models live by subscription (default true). */
  readonly follow?: boolean;
  /** Run the lifecycle scheduler (missed ticks, then daily); default `lifecycle.scheduler`. */
  readonly scheduler?: boolean;
  /** The package version compared with the last open's (tests); default this package's. */
  readonly packageVersion?: string;
  /** The SQLite schema steps (tests); default `storeMigrations`. */
  readonly migrations?: readonly Migration[];
  /**
   * Load jieba's dictionary while opening (default true): about a second, once a process, which
   * otherwise stops the event loop at the first Chinese text, mid-rebuild or mid-request. A
   * one-shot CLI command passes false and pays it only if it meets Chinese.
   */
  readonly warmTokenizer?: boolean;
}
