// `import 'memcore/tokenizer/cl100k_base'` in an edge function (Next.js, Vercel Edge): names the
// table's file, so the bundler ships it (the edge entry names only o200k_base), and starts
// loading it; `ready('cl100k_base')` waits for it.
import { addTableUrl } from '../fetch-tables.js';
import { ready } from '../api.js';
import { whenTableSources } from '../wire.js';

addTableUrl('cl100k_base', () => new URL('./cl100k_base.bin', import.meta.url));
whenTableSources(() => ready('cl100k_base').catch(() => {}));
