import type { RecordedEvent } from '../../events/log/event-log.js';
import type { VectorChange, VectorFeed } from './feed.js';
import type { ApproximateSettings } from './approximate-index.js';
import { createFlatIndex, type FlatIndex } from './flat-index.js';
import { stageIndexWrites, type IndexWrites } from './staged-index.js';
import type { OpenedSnapshot } from './snapshot.js';

/** Where vectors come from: the content-addressed embedding cache the engine filled before appending. */
export interface VectorSource {
  readonly fingerprint: string;
  readonly dimension: number;
  keyOf(text: string): string;
  lookup(key: string): Float32Array | undefined;
  /** Searches go through an approximate index from `minVectors` vectors on (ADR 8); exact without it. */
  readonly approximate?: ApproximateSettings | null;
  /** Many keys in one read (a page's texts); the keys found. */
  lookupMany?(keys: readonly string[]): ReadonlyMap<string, Float32Array>;
}

export interface VectorGeneration {
  readonly generation: number;
  readonly index: FlatIndex;
  /** Items whose embedding was missing when applied, with the cache key to retry. */
  readonly pending: Map<string, string>;
  /** The owner of every item, indexed or pending, and the items of every owner. */
  readonly ownerOf: Map<string, string>;
  readonly itemsOf: Map<string, Set<string>>;
  checkpoint: bigint;
}

export function emptyGeneration(generation: number, source: VectorSource): VectorGeneration {
  return { generation, index: createFlatIndex(source.dimension), pending: new Map(), ownerOf: new Map(), itemsOf: new Map(), checkpoint: 0n };
}

type Ownership = Pick<VectorGeneration, 'ownerOf' | 'itemsOf'>;

const own = (gen: Ownership, id: string, owner: string): void => {
  const previous = gen.ownerOf.get(id);
  // An item id another owner reuses moves to it: the later event wins, as in the graph projection.
  if (previous !== undefined && previous !== owner) gen.itemsOf.get(previous)?.delete(id);
  gen.ownerOf.set(id, owner);
  const items = gen.itemsOf.get(owner) ?? new Set<string>();
  items.add(id);
  gen.itemsOf.set(owner, items);
};

/**
 * A generation from a snapshot's summary (ADR 26): its id lists are parsed and its index bytes
 * read when first needed (`index.load()` reads both). The pending map and the ownership maps (a Set
 * per owner: most of the cost of a restore at 10k items) are built at their first use too, so
 * opening a store for its status builds none of them.
 */
export function restoreGeneration(snapshot: OpenedSnapshot): VectorGeneration {
  const { summary } = snapshot;
  let pending: Map<string, string> | null = null;
  const pendingMap = (): Map<string, string> => (pending ??= new Map(snapshot.lists().pending.map(([id, key]) => [id, key])));
  let ownership: Ownership | null = null;
  const owned = (): Ownership => {
    if (ownership) return ownership;
    const { ids, owners } = snapshot.lists();
    const built: Ownership = { ownerOf: new Map(), itemsOf: new Map() };
    // Only items owned by another id are written down; the rest own themselves.
    const ownerOf = new Map(owners ?? []);
    for (const id of [...ids, ...pendingMap().keys()]) own(built, id, ownerOf.get(id) ?? id);
    return (ownership = built);
  };
  return {
    generation: summary.generation,
    index: createFlatIndex(summary.dimension, {
      count: summary.size,
      ids: () => snapshot.lists().ids,
      bytes: () => snapshot.index(),
      ...(snapshot.viaFile ? { viaFile: snapshot.viaFile } : {}),
    }),
    get pending() {
      return pendingMap();
    },
    get ownerOf() {
      return owned().ownerOf;
    },
    get itemsOf() {
      return owned().itemsOf;
    },
    checkpoint: BigInt(summary.checkpoint),
  };
}

/** Where one page's changes go: the index writes (held until the page ends) and its vectors looked up ahead. */
interface PageTarget {
  readonly index: IndexWrites;
  readonly lookup: (key: string) => Float32Array | undefined;
  readonly keyOf: (text: string) => string;
}

const directTarget = (gen: VectorGeneration, source: VectorSource): PageTarget => ({
  index: gen.index,
  lookup: (key) => source.lookup(key),
  keyOf: (text) => source.keyOf(text),
});

function drop(gen: VectorGeneration, owner: string, target: Pick<PageTarget, 'index'>): void {
  const items = gen.itemsOf.get(owner);
  if (!items) return;
  target.index.removeMany(items);
  for (const id of items) {
    gen.pending.delete(id);
    gen.ownerOf.delete(id);
  }
  gen.itemsOf.delete(owner);
}

/** Indexes the items whose vectors the cache holds; the others stay pending under their key. */
function place(gen: VectorGeneration, items: readonly { id: string; key: string }[], target: PageTarget): void {
  const found: { id: string; vector: Float32Array }[] = [];
  for (const { id, key } of items) {
    const vector = target.lookup(key);
    if (vector) {
      found.push({ id, vector });
      gen.pending.delete(id);
    } else {
      target.index.removeMany([id]);
      gen.pending.set(id, key);
    }
  }
  target.index.upsertMany(found);
}

function applyChange(gen: VectorGeneration, change: VectorChange, target: PageTarget): void {
  switch (change.kind) {
    case 'replace':
      drop(gen, change.owner, target);
      for (const item of change.items) own(gen, item.id, change.owner);
      place(gen, change.items.map((item) => ({ id: item.id, key: target.keyOf(item.text) })), target);
      return;
    case 'drop':
      drop(gen, change.owner, target);
      return;
    case 'retry': {
      const items = [...(gen.itemsOf.get(change.owner) ?? [])].flatMap((id) => {
        const key = gen.pending.get(id);
        return key === undefined ? [] : [{ id, key }];
      });
      place(gen, items, target);
      return;
    }
    default: {
      const never: never = change;
      throw new Error(`unknown vector change ${JSON.stringify(never)}`);
    }
  }
}

/**
 * An erasure in place: every owner an erased event drops (or replaces with nothing, its items read
 * as []) loses its items, as a replay would leave it; nothing else moves.
 */
export function eraseVectorsInPlace(gen: VectorGeneration, erased: readonly RecordedEvent[], feed: VectorFeed): number {
  let dropped = 0;
  // One faiss removal at the end: one per owner rebuilt the id map and compacted the index each time (ADR 32).
  const staged = stageIndexWrites(gen.index);
  for (const event of erased) {
    for (const change of feed.changes(event)) {
      if (change.kind === 'drop' || (change.kind === 'replace' && change.items.length === 0)) {
        dropped += gen.itemsOf.get(change.owner)?.size ?? 0;
        drop(gen, change.owner, { index: staged.writes });
      }
    }
  }
  staged.commit();
  return dropped;
}

/**
 * The target of one page: the texts' keys computed once, their vectors read in one look-up when
 * the source can, the index writes held until the page ends (staged-index.ts).
 */
function pageTarget(gen: VectorGeneration, changes: readonly VectorChange[], source: VectorSource) {
  const staged = stageIndexWrites(gen.index);
  const keys = new Map<string, string>();
  const keyOf = (text: string): string => {
    let key = keys.get(text);
    if (key === undefined) keys.set(text, (key = source.keyOf(text)));
    return key;
  };
  const texts = changes.flatMap((c) => (c.kind === 'replace' ? c.items.map((item) => item.text) : []));
  const found = source.lookupMany?.(texts.map(keyOf));
  const lookup = found ? (key: string) => found.get(key) ?? source.lookup(key) : (key: string) => source.lookup(key);
  return { target: { index: staged.writes, lookup, keyOf }, commit: staged.commit };
}

/** Applies a page in order; an embedding missing from the cache leaves the item pending, never lost. */
export function applyVectorPage(gen: VectorGeneration, page: readonly RecordedEvent[], source: VectorSource, feed: VectorFeed): void {
  const fresh = page.filter((event) => event.globalPosition > gen.checkpoint);
  if (fresh.length === 1) return applyEvent(gen, fresh[0] as RecordedEvent, feed, directTarget(gen, source));
  const changes = fresh.map((event) => feed.changes(event));
  const { target, commit } = pageTarget(gen, changes.flat(), source);
  try {
    fresh.forEach((event, i) => applyEvent(gen, event, feed, target, changes[i]));
  } finally {
    // What was applied up to the checkpoint reaches the index, even when an event threw.
    commit();
  }
}

function applyEvent(gen: VectorGeneration, event: RecordedEvent, feed: VectorFeed, target: PageTarget, changes = feed.changes(event)): void {
  for (const change of changes) applyChange(gen, change, target);
  gen.checkpoint = event.globalPosition;
}
