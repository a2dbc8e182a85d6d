// memcore/server's MCP endpoint through the official SDK client (Client +
// StreamableHTTPClientTransport) over real HTTP on 127.0.0.1: the eight tools listed and called,
// the same principal rules as REST for every tool, the write rules and the cap on upsert,
// confirmation, and argument checks. REST and MCP answer from the same core operations.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MCP_TOOL_NAMES } from 'memcore/server';
import { JsStore, STORES, as, startServer } from './fixtures/server-support.mjs';
import { setProcessingRestriction } from 'memcore';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

// The core's MCP tool definitions, through the package's internal wrapper (js/api/mcp.js, no
// export of the package): the same module memcore/server imports.
const pkgDir = dirname(createRequire(import.meta.url).resolve('memcore/package.json'));
const { mcpToolDefinitions } = await import(pathToFileURL(join(pkgDir, 'api', 'mcp.js')).href);

async function connect(base, headers, path = '/mcp') {
  const client = new Client({ name: 'memcore-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}${path}`), { requestInit: { headers } }));
  return client;
}

/** A tool call's JSON answer, and whether it is a tool error. */
async function tool(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  const text = result.content?.[0]?.text ?? '';
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { isError: result.isError === true, json, text };
}

const upsertArgs = (over = {}) => ({ userId: 'u1', key: 'city', value: 'Lisbon', visibility: 'global', ...over });

for (const [name, make] of Object.entries(STORES)) {
  describe(`the eight tools over ${name}`, () => {
    let s;
    let client;
    before(async () => {
      s = await startServer({ entries: make() });
      client = await connect(s.base, as('u1'));
    });
    after(async () => {
      await client.close();
      await s.close();
    });

    test('the server lists exactly the eight tools of SPEC §2.8 with their argument schemas', async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), [...MCP_TOOL_NAMES]);
      const schema = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema]));
      assert.deepEqual(schema.upsert_user_memory.required.sort(), ['key', 'userId', 'visibility']);
      assert.deepEqual(schema.upsert_user_memory.properties.visibility.enum, ['self', 'group', 'global']);
      assert.deepEqual(schema.delete_all_user_memories.required, ['userId']);
      assert.ok(schema.delete_all_user_memories.properties.confirmation);
      assert.ok(tools.every((t) => t.inputSchema.additionalProperties === false), 'exact argument checks');
      assert.deepEqual(schema.delete_user_memory.required, ['entryId']);
      assert.equal(schema.get_visible_memories.properties.limit.type, 'integer');
      assert.ok(tools.every((t) => typeof t.description === 'string' && t.description.length > 10));
    });

    test('each tool answers JSON, with the same rules as REST', async () => {
      const created = await tool(client, 'upsert_user_memory', upsertArgs());
      assert.equal(created.isError, false, created.text);
      assert.deepEqual([created.json.created, created.json.entry.id, created.json.entry.updatedAt], [true, 'id-001', '2026-12-01T10:00:00.000Z']);
      const own = await tool(client, 'upsert_user_memory', upsertArgs({ value: 'Porto', visibility: 'self', agentId: 'a' }));
      assert.deepEqual([own.json.entry.id, own.json.entry.sourceAgentId], ['id-002', 'a']);
      const group = await tool(client, 'upsert_user_memory', upsertArgs({ key: 'team', value: { n: 1 }, visibility: 'group', agentId: 'b', groupIds: ['G'] }));
      assert.equal(group.json.entry.id, 'id-003');
      const same = await tool(client, 'upsert_user_memory', upsertArgs());
      assert.deepEqual([same.json.unchanged, same.json.entry.id], [true, 'id-001']);

      const listed = await tool(client, 'list_user_memories', { userId: 'u1' });
      assert.deepEqual(new Set(listed.json.entries.map((e) => e.id)), new Set(['id-001', 'id-002', 'id-003']));
      const rest = await (await fetch(`${s.base}/usermemorystore/memories/u1`, { headers: as('u1') })).json();
      assert.deepEqual(listed.json, rest, 'MCP and REST list the same');

      const visible = await tool(client, 'get_visible_memories', { userId: 'u1', agentId: 'b', groupId: 'G', order: 'most_recent', limit: 10 });
      assert.deepEqual(new Set(visible.json.entries.map((e) => e.id)), new Set(['id-001', 'id-003']));
      const restVisible = await (await fetch(`${s.base}/usermemorystore/memories/u1/visible?agentId=b&groupId=G&order=most_recent&limit=10`, { headers: as('u1') })).json();
      assert.deepEqual(visible.json, restVisible, 'MCP and REST see the same');

      const found = await tool(client, 'search_user_memories', { userId: 'u1', query: 'city porto', mode: 'terms' });
      assert.deepEqual(found.json.entries.map((e) => e.id), ['id-002']);
      const byKey = await tool(client, 'get_memory_by_key', { userId: 'u1', key: 'city', agentId: 'a' });
      assert.equal(byKey.json.entry.id, 'id-002');
      const global = await tool(client, 'get_memory_by_key', { userId: 'u1', key: 'city' });
      assert.equal(global.json.entry.id, 'id-001');
      const missing = await tool(client, 'get_memory_by_key', { userId: 'u1', key: 'nothing' });
      assert.deepEqual([missing.isError, missing.json.error.code], [true, 'E_NOT_FOUND']);
      assert.deepEqual((await tool(client, 'count_user_memories', { userId: 'u1' })).json, { count: 3 });

      const deleted = await tool(client, 'delete_user_memory', { entryId: 'id-002' });
      assert.deepEqual([deleted.json.deleted, deleted.json.entry.key], [true, 'city']);
      const again = await tool(client, 'delete_user_memory', { entryId: 'id-002' });
      assert.deepEqual([again.isError, again.json.error.code], [true, 'E_NOT_FOUND']);

      await s.entries.upsert({ id: 'gdpr-1', userId: 'u1', key: '_gdpr_note', value: 1, category: 'fact', visibility: 'global', groupIds: [], createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' });
      const reserved = await tool(client, 'delete_user_memory', { entryId: 'gdpr-1' });
      assert.deepEqual([reserved.isError, reserved.json.error.code], [true, 'E_BAD_REQUEST']);
      const all = await tool(client, 'delete_all_user_memories', { userId: 'u1', confirmation: 'CONFIRM' });
      assert.deepEqual(all.json, { deleted: 2 });
      assert.deepEqual((await s.entries.list('u1')).map((e) => e.id), ['gdpr-1'], '_gdpr_ entries stay');
    });
  });
}

describe('the tools are the core\'s definitions', () => {
  test('every listed tool (name, description, inputSchema) is the core\'s definition, in order; the rules are the core\'s', async () => {
    const s = await startServer();
    const client = await connect(s.base, as('u1'));
    try {
      const { tools } = await client.listTools();
      const core = mcpToolDefinitions();
      assert.deepEqual(
        tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
        core.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
      );
      // Property order is what clients see: the core's, too.
      assert.deepEqual(tools.map((t) => Object.keys(t.inputSchema.properties)), core.map((t) => Object.keys(t.inputSchema.properties)));
      assert.deepEqual(core.map((t) => t.name), [...MCP_TOOL_NAMES]);
      assert.deepEqual(core.filter((t) => t.confirmation).map((t) => [t.name, t.confirmation.argument, t.confirmation.word]), [
        ['delete_all_user_memories', 'confirmation', 'CONFIRM'],
        ['delete_user_data', 'confirmation', 'CONFIRM'],
      ]);
      assert.deepEqual(core.filter((t) => t.adminOnly).map((t) => [t.name, t.adminOnly]), [['delete_user_data', { code: 'E_FORBIDDEN', message: 'delete_user_data is for administrators' }]]);
      const refused = await tool(client, 'delete_all_user_memories', { userId: 'u1', confirmation: 'confirm' });
      assert.deepEqual(refused.json.error, core[7].confirmation.refusal);
    } finally {
      await client.close();
      await s.close();
    }
  });
});

describe('principal rules for every tool', () => {
  let s;
  const clients = {};
  before(async () => {
    s = await startServer();
    clients.own = await connect(s.base, as('u1'));
    clients.other = await connect(s.base, as('u2'));
    clients.admin = await connect(s.base, as('root', { admin: true }));
  });
  after(async () => {
    for (const c of Object.values(clients)) await c.close();
    await s.close();
  });

  const calls = [
    ['list_user_memories', () => ({ userId: 'u1' })],
    ['get_visible_memories', () => ({ userId: 'u1', agentId: 'a' })],
    ['search_user_memories', () => ({ userId: 'u1', query: 'x' })],
    ['get_memory_by_key', () => ({ userId: 'u1', key: 'k0' })],
    ['count_user_memories', () => ({ userId: 'u1' })],
    ['upsert_user_memory', () => ({ userId: 'u1', key: `k-${Math.random()}`, value: 1, visibility: 'global' })],
    ['delete_user_memory', (id) => ({ entryId: id })],
    ['delete_all_user_memories', () => ({ userId: 'u1', confirmation: 'CONFIRM' })],
    ['get_memory_history', () => ({ userId: 'u1', key: 'k0' })],
  ];
  for (const [name, args] of calls) {
    for (const [who, allowed] of [['own', true], ['other', false], ['admin', true]]) {
      test(`${name} on u1's memory as ${who} user → ${allowed ? 'answered' : 'E_FORBIDDEN'}`, async () => {
        const seeded = await tool(clients.own, 'upsert_user_memory', { userId: 'u1', key: 'k0', value: Math.random(), visibility: 'global' });
        const r = await tool(clients[who], name, args(seeded.json.entry.id));
        if (allowed) assert.equal(r.isError, false, r.text);
        else {
          assert.deepEqual([r.isError, r.json.error.code], [true, 'E_FORBIDDEN']);
          assert.ok((await s.entries.get(seeded.json.entry.id)) !== null, 'nothing was deleted');
        }
      });
    }
  }

  test('no principal: the MCP request is refused with 401 before any tool runs', async () => {
    await assert.rejects(connect(s.base, {}), (error) => error.code === 401 || /401/.test(error.message));
    const r = await fetch(`${s.base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
    assert.deepEqual([r.status, (await r.json()).error.code], [401, 'E_UNAUTHENTICATED']);
  });

  test('while the user is restricted (SPEC §4.3) upsert_user_memory stores nothing: E_RESTRICTED; reads still work', async () => {
    await setProcessingRestriction(s.entries, 'r1', true, { admin: true, now: () => '2026-12-01T10:00:00Z', newId: () => 'r1-flag' });
    const refused = await clients.admin.callTool({ name: 'upsert_user_memory', arguments: { userId: 'r1', key: 'k', value: 'v', visibility: 'global' } });
    assert.equal(refused.isError, true);
    assert.equal(JSON.parse(refused.content[0].text).error.code, 'E_RESTRICTED');
    const count = await clients.admin.callTool({ name: 'count_user_memories', arguments: { userId: 'r1' } });
    assert.deepEqual(JSON.parse(count.content[0].text), { count: 0 });
  });

  test('delete_user_data (SPEC §4.3): administrators only, with confirmation; erases entries and the profile', async () => {
    const { tools } = await clients.admin.listTools();
    assert.ok(tools.some((t) => t.name === 'delete_user_data'));
    const own = await clients.own.callTool({ name: 'delete_user_data', arguments: { userId: 'u1', confirmation: 'CONFIRM' } });
    assert.equal(own.isError, true, 'a user may not erase through the admin tool, not even themselves');
    assert.equal(JSON.parse(own.content[0].text).error.code, 'E_FORBIDDEN');
    const other = await clients.other.callTool({ name: 'delete_user_data', arguments: { userId: 'u1', confirmation: 'CONFIRM' } });
    assert.equal(JSON.parse(other.content[0].text).error.code, 'E_FORBIDDEN');
    const unconfirmed = await clients.admin.callTool({ name: 'delete_user_data', arguments: { userId: 'u1' } });
    assert.equal(JSON.parse(unconfirmed.content[0].text).error.code, 'E_BAD_REQUEST');
    await clients.admin.callTool({ name: 'upsert_user_memory', arguments: { userId: 'gdpr-user', key: 'k', value: 'v', visibility: 'global' } });
    const erased = await clients.admin.callTool({ name: 'delete_user_data', arguments: { userId: 'gdpr-user', confirmation: 'CONFIRM' } });
    assert.equal(erased.isError, undefined, erased.content[0].text);
    const report = JSON.parse(erased.content[0].text);
    assert.equal(report.userId, 'gdpr-user');
    assert.deepEqual(report.entries, [1]);
    const count = await clients.admin.callTool({ name: 'count_user_memories', arguments: { userId: 'gdpr-user' } });
    assert.equal(JSON.parse(count.content[0].text).count, 0);
  });
});

describe('bad tool calls', () => {
  let s;
  let client;
  before(async () => {
    s = await startServer({ entries: new JsStore(), config: { maxEntriesPerUser: 2, onCapReached: 'reject' } });
    client = await connect(s.base, as('u1'));
  });
  after(async () => {
    await client.close();
    await s.close();
  });

  test('wrong argument types are tool errors naming the argument; nothing is written', async () => {
    const bad = [
      ['list_user_memories', { userId: 5 }, 'userId'],
      ['list_user_memories', {}, 'userId'],
      ['get_visible_memories', { userId: 'u1', agentId: 'a', limit: '10' }, 'limit'],
      ['get_visible_memories', { userId: 'u1', agentId: 'a', limit: 2.5 }, 'limit'],
      ['get_visible_memories', { userId: 'u1', agentId: 'a', order: 'oldest' }, 'order'],
      ['search_user_memories', { userId: 'u1', query: ['x'] }, 'query'],
      ['upsert_user_memory', { userId: 'u1', key: 'k', visibility: 'everyone' }, 'visibility'],
      ['upsert_user_memory', { userId: 'u1', key: 'k', visibility: 'group', groupIds: 'G' }, 'groupIds'],
      ['delete_user_memory', { entryId: 7 }, 'entryId'],
      ['delete_all_user_memories', { userId: 'u1', confirmation: true }, 'confirmation'],
      // Exact: an argument the tool does not know is refused, not ignored.
      ['upsert_user_memory', { userId: 'u1', key: 'k', visibility: 'self', sourceAgentId: 'a' }, 'sourceAgentId'],
      ['count_user_memories', { userId: 'u1', userID: 'u2' }, 'userID'],
    ];
    for (const [name, args, field] of bad) {
      const r = await tool(client, name, args);
      assert.equal(r.isError, true, `${name} ${JSON.stringify(args)}`);
      assert.match(r.text, new RegExp(field), `${name}: ${r.text}`);
    }
    assert.deepEqual(s.entries.entries, []);
  });

  test('limit out of range is a tool error with the violation (the core\'s rule, as over REST)', async () => {
    for (const limit of [-1, 0, 1e9]) {
      const r = await tool(client, 'get_visible_memories', { userId: 'u1', agentId: 'a', limit });
      assert.deepEqual([r.isError, r.json.error.violations[0].field], [true, 'limit']);
    }
  });

  test('upsert obeys the write rules (every violation), _gdpr_ keys and the cap', async () => {
    const r = await tool(client, 'upsert_user_memory', { userId: 'u1', key: '_gdpr_processing_restricted', visibility: 'self', category: 'secret' });
    assert.equal(r.isError, true);
    assert.deepEqual(r.json.error.violations.map((v) => v.field), ['key', 'agentId', 'category']);
    const spaced = await tool(client, 'upsert_user_memory', { userId: 'u1', key: ' _gdpr_x', visibility: 'global' });
    assert.deepEqual(spaced.json.error.violations.map((v) => v.field), ['key']);
    const noAgent = await tool(client, 'upsert_user_memory', { userId: 'u1', key: 'k', visibility: 'self' });
    assert.deepEqual(noAgent.json.error.violations.map((v) => v.field), ['agentId'], 'MCP names the agent agentId');
    for (const key of ['a', 'b']) assert.equal((await tool(client, 'upsert_user_memory', { userId: 'u1', key, value: 1, visibility: 'self', agentId: 'x' })).isError, false);
    const full = await tool(client, 'upsert_user_memory', { userId: 'u1', key: 'c', value: 1, visibility: 'self', agentId: 'x' });
    assert.deepEqual([full.isError, full.json.error], [true, { code: 'E_CAPACITY', message: '⚠️ Memory capacity reached (2/2). Cannot store more facts.' }]);
    const update = await tool(client, 'upsert_user_memory', { userId: 'u1', key: 'a', value: 2, visibility: 'self', agentId: 'x' });
    assert.equal(update.isError, false, 'an update at the cap is allowed');
    assert.equal(s.entries.entries.length, 2);
  });

  test('delete_all_user_memories needs confirmation "CONFIRM" exactly', async () => {
    for (const args of [{ userId: 'u1' }, { userId: 'u1', confirmation: 'confirm' }, { userId: 'u1', confirmation: '' }]) {
      const r = await tool(client, 'delete_all_user_memories', args);
      assert.deepEqual([r.isError, r.json.error.code], [true, 'E_BAD_REQUEST']);
    }
    assert.equal(s.entries.entries.length, 2, 'nothing deleted');
  });

  test('a failing store is a tool error with the store\'s reason; the next call works', async () => {
    s.entries.failing = true;
    const r = await tool(client, 'count_user_memories', { userId: 'u1' });
    assert.deepEqual([r.isError, r.json.error.code], [true, 'E_HOST']);
    assert.match(r.json.error.message, /database unavailable/);
    s.entries.failing = false;
    assert.deepEqual((await tool(client, 'count_user_memories', { userId: 'u1' })).json, { count: 2 });
  });

  test('a host error whose message holds a credential reaches the client redacted, as REST\'s 5xx (issue 19)', async () => {
    // Assembled at run time: no live-looking key is committed.
    const key = ['sk', '-proj-', 'Zq8vT2mPw9LkR4sY7bXcQ1wE5rT6yU7i', 'Ab3dEf6h'].join('');
    const password = ['Hunter2', 'xYz'].join('');
    const store = new JsStore();
    store.check = () => {
      throw new Error(`connect to postgres://app:${password}@db.example.com/app refused (api key ${key})`);
    };
    const leaky = await startServer({ entries: store });
    const c = await connect(leaky.base, as('u1'));
    try {
      const r = await tool(c, 'count_user_memories', { userId: 'u1' });
      assert.deepEqual([r.isError, r.json.error.code], [true, 'E_HOST']);
      // redactSecrets' mask for logs and reports (a memory write's is `[redacted]`).
      assert.equal(r.json.error.message, 'connect to postgres://app:[REDACTED]@db.example.com/app refused (api key [REDACTED])');
      for (const secret of [key, password]) assert.ok(!r.text.includes(secret), r.text);
      const rest = await fetch(`${leaky.base}/usermemorystore/memories/u1/count`, { headers: as('u1') });
      const restError = (await rest.json()).error;
      assert.deepEqual([rest.status, restError.code, restError.message], [500, r.json.error.code, r.json.error.message], 'REST and MCP redact alike');
    } finally {
      await c.close();
      await leaky.close();
    }
  });

  test('the endpoint is stateless POST only, mountable, and limits bodies to 1 MiB', async () => {
    const get = await fetch(`${s.base}/mcp`, { headers: { ...as('u1'), accept: 'text/event-stream' } });
    assert.deepEqual([get.status, get.headers.get('allow')], [405, 'POST']);
    const big = await fetch(`${s.base}/mcp`, { method: 'POST', headers: { ...as('u1'), 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }) });
    assert.equal(big.status, 413);
    const broken = await fetch(`${s.base}/mcp`, { method: 'POST', headers: { ...as('u1'), 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{' });
    assert.equal(broken.status, 400);
    const mounted = await startServer({ basePath: '/api', mcpPath: '/tools/mcp' });
    try {
      const c = await connect(mounted.base, as('u1'), '/api/tools/mcp');
      assert.equal((await c.listTools()).tools.length, 11);
      await c.close();
      assert.equal((await fetch(`${mounted.base}/mcp`, { method: 'POST', headers: as('u1') })).status, 404);
    } finally {
      await mounted.close();
    }
  });
});
