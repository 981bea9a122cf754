/**
 * LivingMemory's library entry: open an engine over one SQLite file, call the conversation hooks
 * around each LLM request, or write and recall memories directly. Every input type comes from the
 * zod schema that checks it at run time (`z.input`).
 */
export { createMemoryEngine } from './engine/engine.js';
export type { EngineOptions, MemoryEngine, CallContext, WriteReceipt } from './engine/engine.js';
export type {
  AfterLlmResponseInput, BeforeLlmRequestInput, EraseInput, MemoryChangesInput, RecallInput, WriteMemoryInput,
} from './engine/inputs.js';
export type { BeforeLlmResult, AfterLlmResult } from './engine/hooks/index.js';
export type { ExtraContentPart } from './engine/hooks/schemas.js';
export { beforeLlmRequestSchema, afterLlmResponseSchema } from './engine/hooks/schemas.js';
export { recallInputSchema, type RecallAnswer } from './engine/recall.js';
export type { RecalledMemory, Explanation, RecallScope, ScopeMode } from './queries/recall/types.js';
export type { MemoryDocument } from './queries/documents.js';
export type { History, HistoryEntry } from './replay/audit.js';
export { configSchema, loadConfig, ConfigError, type Config, type ConfigSources } from './engine/config.js';
export { systemEnvironment, type Environment } from './engine/clock.js';
export { ValidationError, ConcurrencyError, CorruptEventError } from './events/errors.js';
export { DomainError } from './commands/errors.js';
export { domainEventSchema, eventTypes } from './events/catalog.js';
export type { DomainEvent, EventType, EventOf, EventData } from './events/catalog.js';
export type { EventMetadata } from './events/metadata.js';
export type { RecordedEvent, EventLog } from './events/log/event-log.js';
