import type { Limits } from '../../events/bounds.js';
import type { EventLog } from '../../events/log/event-log.js';
import type { Environment } from '../clock.js';
import type { ConversationConfig } from '../conversation/config.js';
import type { ConversationStore } from '../conversation/store.js';
import type { RecallAnswer } from '../recall.js';
import type { SummaryRunner } from '../summarize/runner.js';
import type { MemoryWriter } from '../summarize/task.js';
import type { ConversationQueries } from '../../queries/conversations.js';
import { commandMetadata } from '../system-events.js';

/** What the host hooks work with. */
export interface HookDeps {
  readonly store: ConversationStore;
  /** Where each turn's recall is recorded (MemoriesRecalled). */
  readonly log: EventLog;
  readonly conversations: ConversationQueries;
  readonly runner: SummaryRunner;
  readonly memories: MemoryWriter;
  readonly recall: (input: unknown) => Promise<RecallAnswer>;
  readonly env: Environment;
  readonly config: ConversationConfig;
  /** The size limits the hooks' inputs are checked against. */
  readonly limits: Limits;
  readonly actor: string;
  /** False while the engine opens or closes: the hooks then return at once. */
  readonly isReady: () => boolean;
  /** Brings the read models up to the log, before reading the conversation store's projection. */
  readonly catchUp: () => Promise<void>;
}

export const hookMetadata = (deps: HookDeps) => commandMetadata(deps.env, deps.actor);
