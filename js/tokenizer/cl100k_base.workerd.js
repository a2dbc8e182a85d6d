// `import 'memcore/tokenizer/cl100k_base'` in a Worker: the table as a Data module (wrangler's default
// rule for .bin), read synchronously when something first counts with cl100k_base.
import bytes from './cl100k_base.bin';
import { provideTable } from '../wire.js';

provideTable('cl100k_base', () => new Uint8Array(bytes));
