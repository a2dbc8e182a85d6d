// The README's demo runs end to end on embedded defaults (one SQLite file, the recorded model, no
// network), and the CLI works on the database it leaves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { openSqlite } from 'memcore/adapters/sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'node_modules', '.bin', 'memcore');

test('the demo shows the whole lifecycle in one SQLite file, and the CLI reads it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'memcore-demo-'));
  const env = { ...process.env, MEMCORE_DEMO_DIR: dir };
  delete env.MEMCORE_MODEL_BASE_URL;
  const run = spawnSync(process.execPath, [join(root, 'scripts', 'demo.mjs')], { env, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const out = run.stdout;
  assert.match(out, /model: +recorded model/);
  const outcomes = [...out.matchAll(/^outcome: ([a-z-]+)/gm)].map((m) => m[1]);
  assert.deepEqual(outcomes, ['updated', 'gate-noop', 'updated', 'updated', 'gate-noop', 'updated', 'updated', 'model-noop']);
  assert.equal([...out.matchAll(/^notice: show "🧠 Updating context memory…", then clear$/gm)].length, 6);
  assert.equal([...out.matchAll(/^notice: none$/gm)].length, 2);
  assert.match(out, /^injected into the system prompt: nothing \(no profile yet\)$/m);
  assert.equal([...out.matchAll(/^   │ # What I know about you$/gm)].length, 7);
  assert.match(out, /\+ - Head of model validation, based in Basel\./);
  assert.match(out, /✅ Forgotten: favorite_color/);
  assert.match(out, /^dream: pruned 1, contradictions language \(agent-456 vs agent-789\), summarized 3, calls 1, cost \$0\.0000\d\d$/m);
  assert.match(out, /^   writing_style = Short answers; tables whenever numbers are compared; .+ \[preference, self, agent-456, dream-consolidation\]$/m);
  assert.doesNotMatch(out, /q1_project = /);
  assert.match(out, /^   memcore_dream_entries_summarized_total 3$/m);

  assert.match(out, /^storage: +SQLite .*memcore\.db \(profiles and entries, schema v\d+\)$/m);

  // Everything is in the one SQLite file: the profile (checked by the CLI) and the entries.
  const db = await openSqlite(join(dir, 'memcore.db'));
  const stored = await db.read('user-memory/user_123/memory.md');
  const entries = await db.list('user_123');
  await db.close();
  assert.ok(entries.some((e) => e.key === 'dog_name' && e.value === 'Rex'));
  assert.ok(entries.some((e) => e.sourceConversationId === 'dream-consolidation'));
  const file = join(dir, 'exported.md');
  writeFileSync(file, stored.text);
  const check = spawnSync(bin, ['check', file], { encoding: 'utf8' });
  assert.equal(check.status, 0, check.stdout + check.stderr);
  const show = spawnSync(bin, ['show', '--user', 'user_123', '--db', join(dir, 'memcore.db')], { encoding: 'utf8' });
  assert.equal(show.status, 0, show.stderr);
  assert.match(show.stdout, /- Prefers British spelling\./);
  assert.ok(!show.stdout.includes('turn_count'));
  assert.match(show.stderr, /turn_count 5/);
});
