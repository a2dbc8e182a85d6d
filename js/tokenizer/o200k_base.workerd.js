// `import 'memcore/tokenizer/o200k_base'` in a Worker: the table as a Data module (wrangler's default
// rule for .bin), read synchronously when something first counts with o200k_base.
import bytes from './o200k_base.bin';
import { provideTable } from '../wire.js';

provideTable('o200k_base', () => new Uint8Array(bytes));
