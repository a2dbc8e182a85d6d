// The search typings as a user writes against them (compiled by the test command with
// tsconfig.json): modes in the config, the embedder on the tools and the operations, the
// relevant entries, reindexing, load's entries, and a store with the vector methods.
import {
  ContextMemory,
  createMemoryTools,
  InMemoryEntryStore,
  reindexEmbeddings,
  relevantMemories,
  searchUserMemories,
  type Embedder,
  type Entry,
  type EntryStore,
  type LoadResult,
  type RelevantMemories,
  type ReindexReport,
  type SearchMode,
  type StoredVector,
  type UnembeddedQuery,
  type UserMemoryConfigInput,
  type VectorWrite,
} from 'memcore';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import { openAIEmbeddings } from 'memcore/adapters/openai';

const embedder: Embedder = openAIEmbeddings({ baseURL: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text' });
const mode: SearchMode = 'hybrid';
const config: UserMemoryConfigInput = { search: { mode, language: 'de', limit: 5 } };
const store = new InMemoryEntryStore();

const tools = createMemoryTools({ store, userId: 'u1', agentId: 'a1', config, embedder, embedTimeoutMs: 5000, log: (e) => console.log(e.event) });
void tools.call('searchMemory', { query: 'what is my dog called' });

async function run(): Promise<void> {
  const found: Entry[] = await searchUserMemories(store, 'u1', 'where do I work', { mode: 'ranked', limit: 3, embedder });
  const relevant: RelevantMemories = await relevantMemories({ store, embedder, userId: 'u1', agentId: 'a1', query: 'dog', maxTokens: 200, limit: 5 });
  const report: ReindexReport = await reindexEmbeddings(store, embedder, { userId: 'u1' });
  const memory = new ContextMemory({ storage: new InMemoryProfileStorage(), entries: store, embedder });
  const loaded: LoadResult = await memory.load({ userId: 'u1', enabled: true, entries: { query: 'dog', maxTokens: 100, agentId: 'a1' } });
  console.log(found.length, relevant.section, relevant.tokens, report.embedded, report.error ?? '', loaded.relevant?.tokens ?? 0);
}
void run();

// A host store with the vector methods.
const vectors = new Map<string, StoredVector & { model: string }>();
const own: EntryStore = {
  list: () => [],
  get: () => null,
  upsert: () => {},
  delete: () => true,
  incrementAccess: () => {},
  vectors: (_userId: string, model: string): StoredVector[] => [...vectors.values()].filter((v) => v.model === model),
  putVectors: (rows: VectorWrite[]): number => {
    for (const row of rows) vectors.set(row.id, { id: row.id, vector: row.vector, model: row.model });
    return rows.length;
  },
  unembedded: (query: UnembeddedQuery): Entry[] => (query.limit > 0 ? [] : []),
};
void own;

// A host store with a search index: an InMemoryEntryStore mirror loaded in one call.
const mirror = new InMemoryEntryStore();
const loaded: number = mirror.load([], { model: 'm', rows: [{ id: 'e1', vector: new Uint8Array([1, 2]) }] });
const indexed: EntryStore = { ...own, searchIndex: async (_userId: string, model: string | null) => (model === null ? mirror : null) };
void [loaded, indexed];
