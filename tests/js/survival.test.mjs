// The repros that used to kill the Node process or poison the instance for good (issue 8, items
// 1, 2 and 4), each in its own child process: the process must exit 0, the call must fail with a
// clear code (or a tool answer), and the next call must work. A forced trap proves the last line of
// defence: E_INTERNAL, a replaced instance, and what state is lost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const child = fileURLToPath(new URL('./fixtures/survival-child.mjs', import.meta.url));
let survived = 0;

function run(name) {
  const r = spawnSync(process.execPath, [child, name], { encoding: 'utf8', timeout: 60000 });
  assert.equal(r.status, 0, `${name}: the process died (${r.status}): ${r.stderr}`);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.at(-1), 'done', name);
  survived += 1;
  return JSON.parse(lines.at(-2));
}

test('values that used to exit the process are E_ARGUMENT / E_HOST, and the process lives on', () => {
  const deep = run('deep-merge');
  assert.equal(deep.first.code, 'E_ARGUMENT');
  assert.match(deep.first.message, /nested too deeply/);
  const cyclic = run('cyclic-tool-value');
  assert.equal(cyclic.first.ok, "⚠️ Invalid arguments: expected a JSON object with the tool's parameters.");
  const hostDeep = run('host-list-deep');
  assert.equal(hostDeep.first.code, 'E_HOST');
  const hostCyclic = run('host-list-cyclic');
  assert.equal(hostCyclic.first.code, 'E_HOST');
  assert.match(hostCyclic.first.message, /contains a cycle|cannot be read as JSON/);
  const getter = run('getter-entry');
  assert.equal(getter.first.ok, '❌ Failed to recall memory: store.list returned a value that cannot be read as JSON: reading it threw (boom)');
  assert.match(getter.second.ok, /^❌ Failed to search memory: /);
  for (const r of [deep, cyclic, hostDeep, hostCyclic, getter]) {
    assert.equal(r.alive, true);
    assert.equal(r.instance.replaced, 0, 'no trap happened');
  }
});

test('a trap: E_INTERNAL, the instance is replaced, stateless calls and ContextMemory work, an InMemoryEntryStore is lost', () => {
  const r = run('trap-sync');
  assert.equal(r.first.code, 'E_INTERNAL');
  assert.match(r.first.message, /RuntimeError: unreachable.*instance was replaced/);
  assert.equal(r.oldStore.code, 'E_INTERNAL');
  assert.match(r.oldStore.message, /lived in a memcore instance that failed/);
  assert.equal(r.contextMemory.ok, 'true');
  assert.equal(r.newStore.ok, '1');
  assert.equal(r.alive, true);
  assert.equal(r.instance.replaced, 1);
  assert.equal(r.instance.status, 'ready');
});

test('a trap inside an async call rejects that call with E_INTERNAL instead of killing the process', () => {
  const r = run('trap-async');
  assert.equal(r.first.code, 'E_INTERNAL');
  assert.equal(r.alive, true);
  assert.equal(r.instance.replaced, 1);
  const tool = run('trap-in-tool');
  assert.match(tool.first.ok, /^❌ Failed to recall memory: memcore internal error/);
  assert.match(tool.second.ok, /^❌ Failed to store memory: /);
  assert.equal(tool.alive, true);
});

test('fault tally', () => {
  console.log(`survival: ${survived} hostile processes run, ${survived} survived`);
  assert.equal(survived, 8);
});
