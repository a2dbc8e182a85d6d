// No lost update when turns of one new user race (issue 8, item 5): 2 ContextMemory instances ×
// 16 concurrent turns over one in-memory storage and over one directory of FileSystemProfileStorage,
// and 2 processes × 16 turns over one directory. Every turn must end `updated` and every bullet must
// be in the file — the first write is create-only (ifAbsent), later ones conditional (ifVersion).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ContextMemory } from 'memcore';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import { FileSystemProfileStorage } from 'memcore/adapters/fs';
import { turnModel } from './fixtures/turn-model.mjs';

const PATH = 'user-memory/u1/memory.md';
const facts = (text) => (text.match(/^- fact-/gm) ?? []).length;

async function race(storages) {
  const memories = storages.map((storage) => new ContextMemory({ storage, model: turnModel() }, { maxConflictRetries: 20 }));
  const turns = [];
  for (let i = 0; i < 16; i++) {
    memories.forEach((memory, worker) => {
      turns.push(memory.afterTurn({ userId: 'u1', enabled: true, userMessage: `fact-${worker}-${i}`, assistantMessage: 'ok' }));
    });
  }
  return Promise.all(turns);
}

test('2 instances × 16 turns of a new user over one in-memory storage: 0 lost updates', async () => {
  const tally = [];
  for (let round = 0; round < 3; round++) {
    const storage = new InMemoryProfileStorage();
    const reports = await race([storage, storage]);
    assert.ok(reports.every((r) => r.outcome === 'updated'), JSON.stringify(reports.map((r) => r.outcome)));
    assert.equal(facts(storage.snapshot()[PATH]), 32);
    assert.equal(storage.writes[0].options.ifAbsent, true);
    tally.push(reports.reduce((n, r) => n + r.attempts - 1, 0));
  }
  console.log(`in-memory: 3 rounds × 32 turns, 0 lost, re-consolidations per round: ${tally.join(', ')}`);
});

test('2 instances × 16 turns of a new user over one FileSystemProfileStorage directory: 0 lost updates', async (t) => {
  const tally = [];
  for (let round = 0; round < 3; round++) {
    const base = mkdtempSync(join(tmpdir(), 'memcore-race-'));
    t.after(() => rmSync(base, { recursive: true, force: true }));
    const reports = await race([new FileSystemProfileStorage({ baseDir: base }), new FileSystemProfileStorage({ baseDir: base })]);
    assert.ok(reports.every((r) => r.outcome === 'updated'), JSON.stringify(reports.map((r) => [r.outcome, r.reason])));
    assert.equal(facts(readFileSync(join(base, PATH), 'utf8')), 32);
    tally.push(reports.reduce((n, r) => n + r.attempts - 1, 0));
  }
  console.log(`fs, one process: 3 rounds × 32 turns, 0 lost, re-consolidations per round: ${tally.join(', ')}`);
});

test('2 processes × 16 turns of a new user over one directory: 0 lost updates', async (t) => {
  const child = fileURLToPath(new URL('./fixtures/turns-child.mjs', import.meta.url));
  const tally = [];
  for (let round = 0; round < 3; round++) {
    const base = mkdtempSync(join(tmpdir(), 'memcore-race-'));
    t.after(() => rmSync(base, { recursive: true, force: true }));
    const children = [0, 1].map((worker) => {
      const p = spawn(process.execPath, [child, base, String(worker), '16'], { stdio: ['pipe', 'pipe', 'inherit'] });
      let out = '';
      p.stdout.on('data', (d) => (out += d));
      return { p, done: new Promise((resolve) => p.on('exit', (code) => resolve({ code, out }))) };
    });
    for (const { p } of children) p.stdin.write('go\n');
    const results = await Promise.all(children.map((c) => c.done));
    const reports = results.flatMap(({ code, out }) => {
      assert.equal(code, 0);
      return JSON.parse(out.trim());
    });
    assert.ok(reports.every((r) => r.outcome === 'updated'), JSON.stringify(reports));
    assert.equal(facts(readFileSync(join(base, PATH), 'utf8')), 32);
    tally.push(reports.reduce((n, r) => n + r.attempts - 1, 0));
  }
  console.log(`fs, two processes: 3 rounds × 32 turns, 0 lost, re-consolidations per round: ${tally.join(', ')}`);
});
