// Version-conflict contention: N processes, each doing 12 turns of one user back to back (no think
// time: the worst case) over one FileSystemProfileStorage directory — how many turns give up
// (`write-failed`, version-conflict) with 3 retries and no backoff (before issue 19), with 3
// retries and the backoff, and with the defaults (5 retries and the backoff; docs/internals/decisions.md,
// "Conflict backoff"). Usage: node scripts/bench/contention.mjs [rounds]
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { body } from '../../tests/js/fixtures/turn-model.mjs';

const child = fileURLToPath(new URL('../../tests/js/fixtures/contention-child.mjs', import.meta.url));
const STORED = `---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-06-01T00:00:00+00:00\nturn_count: 4\n---\n\n${body('- Ana, analyst')}`;
const rounds = Number(process.argv[2] ?? 5);

async function round(writers, config) {
  const base = mkdtempSync(join(tmpdir(), 'memcore-contention-'));
  try {
    mkdirSync(join(base, 'user-memory', 'u1'), { recursive: true });
    writeFileSync(join(base, 'user-memory/u1/memory.md'), STORED);
    const env = { ...process.env, MEMCORE_CONTENTION_CONFIG: JSON.stringify(config) };
    const kids = Array.from({ length: writers }, (_, w) => {
      const p = spawn(process.execPath, [child, base, String(w), '12'], { stdio: ['pipe', 'pipe', 'inherit'], env });
      let out = '';
      p.stdout.on('data', (d) => (out += d));
      return { p, done: new Promise((resolve) => p.on('exit', () => resolve(out))) };
    });
    for (const k of kids) k.p.stdin.write('go\n');
    return (await Promise.all(kids.map((k) => k.done))).flatMap((out) => JSON.parse(out.trim()));
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

console.log(`| writers | configuration | turns | gave up | re-consolidations |\n|---|---|---|---|---|`);
for (const writers of [2, 3, 4]) {
  for (const [name, config] of [['3 retries, no backoff', { conflictBackoffMs: 0, maxConflictRetries: 3 }], ['3 retries, backoff', { maxConflictRetries: 3 }], ['defaults (5 retries, backoff)', {}]]) {
    let turns = 0;
    let gaveUp = 0;
    let retries = 0;
    for (let r = 0; r < rounds; r++) {
      const reports = await round(writers, config);
      turns += reports.length;
      gaveUp += reports.filter((x) => x.outcome !== 'updated').length;
      retries += reports.reduce((n, x) => n + x.attempts - 1, 0);
    }
    console.log(`| ${writers} | ${name} | ${turns} | ${gaveUp} | ${retries} |`);
  }
}
