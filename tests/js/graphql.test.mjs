// memcore/graphql through the installed package, executed by the graphql reference
// implementation (graphql-js `graphql()` over `buildSchema`, no other GraphQL library): Settings →
// Context Memory as real GraphQL operations, with the errors a client sees.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { buildSchema, graphql } from 'graphql';
import { ContextMemory, MemcoreError, MAX_EDIT_BODY_BYTES } from 'memcore';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import {
  contextMemoryRootValue,
  contextMemoryTypeDefs,
  contextMemoryTypeExtensions,
  createContextMemoryResolvers,
} from 'memcore/graphql';

const PATH = 'user-memory/u1/memory.md';
const STORED = '---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-01-01T00:00:00+00:00\nturn_count: 3\ncustom: kept\n---\n\n# User Memory\n\n## Identity\n- Ana\n';
const GET = '{ getMyContextMemory { exists body lastUpdated turnCount } }';
const UPDATE = `mutation Save($document: String!) {
  updateMyContextMemory(document: $document) {
    memory { exists body lastUpdated turnCount }
    diagnostics { code line message severity }
  }
}`;

function setup(files = {}, userIdFrom = (ctx) => ctx.user?.id) {
  const storage = new InMemoryProfileStorage({ files });
  const contextMemory = new ContextMemory({ storage });
  const schema = buildSchema(contextMemoryTypeDefs);
  const rootValue = contextMemoryRootValue(createContextMemoryResolvers({ contextMemory, userIdFrom }));
  const run = (source, variableValues, contextValue = { user: { id: 'u1' } }) => graphql({ schema, source, rootValue, variableValues, contextValue });
  return { storage, contextMemory, run };
}

// graphql-js results carry null-prototype objects; compare them as plain data.
const plain = (value) => JSON.parse(JSON.stringify(value));

test('getMyContextMemory without a profile: exists false, empty body, nothing created', async () => {
  const { storage, run } = setup();
  const result = await run(GET);
  assert.deepEqual(plain(result), { data: { getMyContextMemory: { exists: false, body: '', lastUpdated: null, turnCount: null } } });
  assert.equal(storage.writes.length, 0);
});

test('getMyContextMemory shows the body without the frontmatter, with lastUpdated and turnCount', async () => {
  const { contextMemory, run } = setup({ [PATH]: STORED });
  const result = await run(GET);
  assert.equal(result.errors, undefined);
  assert.deepEqual(plain(result.data.getMyContextMemory), await contextMemory.getMyContextMemory('u1'));
  assert.equal(result.data.getMyContextMemory.turnCount, 3);
  assert.equal(result.data.getMyContextMemory.lastUpdated, '2026-01-01T00:00:00+00:00');
  assert.ok(!result.data.getMyContextMemory.body.includes('custom: kept'));
});

test('updateMyContextMemory saves the body, keeps the frontmatter and returns the diagnostics', async () => {
  const { storage, contextMemory, run } = setup({ [PATH]: STORED });
  const document = '## Identity\n- Ana B.\n## Work stuff\n- ships memcore\n';
  const result = await run(UPDATE, { document });
  assert.equal(result.errors, undefined);
  const saved = result.data.updateMyContextMemory;
  // The diagnostics are the core's, field for field (a fresh ContextMemory over the same start).
  const reference = await new ContextMemory({ storage: new InMemoryProfileStorage({ files: { [PATH]: STORED } }) }).updateMyContextMemory('u1', document);
  assert.deepEqual(plain(saved.diagnostics), reference.diagnostics);
  assert.ok(saved.diagnostics.some((d) => d.code === 'unknown-section'));
  // The view returned is what getMyContextMemory shows now, and the frontmatter was kept.
  assert.deepEqual(plain(saved.memory), await contextMemory.getMyContextMemory('u1'));
  assert.match(saved.memory.body, /- Ana B\./);
  const stored = (await storage.read(PATH)).text;
  assert.match(stored, /^custom: kept$/m);
  assert.match(stored, /^turn_count: 3$/m);
});

test('a regular document saves with no diagnostics', async () => {
  const { run } = setup({ [PATH]: STORED });
  const body = ['Identity', 'Communication Preferences', 'Work Context', 'Skills & Expertise', 'Recent Topics', 'Follow-ups'].map((h) => `## ${h}\n- x\n`).join('\n');
  const result = await run(UPDATE, { document: `# User Memory\n\n${body}` });
  assert.equal(result.errors, undefined);
  assert.deepEqual(plain(result.data.updateMyContextMemory.diagnostics), []);
});

test('a body over 1 MiB is a GraphQL error with code E_TOO_LARGE in extensions; nothing is written', async () => {
  const { storage, run } = setup({ [PATH]: STORED });
  const writes = storage.writes.length;
  const result = await run(UPDATE, { document: 'é'.repeat(MAX_EDIT_BODY_BYTES / 2) + 'x' });
  assert.equal(result.data, null);
  assert.equal(result.errors.length, 1);
  const [error] = result.errors;
  assert.deepEqual(plain(error.extensions), { code: 'E_TOO_LARGE', bytes: MAX_EDIT_BODY_BYTES + 1, limit: MAX_EDIT_BODY_BYTES });
  assert.deepEqual(error.path, ['updateMyContextMemory']);
  assert.match(error.message, /1048577 bytes/);
  assert.ok(error.originalError instanceof Error);
  // Serialised as a server sends it:
  assert.equal(plain(error.toJSON()).extensions.code, 'E_TOO_LARGE');
  assert.equal(storage.writes.length, writes);
  assert.equal((await storage.read(PATH)).text, STORED);
});

test('exactly 1 MiB of UTF-8 is saved', async () => {
  const { run } = setup();
  const document = '## Identity\n' + 'a'.repeat(MAX_EDIT_BODY_BYTES - '## Identity\n'.length);
  const result = await run(UPDATE, { document });
  assert.equal(result.errors, undefined);
  assert.equal(result.data.updateMyContextMemory.memory.exists, true);
});

test('no user in the context: UNAUTHENTICATED for both operations, nothing read or written', async () => {
  let reads = 0;
  const storage = new InMemoryProfileStorage({ files: { [PATH]: STORED } });
  const counting = { read: (p) => (reads++, storage.read(p)), write: (...a) => storage.write(...a), remove: (p) => storage.remove(p) };
  const contextMemory = new ContextMemory({ storage: counting });
  const schema = buildSchema(contextMemoryTypeDefs);
  // Async, as when the context holds a session to resolve.
  const rootValue = contextMemoryRootValue(createContextMemoryResolvers({ contextMemory, userIdFrom: async (ctx) => ctx.session?.userId }));
  for (const contextValue of [{}, { session: { userId: '' } }, { session: { userId: null } }]) {
    for (const [source, variableValues, field] of [[GET, undefined, 'getMyContextMemory'], [UPDATE, { document: '## Identity\n- Eve\n' }, 'updateMyContextMemory']]) {
      const result = await graphql({ schema, source, rootValue, variableValues, contextValue });
      assert.equal(result.data, null);
      assert.deepEqual(plain(result.errors.map((e) => [e.extensions, e.path])), [[{ code: 'UNAUTHENTICATED' }, [field]]]);
    }
  }
  assert.equal(reads, 0);
  assert.equal(storage.writes.length, 0);
});

test('an id that cannot name a user folder is E_INVALID_USER_ID; a failing storage is E_HOST', async () => {
  const { run } = setup({}, (ctx) => ctx.user.id);
  const bad = await run(GET, undefined, { user: { id: '../u2' } });
  assert.equal(bad.errors[0].extensions.code, 'E_INVALID_USER_ID');

  const contextMemory = new ContextMemory({ storage: { read: () => { throw new Error('database unavailable'); }, write() {}, remove() {} } });
  const rootValue = contextMemoryRootValue(createContextMemoryResolvers({ contextMemory, userIdFrom: () => 'u1' }));
  const result = await graphql({ schema: buildSchema(contextMemoryTypeDefs), source: UPDATE, rootValue, variableValues: { document: '## Identity\n' } });
  assert.equal(result.errors[0].extensions.code, 'E_HOST');
});

test('an error of userIdFrom itself reaches the server unchanged (no code invented)', async () => {
  const { run } = setup({}, () => { throw new Error('session store down'); });
  const result = await run(GET);
  assert.equal(result.errors[0].message, 'session store down');
  assert.deepEqual(plain(result.errors[0].extensions ?? {}), {});
});

test('the { Query, Mutation } resolvers, wired the way makeExecutableSchema does, into a host schema via the extensions SDL', async () => {
  const storage = new InMemoryProfileStorage();
  const resolvers = createContextMemoryResolvers({ contextMemory: new ContextMemory({ storage }), userIdFrom: (ctx) => ctx.userId });
  const schema = buildSchema(`type Query { hello: String }\ntype Mutation { noop: Boolean }\n${contextMemoryTypeExtensions}`);
  for (const [type, fields] of Object.entries(resolvers)) {
    for (const [name, resolve] of Object.entries(fields)) schema.getType(type).getFields()[name].resolve = resolve;
  }
  const rootValue = { hello: () => 'host field' };
  const saved = await graphql({ schema, source: UPDATE, rootValue, variableValues: { document: '## Identity\n- Ana\n' }, contextValue: { userId: 'u7' } });
  assert.equal(saved.errors, undefined);
  assert.equal(saved.data.updateMyContextMemory.memory.exists, true);
  const read = await graphql({ schema, source: '{ hello getMyContextMemory { exists body } }', rootValue, contextValue: { userId: 'u7' } });
  assert.deepEqual(plain(read.data), { hello: 'host field', getMyContextMemory: { exists: true, body: saved.data.updateMyContextMemory.memory.body } });
  assert.ok('user-memory/u7/memory.md' in storage.snapshot());
});

test('the SDL is valid on its own, documents the limit, and the module imports no GraphQL library', () => {
  const schema = buildSchema(contextMemoryTypeDefs);
  assert.deepEqual(Object.keys(schema.getQueryType().getFields()), ['getMyContextMemory']);
  assert.deepEqual(Object.keys(schema.getMutationType().getFields()), ['updateMyContextMemory']);
  assert.match(schema.getMutationType().getFields().updateMyContextMemory.description, /1 MiB \(1,048,576 bytes\)/);
  const file = createRequire(import.meta.url).resolve('memcore/graphql');
  const imports = [...readFileSync(file, 'utf8').matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
  assert.deepEqual(imports.sort(), ['./api.js', './errors.js']);
});

test('bad options are E_ARGUMENT naming the option', () => {
  const contextMemory = new ContextMemory({ storage: new InMemoryProfileStorage() });
  for (const [options, argument] of [
    [undefined, 'options'],
    [{ userIdFrom: () => 'u1' }, 'options.contextMemory'],
    [{ contextMemory: {}, userIdFrom: () => 'u1' }, 'options.contextMemory'],
    [{ contextMemory }, 'options.userIdFrom'],
  ]) {
    assert.throws(() => createContextMemoryResolvers(options), (e) => e instanceof MemcoreError && e.code === 'E_ARGUMENT' && e.details.argument === argument, argument);
  }
});
