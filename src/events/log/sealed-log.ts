import type { ErasureRecord } from './sqlite-event-log.js';
import type { AppendResult, EventLog, RecordedEvent } from './event-log.js';
import type { SubjectRef } from './sealing/keystore.js';
import type { SubjectErasure } from './sealing/shred.js';
import type { ChainReport, VerifyChainOptions } from './verify-chain.js';

/** What the engine needs of its log beyond the EventLog: the hash chain and crypto-shredding (ADR 16, 19, 27). */
export interface SealedEventLog extends EventLog {
  readonly kind: 'sqlite' | 'eventstoredb';
  verifyChain(options?: VerifyChainOptions): Promise<ChainReport>;
  /** Every stored event the subject's current key seals, opened (a scan of the log; for erasure). */
  sealedEvents(subject: SubjectRef): Promise<RecordedEvent[]>;
  /** Records the erasure `record` builds from what the subject's key sealed, and destroys the key. */
  eraseSubject(subject: SubjectRef, record: (erasure: SubjectErasure & { sealed(): RecordedEvent[] }) => ErasureRecord): Promise<AppendResult & SubjectErasure>;
}
