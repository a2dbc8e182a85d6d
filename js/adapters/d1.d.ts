// Typings for `memcore/adapters/d1` (Cloudflare Workers D1; runs in workerd).
import type { SearchMirrorOptions, SqlStorage } from './sql-storage.js';

export type { CapOptions, CapResult, OldestOwnQuery, RecallQuery, SchemaNewerDetails, SearchMirrorOptions, SqlStorage } from './sql-storage.js';

/** The parts of a D1 binding (`env.DB`) the adapter uses (so no workers-types package is needed). */
export interface D1DatabaseLike {
  prepare(query: string): unknown;
  batch(statements: unknown[]): Promise<unknown[]>;
}

export interface D1Storage extends SqlStorage {
  /** The binding. */
  readonly database: D1DatabaseLike;
}

/**
 * Use a D1 binding as entry store + profile storage. Pending migrations run at open as one batch;
 * a newer schema is `E_HOST` `schema-newer`. `close()` is a no-op.
 * @example
 * import { openD1 } from 'memcore/adapters/d1';
 * export default {
 *   async fetch(request: Request, env: { DB: D1DatabaseLike }) {
 *     const db = await openD1(env.DB);
 *     const tools = createMemoryTools({ store: db, userId: 'u1', agentId: 'a1' });
 *     return new Response(await tools.call('recallMemories', {}));
 *   },
 * };
 */
export function openD1(binding: D1DatabaseLike, options?: D1Options): Promise<D1Storage>;

export interface D1Options {
  /**
   * Open the view of this tenant (docs/reference/storage.md, "Tenants"): every operation reads and writes
   * that tenant's rows only; absent, the default tenant. 1–128 UTF-8 bytes, no control character,
   * no edge whitespace (`E_CONFIG` otherwise).
   */
  tenant?: string;
  /**
   * The search mirror's bound (docs/reference/storage.md, "Search mirror"): `{ maxEntries }`, default
   * 100,000; 0 turns it off. A mirror lives as long as the store object: open the store once per
   * isolate (at module scope), not once per request, for ranked searches to reuse it.
   */
  searchMirror?: SearchMirrorOptions;
}
