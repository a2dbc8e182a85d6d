import * as m from 'memcore';
import { readFileSync } from 'node:fs';
const within = readFileSync('/tmp/within.md', 'utf8');
const p = m.parseProfile(within);
function t(name, fn, n = 5000) { for (let i = 0; i < 500; i++) fn(); const s = process.hrtime.bigint(); for (let i = 0; i < n; i++) fn(); console.log(name, (Number(process.hrtime.bigint() - s) / n / 1000).toFixed(2), 'µs'); }
t('parse', () => m.parseProfile(within));
t('render', () => m.renderProfile(p));
t('profileBody', () => m.profileBody(within));
