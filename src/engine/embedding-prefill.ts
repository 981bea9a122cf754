import type { EventLog, RecordedEvent } from '../events/log/event-log.js';
import { graphEntryVectorFeed, memoryVectorFeed } from '../projections/vectors/feed.js';
import { embedWithCache, type EmbeddingCache, type EmbeddingProvider } from '../providers/embeddings/index.js';

/** Every text the two vector projections will look up for these events. */
function textsOf(page: readonly RecordedEvent[]): string[] {
  return page.flatMap((event) =>
    [memoryVectorFeed, graphEntryVectorFeed].flatMap((feed) =>
      feed.changes(event).flatMap((change) => (change.kind === 'replace' ? change.items.map((item) => item.text) : [])),
    ),
  );
}

/**
 * The log as this node's vector projections read it on a shared log (ADR 27): each page arrives
 * with its texts in the node's embedding cache, embedded here when another node wrote them. The
 * projection itself stays a pure lookup; a provider that fails leaves the items pending, and the
 * maintenance repair embeds them later, as on a single node.
 */
export function embeddingPrefill(log: EventLog, provider: EmbeddingProvider, cache: EmbeddingCache): EventLog {
  return {
    ...log,
    async readAll(options) {
      const page = await log.readAll(options);
      const texts = textsOf(page);
      if (texts.length > 0) await embedWithCache(provider, cache, texts).catch(() => undefined);
      return page;
    },
  };
}
