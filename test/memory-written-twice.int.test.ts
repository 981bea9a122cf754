import { afterEach, describe, expect, it } from 'vitest';
import { engineProjections } from '../src/engine/indexes.js';
import { createReadModels } from '../src/queries/read-models.js';
import { openTestStore, type TestStore } from './support/store.js';
import { memoryWrittenEvent } from './support/events.js';

// Given a log where one memory id is written twice (by two writers, or an import of the same ids),
// when the projections apply it, then none fails (projections are total, ADR 23) and the later
// event wins, as in the vector indexes and the graph.
let store: TestStore | null = null;
afterEach(() => {
  store?.close();
  store = null;
});

describe('a memory id written twice', () => {
  it('is the later write in documents, keyword search and sources, incrementally and replayed', async () => {
    store = openTestStore(engineProjections, 5);
    const second = memoryWrittenEvent('m-1', 'second version mentions kiwis');
    await store.log.append('stream-a', [memoryWrittenEvent('m-1', 'first version mentions mangoes')]);
    await store.log.append('stream-b', [{ ...second, data: { ...second.data, sources: [{ messageId: 'x-1', sessionId: 's-1', role: 'user' as const, senderId: null, senderName: null, content: 'kiwis please', at: null }] } }]);
    const check = async (): Promise<void> => {
      expect(store?.runner.status().filter((s) => s.failed !== null)).toEqual([]);
      const models = createReadModels(store!.db, (projection, table) => store!.runner.liveTable(projection, table));
      expect(models.documents.get('m-1')?.text).toBe('second version mentions kiwis');
      expect(models.keyword.search('kiwis').map((h) => h.memoryId)).toEqual(['m-1']);
      expect(models.keyword.search('mangoes')).toEqual([]);
      expect(models.sources.of('m-1').map((s) => s.messageId)).toEqual(['x-1']);
    };
    await store.runner.catchUp();
    await check();
    await store.runner.rebuildAll(engineProjections.map((p) => p.name));
    await check();
  });
});
