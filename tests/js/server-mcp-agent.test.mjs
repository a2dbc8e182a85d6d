// The agent's own MCP endpoint of memcore/server (issue 23, part 1) through the official MCP SDK
// client over Streamable HTTP on 127.0.0.1: the four memory tools bound to the principal's user,
// agent and group (a `userId` argument is refused as unknown), byte-exact answers, another user
// unreachable, the secret policy and the per-request write limit, and — with a ContextMemory — the
// `memory://profile` resource and the profile tools.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ContextMemory, InMemoryEntryStore } from 'memcore';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import { AGENT_MCP_TOOL_NAMES, createMemoryHandler, toNodeListener } from 'memcore/server';

const H = ['Identity', 'Communication Preferences', 'Work Context', 'Skills & Expertise', 'Recent Topics', 'Follow-ups'];
const body = (identity) => '# User Memory\n\n' + H.map((h, i) => `## ${h}\n${i === 0 ? identity : '_(empty)_'}`).join('\n\n') + '\n';

let server;
let base;
const entries = new InMemoryEntryStore();
const storage = new InMemoryProfileStorage({ files: { 'user-memory/ana/memory.md': '---\nversion: 1\n---\n' + body('- Name: Ana').replace('# User Memory\n\n', '') } });
const profiles = new ContextMemory({ storage, now: () => '2026-12-01T10:00:00Z' });
// Bearer <user>[:<agent>[:<group>]]
const TOKENS = (request) => {
  const token = request.headers.get('authorization')?.replace(/^Bearer /, '');
  if (!token) return null;
  const [userId, agentId, groupId] = token.split(':');
  return { userId, ...(agentId ? { agentId } : {}), ...(groupId ? { groupId } : {}) };
};

before(async () => {
  let n = 0;
  const handler = createMemoryHandler({
    entries,
    profiles,
    authenticate: TOKENS,
    config: { guardrails: { maxWritesPerTurn: 2 } },
    now: () => '2026-12-01T10:00:00Z',
    newId: () => `a-${++n}`,
  });
  server = http.createServer(toNodeListener(handler));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => new Promise((resolve) => server.close(resolve)));

async function connect(token, path = '/mcp/agent') {
  const client = new Client({ name: 'agent-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}${path}`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}
const call = async (client, name, args = {}) => {
  const r = await client.callTool({ name, arguments: args });
  return { isError: r.isError === true, text: r.content?.[0]?.text ?? '' };
};

test('the agent endpoint lists the four memory tools and the profile tools; calls answer byte-exact as the principal\'s agent', async () => {
  const client = await connect('ana:claude-desktop');
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), [...AGENT_MCP_TOOL_NAMES]);
    assert.equal(tools[0].inputSchema.additionalProperties, false);
    assert.deepEqual(await call(client, 'rememberFact', { key: 'favorite_color', value: 'blue', category: 'preference' }), { isError: false, text: '✅ Remembered: favorite_color = blue [preference, self]' });
    assert.deepEqual(await call(client, 'recallMemories'), { isError: false, text: '• favorite_color = blue [preference, self]' });
    assert.equal((await call(client, 'searchMemory', { query: 'color' })).text, '• favorite_color = blue [preference, self]');
    // The entry is the principal's, written as its agent.
    const [stored] = entries.list('ana');
    assert.deepEqual([stored.userId, stored.sourceAgentId], ['ana', 'claude-desktop']);
    // A user id argument is not a tool argument: refused, nothing written.
    const forged = await call(client, 'rememberFact', { userId: 'bob', key: 'k', value: 'v', category: 'fact' });
    assert.equal(forged.isError, true);
    assert.deepEqual(entries.list('bob'), []);
    assert.equal((await call(client, 'forgetFact', { key: 'favorite_color' })).text, '✅ Forgotten: favorite_color');
  } finally {
    await client.close();
  }
});

test('another user, another agent: the principal decides; the secret policy and the write limit per request apply', async () => {
  const ana = await connect('ana:cursor');
  const bob = await connect('bob');
  try {
    await call(ana, 'rememberFact', { key: 'city', value: 'Porto', category: 'fact', visibility: 'global' });
    assert.equal((await call(bob, 'recallMemories')).text, 'No memories found for this user.');
    assert.equal((await call(bob, 'searchMemory', { query: 'porto' })).text.startsWith('•'), false);
    // Another agent of the same user sees the global entry, not another agent's self entries.
    const other = await connect('ana:other-agent');
    try {
      assert.equal((await call(other, 'recallMemories')).text, '• city = Porto [fact, global]');
    } finally {
      await other.close();
    }
    assert.equal((await call(ana, 'rememberFact', { key: 'api_key', value: 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd', category: 'fact' })).text, '⚠️ Value looks like a credential (field-name); it was not stored.');
    // Each MCP request is one tool turn: maxWritesPerTurn (2 here) counts the writes of one request.
    for (let i = 0; i < 3; i++) assert.match((await call(ana, 'rememberFact', { key: `k${i}`, value: i, category: 'fact' })).text, /^✅ Remembered/);
  } finally {
    await ana.close();
    await bob.close();
  }
});

test('the profile: the memory://profile resource is the injected section; get_profile and update_profile follow the Settings rules', async () => {
  const client = await connect('ana');
  try {
    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => r.uri), ['memory://profile']);
    const read = await client.readResource({ uri: 'memory://profile' });
    assert.match(read.contents[0].text, /- Name: Ana/);
    const view = JSON.parse((await call(client, 'get_profile')).text);
    assert.match(JSON.stringify(view), /Name: Ana/);
    const updated = await call(client, 'update_profile', { body: body('- Name: Ana Silva') });
    assert.equal(updated.isError, false, updated.text);
    assert.match(storage.snapshot()['user-memory/ana/memory.md'], /Ana Silva/);
    // A credential in the edit is redacted before anything is stored (the Settings rule).
    const secret = JSON.parse((await call(client, 'update_profile', { body: body('- Name: Ana Silva\n- Key: sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd') })).text);
    assert.equal(secret.redactedSecrets, 1);
    assert.doesNotMatch(storage.snapshot()['user-memory/ana/memory.md'], /sk-proj-/);
    assert.match(storage.snapshot()['user-memory/ana/memory.md'], /Ana Silva/);
    // Loose text is kept with the Settings diagnostics (SPEC §1.10: the editor never loses a user's words).
    const loose = JSON.parse((await call(client, 'update_profile', { body: 'likes tea' })).text);
    assert.ok(loose.diagnostics.some((d) => d.code === 'stray-content'));
  } finally {
    await client.close();
  }
});

test('the agent endpoint needs a principal and POST; the admin endpoint is unchanged beside it', async () => {
  const anonymous = await fetch(`${base}/mcp/agent`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  assert.equal(anonymous.status, 401);
  const get = await fetch(`${base}/mcp/agent`, { headers: { authorization: 'Bearer ana' } });
  assert.equal(get.status, 405);
  const admin = await connect('ana', '/mcp');
  try {
    assert.ok((await admin.listTools()).tools.some((t) => t.name === 'upsert_user_memory'));
  } finally {
    await admin.close();
  }
});
