// Typings for `memcore/tokenizer/fetch`.
import type { Encoding } from '../types/tokens.js';

/**
 * The bytes of a tokenizer table, fetched from the file the package ships (default: o200k_base),
 * for `loadTokenizer` of `memcore/slim` where the bundler emits the file (Next.js edge functions,
 * Vite, webpack). cl100k_base needs `import 'memcore/tokenizer/cl100k_base'` in an edge function.
 * Not for Node (whose `fetch` reads no `file:` URL: read the file,
 * `memcore/tokenizer/o200k_base.bin`) nor Workers (`import table from
 * 'memcore/tokenizer/o200k_base.bin'`).
 * @example
 * import { initSync, loadTokenizer } from 'memcore/slim';
 * import { fetchTokenizer } from 'memcore/tokenizer/fetch';
 * loadTokenizer(await fetchTokenizer());
 */
export function fetchTokenizer(encoding?: Encoding): Promise<Uint8Array>;
