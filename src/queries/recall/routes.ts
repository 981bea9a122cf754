import type { DocumentScope, MemoryDocument } from '../documents.js';
import type { GraphQueries } from '../graph.js';
import type { KeywordHit } from '../keyword.js';
import { inScope, type ScopeFilter } from './scope.js';
import type { ListFloors } from './fusion.js';
import type { ScoredId } from './types.js';
import { graphCandidates, type GraphCandidates, type GraphCandidatesRequest } from './graph-candidates.js';

/** What the routes read: the live read models, behind the smallest interfaces they need. */
export interface RouteSources {
  readonly keyword: {
    search(query: string, filter: ScopeFilter & { limit?: number }): KeywordHit[];
    /** The indexed tokens of memories' text, when the index keeps them (MMR compares by them). */
    tokensOf?(memoryIds: readonly string[]): ReadonlyMap<string, readonly string[]>;
  };
  readonly vectors: { search(query: Float32Array, k: number): Promise<ScoredId[]> };
  /** Vector search over graph entries: hits are entry ids. */
  readonly graphVectors: { search(query: Float32Array, k: number): Promise<ScoredId[]> };
  readonly graph: Pick<GraphQueries, 'searchAny' | 'nodesOf' | 'bestNeighbours' | 'memoriesOfEach' | 'entriesOfMemories'>;
  readonly documents: {
    getMany(ids: readonly string[]): Map<string, MemoryDocument>;
    /** Status and scope alone, cheaper than whole documents (see liveInScope). */
    scopesOf?(ids: readonly string[]): Map<string, DocumentScope>;
  };
  readonly embedQuery: (query: string) => Promise<Float32Array>;
  /** What the embedding provider embeds meaningfully; absent when it embeds every text. */
  readonly embedding?: EmbeddingReach;
  /**
   * The routes' keyword sides run elsewhere (a worker thread with its own connection), so that this
   * thread searches the vectors meanwhile; a null answer (not ready) or a failure runs them here.
   */
  readonly elsewhere?: {
    keyword(query: string, filter: KeywordRequest): Promise<KeywordHit[]> | null;
    graph(request: GraphCandidatesRequest): Promise<GraphCandidates> | null;
  };
}

/** A keyword search of the document route: the scope and how many. */
export type KeywordRequest = ScopeFilter & { readonly limit: number };

/** A provider's reach, as the routes need it: a text it cannot embed stays out of the vector lists. */
export interface EmbeddingReach {
  readonly provider: string;
  /** In words, e.g. "English". */
  readonly languages: string;
  covers(text: string): boolean;
}

export interface RouteLists {
  readonly keyword: ScoredId[];
  readonly vector: ScoredId[];
  /** What a memory missing from each list would score there (see floorNormalize); absent: 0. */
  readonly floors?: ListFloors;
}

/** A scored list cut to `limit`, and the score of the first one cut off (null when none was). */
interface Cut {
  readonly list: ScoredId[];
  readonly floor: number | null;
}

/** The routes of one recall look many of the same memories up: with this, each is read once per recall. */
export function withDocumentMemo<S extends RouteSources>(sources: S): S {
  const seen = new Map<string, MemoryDocument | null>();
  const getMany = (ids: readonly string[]): Map<string, MemoryDocument> => {
    const missing = [...new Set(ids.filter((id) => !seen.has(id)))];
    if (missing.length > 0) {
      const found = sources.documents.getMany(missing);
      for (const id of missing) seen.set(id, found.get(id) ?? null);
    }
    return new Map(ids.flatMap((id) => {
      const doc = seen.get(id);
      return doc ? [[id, doc] as const] : [];
    }));
  };
  return { ...sources, documents: { ...sources.documents, getMany } };
}

type Keep = (doc: MemoryDocument) => boolean;

const live = (doc: DocumentScope | undefined, filter: ScopeFilter): boolean => doc !== undefined && doc.status === 'active' && inScope(doc, filter);

const liveInScope = (sources: RouteSources, ids: readonly string[], filter: ScopeFilter, keep?: Keep): Set<string> => {
  // In a session, user or persona scope most hits fall outside it: only their scope is read, then whole documents of those in it.
  const scopes = Object.keys(filter).length > 0 ? sources.documents.scopesOf?.(ids) : undefined;
  const docs = sources.documents.getMany(scopes ? ids.filter((id) => live(scopes.get(id), filter)) : ids);
  return new Set(ids.filter((id) => {
    const doc = docs.get(id);
    return live(doc, filter) && (keep === undefined || keep(doc as MemoryDocument));
  }));
};

/** For vector hits: a memory the provider cannot embed has a vector that means nothing. */
const embedded = (sources: RouteSources): Keep | undefined => {
  const reach = sources.embedding;
  return reach ? (doc) => reach.covers(doc.text) : undefined;
};

/**
 * The first `limit` of a ranked list whose memories are active and in scope: the filter comes
 * before the cut, but documents are read a chunk at a time, only as far down as needed.
 */
function firstInScope(sources: RouteSources, ranked: readonly ScoredId[], filter: ScopeFilter, limit: number, keep?: Keep): ScoredId[] {
  const kept: ScoredId[] = [];
  // `limit` first, enough when all pass (most do in a global scope); then larger chunks.
  for (let start = 0, chunk = limit; start < ranked.length && kept.length < limit; start += chunk, chunk = Math.max(limit * 4, 16)) {
    const part = ranked.slice(start, start + chunk);
    const allowed = liveInScope(sources, part.map((h) => h.id), filter, keep);
    for (const hit of part) if (allowed.has(hit.id) && kept.length < limit) kept.push(hit);
  }
  return kept;
}

/** How deep both vector searches go for `limit` candidates: most hits may be out of scope. */
export const vectorDepth = (limit: number): number => Math.min(8192, limit * 8);

/** Vector hits filtered to the scope before the cut: asks for more than `limit`, keeps the first in scope. */
async function scopedVectorSearch(sources: RouteSources, vector: Float32Array, filter: ScopeFilter, limit: number): Promise<Cut> {
  const hits = await sources.vectors.search(vector, vectorDepth(limit));
  return { list: firstInScope(sources, hits, filter, limit, embedded(sources)), floor: deepest(hits, limit) };
}

/*
 * Every memory has a vector, so a vector list is always cut: the floor is the deepest similarity
 * fetched (k×8 deep), what a memory about something else scores. Used as such, a list whose best is
 * barely above it counts little, where min-max made its best 1 and its k-th 0.
 */
const deepest = (hits: readonly ScoredId[], limit: number): number | null => (hits.length > limit ? (hits.at(-1)?.score ?? null) : null);

/**
 * Graph entry vector hits as memories (each at its best entry's score), only those in `found`
 * (what the graph found by its entries and edges), filtered to the scope before the cut.
 */
function entryVectorCut(sources: RouteSources, hits: readonly ScoredId[], filter: ScopeFilter, limit: number, found: ReadonlySet<string>): Cut {
  if (found.size === 0) return { list: [], floor: null };
  // The found memories' entries, not the memory of every hit: a few memories against a hundred hits.
  const memoryOf = sources.graph.entriesOfMemories(found);
  const best = new Map<string, number>();
  for (const hit of hits) {
    const memoryId = memoryOf.get(hit.id);
    if (memoryId !== undefined && !best.has(memoryId)) best.set(memoryId, hit.score);
  }
  return { list: firstInScope(sources, [...best].map(([id, score]) => ({ id, score })), filter, limit, embedded(sources)), floor: deepest(hits, limit) };
}

const floors = (keyword: number | null, cut: Cut | null): ListFloors => ({
  ...(keyword === null ? {} : { keyword }),
  ...(cut?.floor == null ? {} : { vector: cut.floor }),
});

/** Document route: BM25 over FTS (filters inside the SQL) and vector search over FAISS. */
export async function documentRoute(sources: RouteSources, query: string, vector: Promise<Float32Array>, filter: ScopeFilter, limit: number): Promise<RouteLists> {
  // One more than needed: when it comes back, the list was cut and the next score is the floor.
  const request = { ...filter, limit: limit + 1 };
  const here = () => sources.keyword.search(query, request);
  const handed = sources.elsewhere?.keyword(query, request) ?? null;
  const searched = handed ? null : here();
  // A failing embedding or vector search leaves the keyword list standing.
  const cut = await vector.then((v) => scopedVectorSearch(sources, v, filter, limit)).catch(() => null);
  const found = (searched ?? (await elsewhereOrHere(handed, here))).map((h) => ({ id: h.memoryId, score: h.score }));
  const keyword = found.slice(0, limit);
  return { keyword, vector: cut?.list ?? [], floors: floors(found.length > limit ? (found[limit]?.score ?? null) : null, cut) };
}

/**
 * Graph route: keyword search over graph entries plus the memories of their nodes' neighbours
 * (1 or 2 hops, a second hop weighted down), and vector search over the graph entries' own vectors
 * that ranks those memories by meaning. The entry vectors add no memory of their own: an entry's
 * text is its memory's text plus labels, so their other hits echo the document route's vector
 * search and, fused again here, counted a weak vector match twice against a keyword match
 * (LoCoMo `turns`, hash vectors: recall@10 0.621 -> 0.646 with the relevance share of weighting.ts).
 */
export async function graphRoute(
  sources: RouteSources,
  query: string,
  vector: Promise<Float32Array>,
  filter: ScopeFilter,
  limit: number,
  hops: 1 | 2,
): Promise<RouteLists> {
  const request = { query, filter, limit, hops };
  const handed = sources.elsewhere?.graph(request) ?? null;
  const searchEntries = (v: Float32Array) => sources.graphVectors.search(v, vectorDepth(limit));
  // With the keyword side handed over, the entry vectors are searched here in the meantime.
  const early = handed ? vector.then(searchEntries) : null;
  if (early) await early.catch(() => null);
  const candidates = await elsewhereOrHere(handed, () => graphCandidates(sources.graph, request));
  let keyword = firstInScope(sources, candidates.ranked, filter, limit);
  // The scope left too few of a cut list: the rest of it decides.
  if (keyword.length < limit && candidates.cut) keyword = firstInScope(sources, graphCandidates(sources.graph, { ...request, whole: true }).ranked, filter, limit);
  // As in the document route, a failing embedding or vector search leaves the keyword list standing.
  const found = new Set(keyword.map((h) => h.id));
  const hits = found.size === 0 ? null : (early ?? vector.then(searchEntries));
  const cut = hits === null ? { list: [], floor: null } : await hits.then((h) => entryVectorCut(sources, h, filter, limit, found)).catch(() => null);
  return { keyword, vector: cut?.list ?? [], floors: floors(null, cut) };
}

/** The other thread's answer when it took the work (this thread's, should it fail), else this thread's. */
async function elsewhereOrHere<T>(handed: Promise<T> | null, here: () => T): Promise<T> {
  return handed ? handed.catch(here) : here();
}
