import * as m from 'memcore';
import { readFileSync } from 'node:fs';
const within = readFileSync('/tmp/within.md', 'utf8');
const p = m.parseProfile(within);
const s = performance.now();
for (let i = 0; i < 20000; i++) m.renderProfile(m.parseProfile(within));
console.log(((performance.now() - s) / 20000 * 1000).toFixed(1), 'µs per parse+render');
