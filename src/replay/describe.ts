import type { DomainEvent } from '../events/catalog.js';

const quote = (text: string, max = 60): string => JSON.stringify(text.length > max ? `${text.slice(0, max - 1)}…` : text);
const count = (n: number, noun: string, plural = `${noun}s`): string => `${n} ${n === 1 ? noun : plural}`;

/** One line saying what an event did, seen from `subjectId` (a memory or atom it touches). */
export function describeEvent(event: DomainEvent, subjectId: string): string {
  switch (event.type) {
    case 'MemoryWritten':
      return `written ${quote(event.data.text)} (importance ${event.data.importance}, session ${event.data.sessionId ?? '-'})`;
    case 'MemoryUpdated':
      return `updated ${Object.keys(event.data.changes).join(', ')}`;
    case 'MemoriesAccessed': {
      const access = event.data.accesses.find((a) => a.memoryId === subjectId);
      return `accessed ${count(access?.count ?? 0, 'time')} (batch ${event.data.batchId} of ${count(event.data.accesses.length, 'memory', 'memories')})`;
    }
    case 'MemoryImportanceDecayed': {
      const decay = event.data.decays.find((d) => d.memoryId === subjectId);
      const access = decay && decay.accessFrom !== decay.accessTo ? `, access count ${decay.accessFrom} -> ${decay.accessTo}` : '';
      return decay
        ? `importance decayed ${decay.from} -> ${decay.to}${access} (tick ${event.data.tickId})`
        : `importance of ${count(event.data.decays.length, 'memory', 'memories')} decayed (tick ${event.data.tickId})`;
    }
    case 'MemoryArchived':
      return `archived: ${event.data.reason}`;
    case 'MemoryRestored':
      return 'restored';
    case 'MemoryForgotten':
      return `forgotten: ${event.data.reason}`;
    case 'MemoriesConsolidated':
      return event.data.memoryId === subjectId
        ? `consolidated from ${event.data.mergedMemoryIds.join(', ')} (${event.data.grouping}: ${event.data.reason})`
        : `merged into ${event.data.memoryId} (${event.data.grouping}: ${event.data.reason}; originals ${event.data.retention === 'archive' ? 'archived' : 'forgotten'})`;
    case 'MemoryEmbeddingFailed':
      return `embedding failed: ${event.data.error}`;
    case 'MemoryEmbeddingRepaired':
      return 'embedding repaired';
    case 'AtomExtracted':
      return event.data.atomId === subjectId
        ? `atom extracted from memory ${event.data.memoryId}: ${event.data.atomType} ${quote(event.data.content)}`
        : `atom ${event.data.atomId} extracted: ${event.data.atomType} ${quote(event.data.content)}`;
    case 'AtomReinforced':
      return `atom ${event.data.atomId} reinforced: ${event.data.reason} (${count(event.data.reinforcementCount, 'time')}, expires ${event.data.expiresAt ?? 'never'})`;
    case 'AtomStateChanged':
      return `atom ${event.data.atomId} ${event.data.from} -> ${event.data.to}: ${event.data.reason}`;
    case 'GraphEntriesLinked':
      return `graph linked: ${count(event.data.entries.length, 'entry', 'entries')}, ${count(event.data.nodes.length, 'node')}, ${count(event.data.edges.length, 'edge')}`;
    case 'MessageRecorded':
      return `message ${event.data.index} recorded in session ${event.data.sessionId}`;
    case 'MessagesRolledBack':
      return `${count(event.data.messageIds.length, 'message')} rolled back in session ${event.data.sessionId}: ${event.data.reason}`;
    case 'SessionReset':
      return `session ${event.data.sessionId} reset: ${event.data.reason}`;
    case 'SummaryScheduled':
      return `summary ${event.data.taskId} scheduled for messages ${event.data.fromIndex}-${event.data.toIndex}`;
    case 'SummaryCommitted':
      return `summary ${event.data.taskId} of session ${event.data.sessionId} committed`;
    case 'SummaryCompensated':
      return `summary ${event.data.taskId} of session ${event.data.sessionId} compensated: ${event.data.reason}`;
    case 'SummaryFailed':
      return `summary ${event.data.taskId} of session ${event.data.sessionId} failed: ${event.data.error}`;
    case 'MessageCleaned':
      return `message ${event.data.index} of session ${event.data.sessionId} cleaned of injected text`;
    case 'DecayTicked':
      return `decay tick ${event.data.tickId} of ${event.data.date} as of ${event.data.asOf}: ${count(event.data.affected, 'memory', 'memories')} decayed, ${count(event.data.atomTransitions, 'atom transition')}`;
    case 'ProviderFingerprintChanged':
      return `${event.data.role} provider is now ${event.data.current.provider}/${event.data.current.model}`;
    case 'ProjectionRebuildStarted':
      return `rebuild of ${event.data.projection} g${event.data.generation} started: ${event.data.reason}`;
    case 'ProjectionRebuildCompleted':
      return `rebuild of ${event.data.projection} g${event.data.generation} completed at ${event.data.position}`;
    case 'ProjectionRebuildFailed':
      return `rebuild of ${event.data.projection} g${event.data.generation} failed: ${event.data.error}`;
    case 'BackupTaken':
      return `backup ${event.data.backupId} at ${event.data.position} (${event.data.reason}${event.data.managed ? ', managed' : ''}${event.data.verified ? ', verified' : ''})`;
    case 'BackupRemoved':
      return `backup ${event.data.backupId} removed: ${event.data.reason}`;
    case 'BackupRestored':
      return `store restored from backup ${event.data.backupId} (position ${event.data.position}); the store before is backup ${event.data.safetyBackupId}`;
    case 'BackupShredded':
      return `backup ${event.data.backupId}: ${event.data.subject.kind} ${event.data.subject.id} shredded (${count(event.data.keysDestroyed, 'key')})`;
    case 'StoreVersionChanged':
      return `package version ${event.data.from ?? '(none)'} -> ${event.data.to}${event.data.backupId ? ` after backup ${event.data.backupId}` : ''}`;
    case 'StoreMigrated':
      return `schema ${event.data.from} -> ${event.data.to}: ${event.data.migrations.join(', ')}${event.data.backupId ? ` after backup ${event.data.backupId}` : ''}`;
    case 'MemoriesImportStarted':
      return `import ${event.data.importId} from ${event.data.source} started (${count(event.data.memoryIds.length, 'memory', 'memories')})`;
    case 'MemoriesImportCompleted':
      return `import ${event.data.importId} completed (${count(event.data.written, 'memory', 'memories')})`;
    case 'MemoriesImportRolledBack':
      return `import ${event.data.importId} rolled back: ${event.data.reason}`;
    case 'SubjectErased':
      return `${event.data.subject.kind} ${event.data.subject.id} erased: ${event.data.reason} (${count(event.data.counts.memories, 'memory', 'memories')}, ${count(event.data.counts.messages, 'message')})`;
    case 'ErasureStarted':
      return `erasure ${event.data.erasureId} of ${event.data.subject.kind} ${event.data.subject.id} started: ${event.data.steps.join(', ')}${event.data.forced ? ' (forced)' : ''}`;
    case 'ErasureStepCompleted':
      return `erasure ${event.data.erasureId}: ${event.data.step} done`;
    case 'ErasureFinished':
      return `erasure ${event.data.erasureId} finished`;
    case 'MemoriesRecalled': {
      const at = event.data.memoryIds.indexOf(subjectId);
      const score = at >= 0 ? ` (score ${event.data.scores[at]?.toFixed(3) ?? '-'})` : '';
      return event.data.error
        ? `recall failed for message ${event.data.messageId} of session ${event.data.sessionId}: ${event.data.error}`
        : `recalled for message ${event.data.messageId} of session ${event.data.sessionId}${score}: ${count(event.data.memoryIds.length, 'memory', 'memories')}, ${event.data.injectedChars} characters injected`;
    }
    default: {
      const unknown: never = event;
      throw new Error(`no description for ${(unknown as { type: string }).type}`);
    }
  }
}
