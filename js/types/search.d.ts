// memcore typings: search by meaning (behaviour §8.2) — the search modes, relevant entries for the prompt, and filling in vectors.
import type { EpisodeHit } from './learn.js';
import type { Entry, EntryStore, InMemoryEntryStore, Json, UserMemoryConfigInput } from './entries.js';
import type { Embedder } from './embeddings.js';
import type { CountTokensFn, Encoding } from './tokens.js';
import type { LogEvent } from './context-memory.js';

/**
 * How search finds entries: `auto` (default) — `hybrid` with an embedder, `ranked` without;
 * `terms` — every word must occur, newest first (the original rule, byte-exact answers); `ranked` — BM25 over key and value with stop words and
 * stemming for `language`, any word, best first; `hybrid` — `ranked` fused with the cosine
 * similarity of the host's embeddings (reciprocal rank fusion, k = 60); without an embedder it
 * ranks as `ranked` and says so once in the log.
 */
export type SearchMode = 'auto' | 'terms' | 'ranked' | 'hybrid';

/** The languages of stop words and stemming. */
export type SearchLanguage = 'en' | 'de' | 'fr' | 'es' | 'pt' | 'it' | (string & {});

/** `userMemoryConfig.search`. */
export interface SearchConfigInput {
  /** Default `auto` (`hybrid` with an embedder, else `ranked`). */
  mode?: SearchMode;
  /** Default `en`. */
  language?: SearchLanguage;
  /** Most entries a `ranked` or `hybrid` search returns, 1–1000, default 10 (`terms` keeps `maxRecallEntries`). */
  limit?: number;
}

/** One stored vector of an entry, as a store answers `vectors`. */
export interface StoredVector {
  id: string;
  /** One signed byte per dimension (int8, two's complement). */
  vector: Uint8Array;
}

/** A vector to store: written only while entry `id` still has exactly `key` and `value`. */
export interface VectorWrite {
  id: string;
  key: string;
  value: Json;
  /** The model id that made it. */
  model: string;
  vector: Uint8Array;
}

/** What `unembedded` asks for: entries with no vector of `model` (none, or another model's). */
export interface UnembeddedQuery {
  model: string;
  /** Only this user's entries; absent → every user's. */
  userId?: string | null;
  /** Only ids after this one (ids ascending). */
  after?: string | null;
  limit: number;
}

/** The optional vector methods of an entry store (the bundled SQL and in-memory stores have them). */
export interface VectorStore {
  /** The user's stored vectors made by `model`. A store that keeps vectors clears an entry's vector when its key or value changes, and deletes it with the entry. */
  vectors?(userId: string, model: string): StoredVector[] | Promise<StoredVector[]>;
  /** Store vectors, each only while its entry still has that key and value; answers how many were written. */
  putVectors?(rows: VectorWrite[]): number | Promise<number>;
  /** Entries without a vector of `query.model`, ids ascending, at most `query.limit`. */
  unembedded?(query: UnembeddedQuery): Entry[] | Promise<Entry[]>;
  /**
   * A search index for a store outside the process: an `InMemoryEntryStore` holding the user's
   * entries (and their vectors of `model`, when not null) as the store holds them now, which the
   * core ranks in place for `ranked` and `hybrid` searches instead of listing every entry; `null`
   * → the core lists them. The core reads the entries it returns again with `get` and re-checks
   * their visibility, so a mirror may lag in `accessCount` only. The SQL adapters answer a mirror
   * validated by a revision the database keeps (docs/reference/storage.md, "Search mirror").
   * @example
   * const store = { ...myStore, searchIndex: async (userId, model) => (await upToDate(userId)) ? mirrors.get(userId) : null };
   */
  searchIndex?(userId: string, model: string | null): InMemoryEntryStore | null | Promise<InMemoryEntryStore | null>;
}

/** What the search functions take beside their own options: the embedder and its deadline. */
export interface EmbeddingOptions {
  /** The host's embedding model (`openAIEmbeddings`, `workersAIEmbeddings`, or your own). */
  embedder?: Embedder;
  /** The deadline of each embed call in ms, 1–3,600,000 (default 10,000). */
  embedTimeoutMs?: number;
  /** Receives `memory.embedding.failed` and `memory.search.lexical-only` events. */
  log?: (event: LogEvent) => void;
}

/** Options of `relevantMemories`. */
export interface RelevantMemoriesOptions extends EmbeddingOptions {
  store: EntryStore;
  userId: string;
  /** The agent that will see them: its own self/group entries and the global ones. */
  agentId: string;
  /** The turn's group, from `resolveGroupContext` only. */
  group?: string | null;
  /** The message the entries should be relevant to. */
  query: string;
  /** The budget of the whole section in tokens, counted exactly. */
  maxTokens: number;
  /** At most this many entries, 1–1000 (default 10). */
  limit?: number;
  /**
   * Also the user's most relevant episodes (the conversations memory learned from), under
   * `# Relevant conversation`, sharing `maxTokens`: the entries may take half first, the episodes
   * the rest, then the entries what the episodes left.
   */
  episodes?: boolean;
  /** Default `hybrid` (`terms` ranks as `ranked`). */
  mode?: SearchMode;
  /** The `userMemoryConfig` whose `search.language` applies. */
  config?: UserMemoryConfigInput;
  /** The built-in table to count with (default `o200k_base`). */
  encoding?: Encoding;
  /** A synchronous host counter instead of the built-in tables. */
  countTokens?: CountTokensFn;
  storeTimeoutMs?: number;
}

/** The relevant entries, ready for the prompt. */
export interface RelevantMemories {
  /** `# Relevant memories` and one `• key = value [category, visibility]` line per entry; `''` when nothing is relevant or nothing fits. */
  section: string;
  /** The exact token count of `section`. */
  tokens: number;
  /** The entries in it, best first. */
  entries: Entry[];
  /** The episodes in it, best first (with `episodes: true`; absent when none). */
  episodes?: EpisodeHit[];
}

/**
 * The visible entries most relevant to `query`, formatted for the system prompt within `maxTokens`.
 * @example const { section } = await relevantMemories({ store, embedder, userId: 'u1', agentId: 'a1', query: 'what is my dog called', maxTokens: 200 });
 */
export function relevantMemories(options: RelevantMemoriesOptions): Promise<RelevantMemories>;

/** What `reindexEmbeddings` did. */
export interface ReindexReport {
  /** Entries that got a vector of the embedder's model. */
  embedded: number;
  /** Entries still without one (a failure, or an entry that changed meanwhile). */
  missing: number;
  /** The first failure, when one happened (redacted). */
  error?: string;
}

/**
 * Give every entry without a vector of `embedder.model` one: entries stored while the embedder
 * failed, or every entry after a model change (vectors of different models never mix).
 * @example const report = await reindexEmbeddings(store, embedder, { userId: 'u1' });
 */
export function reindexEmbeddings(store: EntryStore, embedder: Embedder, options?: { userId?: string; storeTimeoutMs?: number; embedTimeoutMs?: number; log?: (event: LogEvent) => void }): Promise<ReindexReport>;
