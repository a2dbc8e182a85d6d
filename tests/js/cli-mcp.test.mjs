// `memcore mcp` (issue 23, part 2): the agent endpoint over stdio, started by the test as a real
// child process exactly as an MCP client config starts it (`memcore mcp --db FILE --user ID
// --agent ID`), driven by the official SDK's stdio client: the tools and the profile resource
// listed, byte-exact answers as that user and agent, a `userId` argument refused, and the data
// persisting across restarts of the process.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { AGENT_MCP_TOOL_NAMES } from 'memcore/server';
import { openSqlite } from 'memcore/adapters/sqlite';

const require = createRequire(import.meta.url);
const manifestPath = require.resolve('memcore/package.json');
const bin = join(dirname(manifestPath), JSON.parse(readFileSync(manifestPath, 'utf8')).bin.memcore);

let dir;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'memcore-cli-mcp-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Start `memcore mcp …args` as an MCP client config would, and connect the SDK's stdio client. */
async function start(args) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', ...args], cwd: dir, stderr: 'pipe' });
  const client = new Client({ name: 'cli-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}
const call = async (client, name, args = {}) => {
  const r = await client.callTool({ name, arguments: args });
  return { isError: r.isError === true, text: r.content?.[0]?.text ?? '' };
};

test('memcore mcp over stdio: tools and resource, byte-exact answers as the user and agent, a userId argument refused, data persisting across restarts', async () => {
  const db = join(dir, 'memory.db');
  const first = await start(['--db', db, '--user', 'ana', '--agent', 'claude-desktop']);
  try {
    assert.deepEqual((await first.listTools()).tools.map((t) => t.name), [...AGENT_MCP_TOOL_NAMES]);
    assert.deepEqual((await first.listResources()).resources.map((r) => r.uri), ['memory://profile']);
    assert.deepEqual(await call(first, 'rememberFact', { key: 'favorite_color', value: 'blue', category: 'preference' }), { isError: false, text: '✅ Remembered: favorite_color = blue [preference, self]' });
    assert.equal((await call(first, 'rememberFact', { userId: 'bob', key: 'x', value: 1, category: 'fact' })).isError, true);
  } finally {
    await first.close();
  }
  // Restarted: the same file, the same memory.
  const again = await start(['--db', db, '--user', 'ana', '--agent', 'claude-desktop']);
  try {
    assert.equal((await call(again, 'recallMemories')).text, '• favorite_color = blue [preference, self]');
  } finally {
    await again.close();
  }
  // Another user of the same file sees nothing of ana's.
  const bob = await start(['--db', db, '--user', 'bob']);
  try {
    assert.equal((await call(bob, 'recallMemories')).text, 'No memories found for this user.');
  } finally {
    await bob.close();
  }
  const store = await openSqlite(db);
  try {
    const rows = await store.list('ana');
    assert.deepEqual(rows.map((e) => [e.key, e.sourceAgentId]), [['favorite_color', 'claude-desktop']]);
    assert.deepEqual(await store.list('bob'), []);
  } finally {
    await store.close();
  }
});
