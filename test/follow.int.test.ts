import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../src/events/log/event-log.js';
import { startFollower } from '../src/engine/follow.js';
import { openTestEngine, tempDir } from './support/engine.js';

let temp: ReturnType<typeof tempDir> | undefined;
afterEach(() => temp?.remove());

const until = async (done: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !done(); i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
};

describe('the follower of a shared log', () => {
  it('retries an erasure batch whose handling failed, and loses none', async () => {
    temp = tempDir();
    const engine = await openTestEngine(temp.dir);
    await engine.writeMemory({ text: 'Tina plays the violin', userId: 'tina' });
    const calls: string[][] = [];
    const follower = startFollower({
      log: engine.log,
      indexes: engine.indexes,
      onErasures: async (events: readonly RecordedEvent[]) => {
        calls.push(events.map((e) => e.type));
        if (calls.length === 1) throw new Error('node busy');
      },
    });
    try {
      await engine.eraseSubject({ kind: 'user', id: 'tina', reason: 'asked' });
      await until(() => calls.length >= 2);
      expect(calls).toEqual([['SubjectErased'], ['SubjectErased']]);
      expect(follower.status().lastError).toBeNull();
    } finally {
      await follower.stop();
      await engine.close();
    }
  });
});
