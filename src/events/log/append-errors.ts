import { ConcurrencyError, ValidationError } from '../errors.js';

/** Maps SQLite's own constraint failures onto the log's errors at this boundary. */
export function runAppend<T>(append: () => T, streamId: string): T {
  try {
    return append();
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = (error as Error).message ?? '';
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' && message.includes('events.event_id')) {
      throw new ValidationError('metadata.eventId', 'an event with this id is already in the log');
    }
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
      throw new ConcurrencyError(streamId, 'unchanged', 'changed by another writer');
    }
    throw error;
  }
}
