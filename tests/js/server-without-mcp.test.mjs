// memcore/server without its optional MCP peers (@modelcontextprotocol/sdk, zod): the installed
// package copied into a project that has nothing else, so neither can be found. REST works; /mcp
// answers 501 E_MCP_UNAVAILABLE naming what to install; nothing throws.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';

const require = createRequire(import.meta.url);
const installed = dirname(realpathSync(require.resolve('memcore/package.json')));

test('REST without the MCP SDK installed; /mcp answers 501 with the install hint', (t) => {
  const project = mkdtempSync(join(tmpdir(), 'memcore-no-mcp-'));
  t.after(() => rmSync(project, { recursive: true, force: true }));
  cpSync(installed, join(project, 'node_modules', 'memcore'), { recursive: true });
  writeFileSync(join(project, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(project, 'main.js'), `
import { InMemoryEntryStore } from 'memcore';
import { createMemoryHandler, MCP_TOOL_NAMES } from 'memcore/server';
const handler = createMemoryHandler({ entries: new InMemoryEntryStore(), authenticate: () => ({ userId: 'u1' }), now: () => '2026-01-01T00:00:00Z', newId: () => 'e1' });
const put = await handler(new Request('http://x/usermemorystore/memories/', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userId: 'u1', key: 'k', value: 'v', visibility: 'global' }) }));
const get = await handler(new Request('http://x/usermemorystore/memories/u1'));
const mcp = await handler(new Request('http://x/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) }));
console.log(JSON.stringify({ put: put.status, get: get.status, entries: (await get.json()).length, mcp: mcp.status, error: (await mcp.json()).error, names: MCP_TOOL_NAMES.length }));
`);
  const run = spawnSync(process.execPath, ['main.js'], { cwd: project, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const out = JSON.parse(run.stdout);
  assert.equal(out.put, 201);
  assert.equal(out.get, 200);
  assert.equal(out.names, 11);
  assert.equal(out.mcp, 501);
  assert.equal(out.error.code, 'E_MCP_UNAVAILABLE');
  assert.match(out.error.message, /npm install @modelcontextprotocol\/sdk zod/);
});
