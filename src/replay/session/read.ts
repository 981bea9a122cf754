import type { EventLog, RecordedEvent } from '../../events/log/event-log.js';
import { streams } from '../../events/streams.js';

/**
 * The events of one session in log order: its conversation stream, its recall stream, and the
 * streams of the memories its summaries wrote or took back. Only these streams are read, never
 * the whole log.
 */
export async function readSessionEvents(log: EventLog, sessionId: string): Promise<RecordedEvent[]> {
  const conversation = await log.readStream(streams.conversation(sessionId));
  const recalls = await log.readStream(streams.recall(sessionId));
  const memoryIds = new Set<string>();
  for (const e of conversation) {
    if (e.type === 'SummaryCommitted' || e.type === 'SummaryCompensated') e.data.memoryIds.forEach((id) => memoryIds.add(id));
  }
  const memories: RecordedEvent[] = [];
  for (const id of memoryIds) memories.push(...(await log.readStream(streams.memory(id))));
  return [...conversation, ...recalls, ...memories].sort((a, b) => (a.globalPosition < b.globalPosition ? -1 : a.globalPosition > b.globalPosition ? 1 : 0));
}
