// The adapters as the package publishes them: the exports map (fs is Node only), the files, and
// the typings compiled with `tsc --strict` against the installed package.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { typeErrors } from '../support/typecheck.mjs';

const require = createRequire(import.meta.url);
const pkgDir = join(require.resolve('memcore/package.json'), '..');
const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
const repo = fileURLToPath(new URL('../../', import.meta.url));

test('memory, openai and workers-ai adapters resolve in every runtime; fs only under the node condition', () => {
  for (const name of ['./adapters/memory', './adapters/openai', './adapters/workers-ai']) {
    const entry = manifest.exports[name];
    assert.ok(entry.default && entry.types, name);
    assert.ok(existsSync(join(pkgDir, entry.default)) && existsSync(join(pkgDir, entry.types)), name);
  }
  const fs = manifest.exports['./adapters/fs'];
  assert.deepEqual(Object.keys(fs).sort(), ['node', 'types']);
  assert.ok(existsSync(join(pkgDir, fs.node)) && existsSync(join(pkgDir, fs.types)));
  assert.ok(manifest.files.includes('adapters/**'));
});

test('the memory, openai and workers-ai adapters import nothing from node:', () => {
  const files = ['adapters/memory-storage.js', 'adapters/openai.js', 'adapters/openai-http.js', 'adapters/openai-embeddings.js', 'adapters/embedder-contract.js', 'adapters/workers-ai.js'];
  for (const file of [...files, 'adapters/storage-arguments.js', 'errors.js']) {
    assert.doesNotMatch(readFileSync(join(pkgDir, file), 'utf8'), /from 'node:/, file);
  }
});

test('errors of the adapters are the package MemcoreError', async () => {
  const { MemcoreError } = await import('memcore');
  const { InMemoryProfileStorage } = await import('memcore/adapters/memory');
  await assert.rejects(new InMemoryProfileStorage().write('p', 'x', { ifVersion: '1' }), (e) => e instanceof MemcoreError);
});

test('the adapter typings compile with tsc --strict against the installed package', (t) => {
  const dir = join(repo, 'target', 'adapters-types');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'usage.ts');
  writeFileSync(
    file,
    `import { MemcoreError } from 'memcore';
import { InMemoryProfileStorage, type ProfileStorage, type StoredProfile, type VersionConflictDetails } from 'memcore/adapters/memory';
import { FileSystemProfileStorage } from 'memcore/adapters/fs';
import { openAIChatModel, type ChatModel, type ModelErrorDetails } from 'memcore/adapters/openai';

export async function use(): Promise<string> {
  const stores: ProfileStorage[] = [new InMemoryProfileStorage({ files: { a: 'b' } }), new FileSystemProfileStorage({ baseDir: '.', beforeRename: async ({ tempPath }) => { void tempPath; } })];
  const memory = new InMemoryProfileStorage();
  const current: StoredProfile | null = await memory.read('user-memory/u1/memory.md');
  const { version } = await memory.write('user-memory/u1/memory.md', 'x', { ifVersion: current?.version ?? null, contentType: 'text/markdown', skipIngestion: true, hideInChat: true });
  const log: { path: string }[] = memory.writes;
  const files: Record<string, string> = memory.snapshot();
  const model: ChatModel = openAIChatModel({ baseURL: 'https://api.openai.com/v1', apiKey: 'k', model: 'm', timeoutMs: 1000, reasoningModel: true, headers: { 'x-a': 'b' }, fetch: (url, init) => fetch(url, init) });
  try {
    const answer = await model.complete({ purpose: 'gate', system: 's', user: 'u', maxOutputTokens: 4 });
    return answer.text + (answer.usage?.inputTokens ?? 0) + version + log.length + Object.keys(files).length + stores.length;
  } catch (e) {
    if (e instanceof MemcoreError && e.code === 'E_HOST') return String((e.details as unknown as ModelErrorDetails).transient);
    if (e instanceof MemcoreError && e.code === 'E_VERSION_CONFLICT') return String((e.details as unknown as VersionConflictDetails).actual);
    throw e;
  }
}
`,
  );
  assert.deepEqual(typeErrors(file), []);
});
