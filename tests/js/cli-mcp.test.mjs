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

test('memcore mcp --tenant: the same user id in another tenant of the same file is another person; a bad tenant id is a usage error', async () => {
  const db = join(dir, 'tenants.db');
  const acme = await start(['--db', db, '--user', 'ana', '--tenant', 'acme']);
  try {
    assert.equal((await call(acme, 'rememberFact', { key: 'employer', value: 'Acme', category: 'fact' })).text, '✅ Remembered: employer = Acme [fact, self]');
  } finally {
    await acme.close();
  }
  for (const args of [['--user', 'ana'], ['--user', 'ana', '--tenant', 'globex']]) {
    const other = await start(['--db', db, ...args]);
    try {
      assert.equal((await call(other, 'recallMemories')).text, 'No memories found for this user.', args.join(' '));
    } finally {
      await other.close();
    }
  }
  const store = await openSqlite(db);
  try {
    assert.deepEqual((await store.forTenant('acme').list('ana')).map((e) => e.value), ['Acme']);
    assert.deepEqual(await store.list('ana'), []);
  } finally {
    await store.close();
  }
  const { spawnSync } = await import('node:child_process');
  const bad = spawnSync(process.execPath, [bin, 'mcp', '--db', db, '--user', 'ana', '--tenant', ' padded'], { cwd: dir, encoding: 'utf8', input: '' });
  assert.equal(bad.status, 2, bad.stderr);
  assert.match(bad.stderr, /--tenant: a tenant id must be a non-empty string/);
});

test('memcore mcp without --db serves the documented default, ./.memcore/memcore.db, created on first use', async () => {
  const cwd = mkdtempSync(join(dir, 'default-'));
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--user', 'a'], cwd, stderr: 'pipe', env: { ...process.env, MEMCORE_DATABASE_URL: '' } });
  const client = new Client({ name: 'cli-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    assert.equal((await call(client, 'rememberFact', { key: 'k', value: 'v', category: 'fact' })).text, '✅ Remembered: k = v [fact, self]');
  } finally {
    await client.close();
  }
  const store = await openSqlite(join(cwd, '.memcore', 'memcore.db'));
  try {
    assert.deepEqual((await store.list('a')).map((e) => e.key), ['k']);
  } finally {
    await store.close();
  }
});

test('memcore mcp --embed-url: the tools embed through an OpenAI-compatible endpoint and search by meaning; bad flags exit 2', async () => {
  const { createServer } = await import('node:http');
  // A loopback embeddings endpoint: bag-of-words vectors where "pet" and "dog" are one word.
  const SAME = { pet: 'dog', called: 'name' };
  const vocabulary = new Map();
  const vector = (text) => {
    const v = new Array(64).fill(0);
    for (const raw of text.toLowerCase().split(/[^a-z]+/).filter(Boolean)) {
      const word = SAME[raw] ?? raw;
      if (!vocabulary.has(word)) vocabulary.set(word, vocabulary.size % 64);
      v[vocabulary.get(word)] += 1;
    }
    return v;
  };
  const seen = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { input, model } = JSON.parse(body);
      seen.push({ url: req.url, model, auth: req.headers.authorization ?? null });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: input.map((t, index) => ({ index, embedding: vector(t) })), model }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/v1`;
  const db = join(dir, 'embed.db');
  try {
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--db', db, '--user', 'ana', '--embed-url', url, '--embed-model', 'bow-16'], cwd: dir, stderr: 'pipe', env: { ...process.env, MEMCORE_EMBED_API_KEY: 'k-123' } });
    const client = new Client({ name: 'cli-mcp-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      await call(client, 'rememberFact', { key: 'dog_name', value: 'Rex', category: 'fact' });
      await call(client, 'rememberFact', { key: 'favorite_color', value: 'blue', category: 'preference' });
      assert.equal((await call(client, 'searchMemory', { query: 'what is my pet called' })).text.split('\n')[0], '• dog_name = Rex [fact, self]');
    } finally {
      await client.close();
    }
    assert.ok(seen.length >= 3 && seen.every((s) => s.url === '/v1/embeddings' && s.model === 'bow-16' && s.auth === 'Bearer k-123'));
  } finally {
    server.close();
  }
  const { spawnSync } = await import('node:child_process');
  const alone = spawnSync(process.execPath, [bin, 'mcp', '--db', db, '--user', 'ana', '--embed-model', 'x'], { cwd: dir, encoding: 'utf8', input: '' });
  assert.equal(alone.status, 2, alone.stderr);
  assert.match(alone.stderr, /--embed-model needs --embed-url/);
  const badUrl = spawnSync(process.execPath, [bin, 'mcp', '--db', db, '--user', 'ana', '--embed-url', 'not a url'], { cwd: dir, encoding: 'utf8', input: '' });
  assert.equal(badUrl.status, 2, badUrl.stderr);
  assert.match(badUrl.stderr, /--embed-url/);
});
