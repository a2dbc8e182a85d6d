// `import 'memcore/tokenizer/cl100k_base'`: make the cl100k_base table available. Where the entry reads or
// fetches tables itself (Node, browsers, edge) this starts loading it now instead of on first
// use; `ready('cl100k_base')` waits for it. Imported before 'memcore', the request waits for the entry.
import { ready } from '../api.js';
import { whenTableSources } from '../wire.js';

whenTableSources(() => ready('cl100k_base').catch(() => {}));
