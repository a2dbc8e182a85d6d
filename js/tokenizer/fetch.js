// `memcore/tokenizer/fetch`: a tokenizer table's bytes, fetched from the file the package ships —
// for `memcore/slim` where a bundler emits the files a module names with
// `new URL(…, import.meta.url)` (Next.js edge functions, Vite, webpack): `loadTokenizer(await
// fetchTokenizer())`. Naming the URL here is what makes the bundler ship the file: o200k_base
// always; cl100k_base in an edge function once `import 'memcore/tokenizer/cl100k_base'` is in it.
// Not for Workers (wrangler imports the `.bin` itself:
// `import t from 'memcore/tokenizer/o200k_base.bin'`).
import { fetchTable } from '../fetch-tables.js';

/**
 * The bytes of a tokenizer table, fetched (default: o200k_base). Rejects with the HTTP status, or
 * naming the import that bundles the table.
 * @example
 * import { fetchTokenizer } from 'memcore/tokenizer/fetch';
 * loadTokenizer(await fetchTokenizer());
 */
export function fetchTokenizer(encoding = 'o200k_base') {
  return fetchTable(encoding);
}
