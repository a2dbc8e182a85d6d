// Data-subject rights on the SQL stores with `{ entries: db }` alone (issue 19): the store that is
// entry store and profile storage serves both sides of erase, export and import; an erase leaves
// no row naming the user in any table; an import is one transaction (SQLite `BEGIN IMMEDIATE`,
// PostgreSQL one transaction, D1 one batch) — a write failing inside the database leaves nothing,
// and the retry restores everything.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import * as m from 'memcore';
import { ContextMemory, createMemoryTools } from 'memcore';
import { openSqlite } from 'memcore/adapters/sqlite';
import { BACKENDS } from '../support/sql-backends.mjs';

const NOW = () => '2026-12-01T00:00:00Z';
const H6 = ['Identity', 'Communication Preferences', 'Work Context', 'Skills & Expertise', 'Recent Topics', 'Follow-ups'];
const PROFILE_BODY = '# User Memory\n\n' + H6.map((h, i) => `## ${h}\n${i === 0 ? '- Ana, lives in Zanzibar' : '_(empty)_'}`).join('\n\n') + '\n';
const model = { complete: (r) => (r.purpose === 'gate' ? 'UPDATE' : PROFILE_BODY) };
const isCode = (code) => (e) => e instanceof m.MemcoreError && e.code === code;
const counter = (prefix) => {
  let n = 0;
  return () => `${prefix}-${String(++n).padStart(2, '0')}`;
};

/** A user's entries through the tools (self, global, group; one with a unique word) and a profile through afterTurn. */
async function fill(store, memory, userId) {
  const tools = createMemoryTools({ store, userId, agentId: 'support-bot', group: 'G', now: NOW, newId: counter(userId) });
  for (const [key, value, visibility] of [['city', 'Zanzibar', 'global'], ['dog', 'Rex'], ['food', { likes: ['ugali', 'pilau'] }], ['team', 'blue', 'group'], ['tz', 'EAT'], ['lang', 'Swahili'], ['nick', 'ana']]) {
    await tools.call('rememberFact', { key, value, ...(visibility ? { visibility } : {}) });
  }
  assert.equal((await memory.afterTurn({ userId, enabled: true, userMessage: 'I live in Zanzibar', assistantMessage: 'ok' })).outcome, 'updated');
}

/** Every table's rows that name the user or one of the ids (any column holding text that contains one). */
async function rowsNaming(sql, dialect, needles) {
  const tables = dialect === 'postgres'
    ? await sql('SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1')
    : await sql("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' ORDER BY 1");
  const found = [];
  for (const { name } of tables) {
    for (const row of await sql(`SELECT * FROM "${name}"`)) {
      const texts = Object.values(row).map((v) => (Buffer.isBuffer(v) ? v.toString('latin1') : typeof v === 'string' ? v : JSON.stringify(v)));
      if (texts.some((t) => needles.some((n) => t?.includes(n)))) found.push(`${name}: ${JSON.stringify(row)}`);
    }
  }
  return { tables: tables.map((t) => t.name), found };
}

test("the storage guide's SQLite recipe: eraseUserData(userId, { entries: db }) leaves no row of the user in any table of the file", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'memcore-rights-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'memcore.db');
  const db = await openSqlite(file);
  const memory = new ContextMemory({ storage: db, model, now: NOW });
  for (const user of ['erase-me-7f3', 'keep-me']) await fill(db, memory, user);
  await m.setProcessingRestriction(db, 'erase-me-7f3', true, { admin: true, now: NOW, newId: () => 'erase-me-7f3-flag' });
  const ids = (await db.list('erase-me-7f3')).map((e) => e.id);
  assert.equal(ids.length, 8);

  const report = await m.eraseUserData('erase-me-7f3', { entries: db });
  assert.deepEqual(report, {
    userId: 'erase-me-7f3',
    keys: 0,
    entries: [8],
    // Every write and the restriction were audit records; no write replaced a state.
    history: [{ versions: 0, audit: 8, renamed: { audit: 0, versions: 0 } }],
    episodes: [0],
    profiles: [{ removed: true, folderRemoved: false }],
    stores: [{ option: 'options.entries', kind: 'SqliteStorage', entries: 8, history: { versions: 0, audit: 8, renamed: { audit: 0, versions: 0 } }, profile: { removed: true, folderRemoved: false }, keys: 0, episodes: 0 }],
  });
  await db.close();

  const raw = new Database(file, { readonly: true });
  t.after(() => raw.close());
  const sql = async (text, params = []) => raw.prepare(text).all(...params);
  const { tables, found } = await rowsNaming(sql, 'sqlite', ['erase-me-7f3', ...ids]);
  for (const table of ['memcore_entries', 'memcore_profiles', 'memcore_user_counts', 'memcore_search_rows', 'memcore_search']) assert.ok(tables.includes(table), table);
  assert.deepEqual(found, [], 'no row of any table names the user or one of its entries');
  assert.deepEqual(await sql("SELECT count(*) AS n FROM memcore_entries WHERE user_id = 'erase-me-7f3'"), [{ n: 0 }]);
  assert.deepEqual(await sql("SELECT count(*) AS n FROM memcore_user_counts WHERE user_id = 'erase-me-7f3'"), [{ n: 0 }]);
  assert.deepEqual(await sql("SELECT count(*) AS n FROM memcore_profiles WHERE path LIKE '%erase-me-7f3%'"), [{ n: 0 }]);
  // One row stays: the erasure's own audit record, naming the user by the SHA-256 of its id.
  const erasure = await sql("SELECT body FROM memcore_audit WHERE operation = 'erase'");
  assert.equal(erasure.length, 1);
  assert.deepEqual(JSON.parse(erasure[0].body), {
    at: JSON.parse(erasure[0].body).at, actor: { kind: 'rest', id: null }, operation: 'erase',
    userId: `sha256:${createHash('sha256').update('erase-me-7f3').digest('hex')}`, entryId: null, key: null, items: 16,
  });
  // The search index finds the word only in the other user's row; its bookkeeping matches the entries.
  const matches = await sql(`SELECT e.user_id FROM memcore_search JOIN memcore_search_rows r ON r.doc = memcore_search.rowid
    JOIN memcore_entries e ON e.id = r.entry_id WHERE memcore_search MATCH '"zanzibar"'`);
  assert.deepEqual(matches, [{ user_id: 'keep-me' }]);
  assert.deepEqual(await sql('SELECT (SELECT count(*) FROM memcore_search_rows) AS rows, (SELECT count(*) FROM memcore_entries WHERE search_text IS NOT NULL) AS texts'), [{ rows: 7, texts: 7 }]);
  assert.equal((await sql("SELECT count(*) AS n FROM memcore_entries WHERE user_id = 'keep-me'"))[0].n, 7, 'the other user is untouched');
  assert.equal((await sql("SELECT count(*) AS n FROM memcore_profiles WHERE path = 'user-memory/keep-me/memory.md'"))[0].n, 1);
  t.diagnostic(`tables checked: ${tables.join(', ')}`);
});

for (const name of ['sqlite-file', 'postgres', 'd1']) {
  describe(`rights on ${name} with { entries: db } alone`, () => {
    let b;
    const dialect = name === 'postgres' ? 'postgres' : 'sqlite';
    const kind = { postgres: 'PostgresStorage', d1: 'object' }[name] ?? 'SqliteStorage';
    before(async () => {
      b = await BACKENDS[name]();
    });
    after(async () => {
      await b?.stop();
    });

    /** A trigger that makes the database refuse an insert into `table` where `condition` holds. */
    const failInside = async (table, condition) => {
      if (dialect === 'postgres') {
        await b.sql("CREATE OR REPLACE FUNCTION memcore_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected: the database refuses this write'; END $$");
        await b.sql(`CREATE TRIGGER memcore_test_refuse BEFORE INSERT ON ${table} FOR EACH ROW WHEN (${condition}) EXECUTE FUNCTION memcore_test_refuse()`);
        return () => b.sql(`DROP TRIGGER memcore_test_refuse ON ${table}`);
      }
      await b.sql(`CREATE TRIGGER memcore_test_refuse BEFORE INSERT ON ${table} WHEN ${condition} BEGIN SELECT RAISE(ABORT, 'injected: the database refuses this write'); END`);
      return () => b.sql('DROP TRIGGER memcore_test_refuse');
    };
    /** What the database holds of the user: entries, counts, search rows, profiles. */
    const held = async (userId) => {
      const n = async (text) => Number((await b.sql(text))[0].n);
      const search = dialect === 'postgres'
        ? `SELECT count(*) AS n FROM memcore_search WHERE user_id = '${userId}' OR entry_id LIKE '${userId}-%'`
        : `SELECT count(*) AS n FROM memcore_search_rows WHERE entry_id LIKE '${userId}-%'`;
      return {
        entries: await n(`SELECT count(*) AS n FROM memcore_entries WHERE user_id = '${userId}'`),
        counts: await n(`SELECT count(*) AS n FROM memcore_user_counts WHERE user_id = '${userId}'`),
        search: await n(search),
        profiles: await n(`SELECT count(*) AS n FROM memcore_profiles WHERE path LIKE '%/${userId}/%'`),
      };
    };
    const NOTHING = { entries: 0, counts: 0, search: 0, profiles: 0 };

    /** Two users filled; the first one's export (through { entries: db } alone). */
    const setup = async (userId) => {
      await b.reset();
      const memory = new ContextMemory({ storage: b.store, model, now: NOW });
      for (const user of [userId, 'keep-me']) await fill(b.store, memory, user);
      await m.setProcessingRestriction(b.store, userId, true, { admin: true, now: NOW, newId: () => `${userId}-flag` });
      const doc = await m.exportUserData(userId, { entries: b.store, now: NOW });
      assert.equal(doc.entries.length, 8);
      assert.equal(doc.profile, (await b.store.read(`user-memory/${userId}/memory.md`)).text, 'the profile comes from the entry store');
      return doc;
    };

    test('eraseUserData({ entries: db }) leaves no row naming the user in any table; the report names the store', async () => {
      const doc = await setup('erase-me');
      const report = await m.eraseUserData('erase-me', { entries: b.store });
      // Every write, the restriction and the export were audit records.
      assert.deepEqual(report.stores, [{ option: 'options.entries', kind, entries: 8, history: { versions: 0, audit: 9, renamed: { audit: 0, versions: 0 } }, profile: { removed: true, folderRemoved: false }, keys: 0, episodes: 0 }]);
      assert.deepEqual(await held('erase-me'), NOTHING);
      const { found } = await rowsNaming(b.sql, dialect, ['erase-me', ...doc.entries.map((e) => e.id)]);
      assert.deepEqual(found, []);
      assert.equal((await held('keep-me')).entries, 7);
    });

    test('export → erase → import with { entries: db } alone restores entries and profile exactly', async () => {
      const doc = await setup('trip');
      await m.eraseUserData('trip', { entries: b.store });
      assert.deepEqual(await held('trip'), NOTHING);
      const report = await m.importUserData(doc, { entries: b.store });
      assert.deepEqual(report, { entries: 8, profile: true, secrets: [], history: { imported: 0, dropped: 0 }, vectors: { dropped: 7, embedded: 0, reindex: true }, episodes: 0, stores: [{ option: 'options.entries', kind, entries: 8, profile: true }] });
      // The same data; `historySize` reports the store (its audit log now holds the import and two exports).
      assert.deepEqual({ ...(await m.exportUserData('trip', { entries: b.store, now: NOW })), historySize: undefined }, { ...doc, historySize: undefined });
      assert.equal(await m.isProcessingRestricted(b.store, 'trip'), true);
    });

    test('an import whose 5th write fails inside the database leaves nothing of the user; the retry restores everything', async () => {
      const doc = await setup('imp');
      await m.eraseUserData('imp', { entries: b.store });
      const fifth = doc.entries[4].id;
      const heal = await failInside('memcore_entries', `NEW.id = '${fifth}'`);
      await assert.rejects(m.importUserData(doc, { entries: b.store }), (e) => {
        assert.ok(isCode('E_HOST')(e), `${e.code} ${e.message}`);
        assert.match(e.message, /^insertAll: .*injected: the database refuses this write/);
        assert.equal(e.details.undo, undefined, 'one transaction: nothing to undo');
        return true;
      });
      assert.deepEqual(await held('imp'), NOTHING, 'not one of the four writes before it, no profile');
      await heal();
      assert.deepEqual((await m.importUserData(doc, { entries: b.store })).entries, 8);
      assert.deepEqual({ ...(await m.exportUserData('imp', { entries: b.store, now: NOW })), historySize: undefined }, { ...doc, historySize: undefined });
      assert.equal((await held('imp')).search, 8, 'the search index follows the import');
    });

    test('entries and profile are one transaction: a profile the database refuses rolls the entries back (nothing to undo); the retry succeeds', async () => {
      const doc = await setup('prof');
      await m.eraseUserData('prof', { entries: b.store });
      const heal = await failInside('memcore_profiles', "NEW.path LIKE '%/prof/%'");
      await assert.rejects(m.importUserData(doc, { entries: b.store }), (e) => {
        assert.match(e.message, /^insertAll: .*injected: the database refuses this write/);
        assert.equal(e.details.undo, undefined, 'rolled back by the database, not undone by deletes');
        return true;
      });
      assert.deepEqual(await held('prof'), NOTHING);
      await heal();
      assert.deepEqual((await m.importUserData(doc, { entries: b.store })).profile, true);
      assert.deepEqual({ ...(await m.exportUserData('prof', { entries: b.store, now: NOW })), historySize: undefined }, { ...doc, historySize: undefined });
    });

    test('insertAll: an id already stored fails the whole call, nothing written; bad entries are refused naming the index; 1,100 rows are one transaction', async (t) => {
      await b.reset();
      const entry = (id, key) => ({ id, userId: 'ia', key, value: 'v', category: 'fact', visibility: 'global', groupIds: [], accessCount: 0, conflicted: false, sourceAgentId: null, sourceConversationId: null, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' });
      await b.store.upsert(entry('ia-3', 'c'));
      await assert.rejects(b.store.insertAll([entry('ia-1', 'a'), entry('ia-2', 'b'), { ...entry('ia-3', 'z') }]), (e) => isCode('E_HOST')(e) && e.details.reason === 'id-exists' && (name === 'd1' || e.details.id === 'ia-3'));
      assert.deepEqual((await b.store.list('ia')).map((e) => e.id), ['ia-3']);
      await assert.rejects(b.store.insertAll([entry('ia-1', 'a'), { ...entry('ia-2', 'b'), key: 42 }]), (e) => isCode('E_ARGUMENT')(e) && e.details.argument === 'entries[1].key');
      await assert.rejects(b.store.insertAll('x'), (e) => isCode('E_ARGUMENT')(e) && e.details.argument === 'entries');
      await b.store.insertAll([]);
      await b.store.insertAll([entry('ia-1', 'a'), entry('ia-2', 'b')]);
      assert.deepEqual((await b.store.list('ia')).map((e) => e.id), ['ia-1', 'ia-2', 'ia-3']);
      assert.equal(await b.store.countUser('ia'), 3);
      // More rows than one PostgreSQL statement takes (500): still one transaction; a failing row
      // in the third chunk rolls back the first two.
      const many = Array.from({ length: 1100 }, (_, i) => entry(`ib-${String(i).padStart(4, '0')}`, `k${i}`));
      const heal = await failInside('memcore_entries', "NEW.id = 'ib-1050'");
      await assert.rejects(b.store.insertAll(many), (e) => isCode('E_HOST')(e) && /injected/.test(e.message));
      assert.equal(Number((await b.sql("SELECT count(*) AS n FROM memcore_entries WHERE id LIKE 'ib-%'"))[0].n), 0);
      await heal();
      const started = performance.now();
      await b.store.insertAll(many);
      t.diagnostic(`${name}: insertAll of 1,100 entries in ${(performance.now() - started).toFixed(0)} ms`);
      assert.equal(await b.store.countUser('ia'), 1103);
    });
  });
}
