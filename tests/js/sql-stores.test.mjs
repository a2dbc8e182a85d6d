// The SQL adapters through the installed package: ONE suite run against SQLite on a file, SQLite
// in memory, PostgreSQL (a real server this file starts) and D1 (miniflare's D1 behind a Worker
// that imports memcore/adapters/d1). The shared tool scenarios and Dream vectors (the same replay
// code as entries.test.mjs and dream.test.mjs), ContextMemory on SQL profile storage, the method
// contracts against what the core computes from `list`, migrations, compare-and-swap, bad input.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as m from 'memcore';
import { ContextMemory, parseProfile } from 'memcore';
import { BACKENDS } from '../support/sql-backends.mjs';
import { openPostgres } from 'memcore/adapters/postgres';
import { replayToolScenario, scenarioEntries, scenarioUsers, toolScenarios } from '../support/tool-scenarios.mjs';
import { caseEntries, dreamFiles, replayDreamCase } from '../support/dream-cases.mjs';
import { vectors } from './vectors.mjs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { prng as rng } from '../support/prng.mjs';
import { SEARCH_QUERIES, searchEntries, searchIndexState } from '../support/search-cases.mjs';

// The adapters' own statements (not exported by the package), to EXPLAIN exactly what they run.
const pkgDir = join(createRequire(import.meta.url).resolve('memcore/package.json'), '..');
const internal = (file) => import(pathToFileURL(join(pkgDir, 'adapters/sql', file)).href);
const { SQL: SQLITE_SQL, identityParams, searchStatement: sqliteSearch, ftsQuery } = await internal('sqlite-statements.js');
const { SQL: POSTGRES_SQL, searchStatement: postgresSearch, containsPattern } = await internal('postgres-statements.js');
// The core's prefilter of a query's terms (a statement takes the plan), and the mark a number
// leaves in search_text (the second pattern of a term that could lie inside a number).
const prefilter = (terms) => m.searchPrefilter(terms.join(' '));
const NUMBER_MARK = m.searchPrefilter('1').short[0].anyOf[1];
const searchText = (key, value) => m.indexColumns([{ key, updatedAt: '', valueJson: JSON.stringify(value) }])[0].searchText;
// A plan of literal ASCII terms, lowercased as their skeleton is: terms the core never makes
// (quotes, FTS syntax, LIKE metacharacters), which the statements must bind literally all the same.
const literalPlan = (terms) => {
  const tests = terms.map((t) => ({ anyOf: [t.toLowerCase()] }));
  return { long: tests.filter((t) => t.anyOf[0].length >= 3), short: tests.filter((t) => t.anyOf[0].length < 3) };
};
const { SQLITE_MIGRATIONS, POSTGRES_MIGRATIONS } = await internal('migrations.js');
const LATEST = SQLITE_MIGRATIONS.at(-1).version;
const ALL_VERSIONS = SQLITE_MIGRATIONS.map((m) => m.version);

const H6 = ['Identity', 'Communication Preferences', 'Work Context', 'Skills & Expertise', 'Recent Topics', 'Follow-ups'];
const PROFILE_BODY = '# User Memory\n\n' + H6.map((h, i) => `## ${h}\n${i === 0 ? '- Ana' : '_(empty)_'}`).join('\n\n') + '\n';
const isCode = (code) => (e) => e instanceof m.MemcoreError && e.code === code;
const ENTRY_METHODS = ['list', 'get', 'upsert', 'delete', 'incrementAccess', 'countUser', 'search', 'recall', 'findByKey', 'oldestOwn', 'insertWithinCap'];

// A scenario's `failOn` names the minimal store's operations; a SQL store answers the same reads
// through its pushed-down methods, so failing "list" fails every read, and "upsert" every write.
const FAIL_CLASSES = {
  list: ['list', 'get', 'countUser', 'search', 'recall', 'findByKey', 'oldestOwn'],
  upsert: ['upsert', 'insertWithinCap'],
  delete: ['delete'],
  incrementAccess: ['incrementAccess'],
  search: ['search'],
};

/** The store with injectable failures: `setFail(ops)` (scenario names) or `failNth({ op: [n] | 'all' })`. */
function faulty(store) {
  let failing = new Set();
  let evictFails = false;
  let nth = {};
  const calls = {};
  const wrapped = {
    setFail(ops) {
      failing = new Set(ops.flatMap((op) => FAIL_CLASSES[op] ?? [op]));
      evictFails = ops.includes('delete');
    },
    failNth(fails) {
      nth = fails;
    },
    count: (op) => calls[op] ?? 0,
  };
  for (const method of ENTRY_METHODS) {
    wrapped[method] = async (...args) => {
      calls[method] = (calls[method] ?? 0) + 1;
      const f = nth[method];
      if (failing.has(method) || (method === 'insertWithinCap' && evictFails && args[1]?.evict?.length > 0)
        || f === 'all' || (Array.isArray(f) && f.includes(calls[method]))) {
        throw new Error('database unavailable');
      }
      return store[method](...args);
    };
  }
  return wrapped;
}

/** Two entries collide when the schema's identity indexes say so (SPEC §2.4). */
function identityOf(e) {
  if (e.visibility === 'global') return `${e.userId}\u0000${e.key}\u0000global`;
  if (e.visibility === 'self' || e.visibility === 'group') return `${e.userId}\u0000${e.key}\u0000agent\u0000${e.sourceAgentId}`;
  return `${e.id}\u0000other`;
}
const collides = (entries) => new Set(entries.map(identityOf)).size < entries.length;


const WORDS = ['dog', 'cat', 'name', 'Rex', 'café', 'STRASSE', 'Straße', 'city', 'Porto', 'ΟΔΟΣ', 'İstanbul', '\u212Aelvin', '100%', 'a_b', 'back\\slash', 'x2'];
const STAMPS = ['2026-06-01T10:00:00Z', '2026-06-01T10:00:00.000Z', '2026-06-01T11:00:00+01:00', '2026-06-01T10:00:00.5Z', '2026-05-31T23:59:59.999999999Z',
  '2026-06-02t10:00:00z', '2026-06-03 10:00:00Z', 'not a time', 'yesterday', '2026-02-30T00:00:00Z', '1999-12-31T23:59:60Z'];

function generatedEntries(seed, count) {
  const r = rng(seed);
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const out = [];
  for (let i = 0; i < count; i++) {
    const visibility = pick(['global', 'self', 'self', 'group', 'group']);
    const agent = pick(['a1', 'a2', 'a3']);
    const reserved = r() < 0.04;
    const prefix = reserved ? pick(['_gdpr_', '  _gdpr_', '\u3000_gdpr_']) : pick(['', '', '', '\uFEFF_gdpr_', '\u0085_gdpr_']);
    const key = `${prefix}${pick(WORDS)}_${pick(WORDS)}_${i}`;
    const value = pick([() => `${pick(WORDS)} ${pick(WORDS)}`, () => Math.floor(r() * 1000), () => ({ w: pick(WORDS), n: r() < 0.5 }), () => pick(WORDS).toUpperCase(), () => [1, pick(WORDS)]])();
    const minute = Math.floor(r() * 600);
    const stamp = r() < 0.25 ? pick(STAMPS) : new Date(Date.UTC(2026, 5, 1) + minute * 60000).toISOString().replace('.000Z', pick(['Z', '.000Z', '+00:00']));
    out.push({
      id: `g${String(Math.floor(r() * 1e6)).padStart(6, '0')}-${i}`,
      userId: i % 10 === 0 ? 'other-user' : 'u1',
      key, value, category: pick(['fact', 'preference', 'context']), visibility,
      sourceAgentId: agent, groupIds: visibility === 'group' ? [pick(['G1', 'G2', 'G3'])] : r() < 0.1 ? ['G1'] : [],
      sourceConversationId: null, conflicted: false, accessCount: Math.floor(r() * 4),
      createdAt: '2026-01-01T00:00:00Z', updatedAt: stamp,
    });
  }
  return out;
}

/** A minimal store over fixed entries: the core then computes from `list`, as for any host store. */
function listStore(entries) {
  return {
    entries: entries.map((e) => structuredClone(e)),
    async list(userId) { return this.entries.filter((e) => e.userId === userId).map((e) => structuredClone(e)); },
    async get(id) { return structuredClone(this.entries.find((e) => e.id === id) ?? null); },
    async upsert(entry) {
      const i = this.entries.findIndex((e) => e.id === entry.id);
      if (i >= 0) this.entries[i] = structuredClone(entry);
      else this.entries.push(structuredClone(entry));
    },
    async delete(id) {
      const before = this.entries.length;
      this.entries = this.entries.filter((e) => e.id !== id);
      return this.entries.length < before;
    },
    async incrementAccess() {},
  };
}

/**
 * PostgreSQL plans by cost: over a table of two users, reading u1's rows of the narrow
 * memcore_search is cheaper than any index lookup. 8,000 rows of 50 other users make u1 one user
 * among many, as in production; then what autovacuum does after a bulk load: VACUUM ANALYZE.
 */
async function manyOtherUsers(sql) {
  await sql(`INSERT INTO memcore_entries (id, user_id, key, value, category, visibility, group_ids, created_at, updated_at, updated_sort, search_text)
    SELECT 'bulk' || i, 'bulk-user-' || (i % 50), 'k' || i, '"v"', 'fact', 'global', '[]', 't', 't', '0t', 'bulk ' || i FROM generate_series(1, 8000) AS i`);
  await sql('VACUUM ANALYZE');
}

/** What a tool answers u1 over exactly the entries `list` (the core computes from `list`). */
const toolAnswer = async (list, tool, args, scope) => m.createMemoryTools({
  store: listStore(list), userId: 'u1', agentId: scope.agentId, group: scope.groupId, config: scope.config,
}).call(tool, args);

const PATH = 'user-memory/u1/memory.md';
const H = ['Identity', 'Communication Preferences', 'Work Context', 'Skills & Expertise', 'Recent Topics', 'Follow-ups'];
const body = (identity = []) => '# User Memory\n\n' + H.map((h, i) => `## ${h}\n${i === 0 && identity.length ? identity.join('\n') : '_(empty)_'}`).join('\n\n') + '\n';
const STORED = `---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-01-01T00:00:00+00:00\nturn_count: 4\n---\n\n${body(['- Ana, analyst'])}`;
const NOW = () => '2026-11-29T10:00:00Z';

function entry(partial) {
  return {
    userId: 'u1', value: 'v', category: 'fact', visibility: 'global', groupIds: [], accessCount: 0, conflicted: false, sourceAgentId: 'a1',
    sourceConversationId: null, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', ...partial,
  };
}

for (const name of Object.keys(BACKENDS)) {
  describe(`SQL store: ${name}`, () => {
    let b;
    let started;
    before(async () => {
      started = performance.now();
      b = await BACKENDS[name]();
    });
    after(async () => {
      await b?.stop();
      console.log(`# ${name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    });

    const seed = async (entries) => {
      await b.reset();
      if (b.upsertMany && entries.length > 20) await b.upsertMany(entries);
      else if (entries.length > 20) {
        // Big generated sets (unique ids and identities): ten upserts in flight, as a pool allows.
        for (let i = 0; i < entries.length; i += 10) await Promise.all(entries.slice(i, i + 10).map((e) => b.store.upsert(e)));
      } else for (const e of entries) await b.store.upsert(e);
    };
    /**
     * The prefilter's answer for u1, in id order, is exactly the rows whose stored search_text
     * satisfies the statement's condition (`searchPrefilter`: every test's patterns — a term's
     * skeleton, or NUMBER_MARK for a term that could lie inside a number) plus the rows without search_text — so the index
     * path implements the condition exactly — and it holds every match of the core and no other
     * user's row. For ASCII terms that cannot lie in a number it is exactly the core's matches
     * plus the rows without search_text. The tool's answer is the core's over `full`.
     */
    const assertSearchExact = async (full, queries, { store, sql } = b) => {
      const stored = new Map((await sql("SELECT id, search_text FROM memcore_entries WHERE user_id = 'u1'")).map((r) => [r.id, r.search_text]));
      const unfolded = [...stored].filter(([, text]) => text === null).map(([id]) => id);
      assert.ok(unfolded.length < full.length, `${unfolded.length} of ${full.length} rows without search_text`);
      for (const query of queries) {
        const got = (await store.search('u1', query)).map((e) => e.id);
        const terms = m.searchTerms(query);
        const { long, short } = m.searchPrefilter(query);
        const tests = [...long, ...short];
        const candidate = (text) => text === null || tests.every((t) => t.anyOf.some((pattern) => text.includes(pattern)));
        assert.deepEqual(got, terms.length === 0 ? [] : [...stored].filter(([, text]) => candidate(text)).map(([id]) => id).sort(), `search '${query}': the condition`);
        const matches = full.filter((e) => m.matchesQuery(query, e)).map((e) => e.id);
        assert.deepEqual(matches.filter((id) => !got.includes(id)), [], `search '${query}' dropped a match`);
        // A statement tests at most 8 distinct terms (more only narrow the match).
        if (terms.every((t) => /^[a-z0-9]+$/.test(t) && !/^[0-9e]+$/.test(t)) && new Set(terms).size <= 8 && terms.length > 0) {
          assert.deepEqual(got, [...new Set([...matches, ...unfolded])].sort(), `search '${query}': ASCII terms find exactly the core's matches`);
        }
        const scope = { agentId: 'a1', groupId: 'G1', config: { search: { mode: 'terms' } } };
        const rows = full.filter((e) => got.includes(e.id));
        assert.equal(await toolAnswer(rows, 'searchMemory', { query }, scope), await toolAnswer(full, 'searchMemory', { query }, scope), `search '${query}'`);
      }
    };
    const everything = async (users) => {
      const all = [];
      for (const u of users) all.push(...(await b.store.list(u)));
      return all.filter((e, i, arr) => arr.findIndex((x) => x.id === e.id) === i);
    };

    test('the shared tool scenarios, byte-exact, store failures injected per operation class', async () => {
      for (const s of toolScenarios.scenarios) {
        await seed(scenarioEntries(s));
        const store = faulty(b.store);
        await replayToolScenario(s, { label: name, store, setFail: (ops) => store.setFail(ops), storedEntries: () => everything(scenarioUsers(s)) });
      }
    });

    test('the shared Dream vectors (setups that break the identity indexes are refused instead)', async () => {
      let ran = 0;
      let refused = 0;
      for (const [file, doc] of dreamFiles) {
        for (const c of doc.cases) {
          const entries = caseEntries(c, doc.defaults);
          if (collides(entries)) {
            // Two global entries with one key (a contradiction between agents) cannot exist here:
            // the schema enforces the identity of SPEC §2.4, so the second write is refused.
            await b.reset();
            await assert.rejects(async () => { for (const e of entries) await b.store.upsert(e); }, (e) => isCode('E_HOST')(e) && e.details.reason === 'identity-conflict', c.name);
            refused++;
            continue;
          }
          await seed(entries);
          const store = faulty(b.store);
          store.failNth(c.storeFails ?? {});
          await replayDreamCase(file, c, doc.defaults, { label: name, store, clearFails: () => store.failNth({}) });
          ran++;
        }
      }
      assert.ok(ran >= 65 && refused <= 6, `${ran} ran, ${refused} refused`);
    });

    test('ContextMemory on SQL profile storage: load, afterTurn rewrite, 16 concurrent turns with no lost update', async () => {
      await b.reset();
      const storage = b.store;
      await storage.write(PATH, STORED, { ifAbsent: true });
      const quiet = new ContextMemory({ storage, model: { complete: async (r) => (r.purpose === 'gate' ? 'UPDATE' : body(['- Ana, analyst in Porto'])) }, now: NOW });
      const loaded = await quiet.load({ userId: 'u1', enabled: true });
      assert.equal(loaded.outcome, 'loaded');
      assert.match(loaded.systemPromptSection, /- Ana, analyst/);
      // On PostgreSQL a turn is 3 round trips: the restriction flag (the store is also the entry
      // store), the profile read, and the conditional write (RETURNING).
      const queries = [];
      const pool = name === 'postgres' ? b.store.pool : null;
      const query = pool?.query;
      if (pool) pool.query = (...args) => (queries.push(args[0]), query.apply(pool, args));
      const report = await quiet.afterTurn({ userId: 'u1', enabled: true, userMessage: 'I moved to Porto.', assistantMessage: 'Nice!' });
      if (pool) {
        pool.query = query;
        assert.equal(queries.length, 3, queries.join('\n'));
        assert.match(queries[0], /FROM memcore_entries/);
        assert.match(queries[2], /^UPDATE memcore_profiles[\s\S]*WHERE path = \$3 AND version = \$4 RETURNING version$/);
      }
      assert.equal(report.outcome, 'updated');
      assert.match((await storage.read(PATH)).text, /turn_count: 5\n[\s\S]*- Ana, analyst in Porto/);
      assert.equal((await quiet.load({ userId: 'nobody', enabled: true })).outcome, 'no-profile');

      await storage.write(PATH, STORED);
      const model = {
        async complete(request) {
          await new Promise((r) => setTimeout(r, 1));
          if (request.purpose === 'gate') return 'UPDATE';
          const current = /<current_profile>\n?([\s\S]*?)\n?<\/current_profile>/.exec(request.user)?.[1] ?? '';
          const fact = /<user_message>\n?Remember fact #(\d+)/.exec(request.user)[1];
          return current.replace('## Communication Preferences', `- fact #${fact}\n\n## Communication Preferences`).replace('- Ana, analyst\n\n- fact', '- Ana, analyst\n- fact').replace(/\n\n- fact/g, '\n- fact');
        },
      };
      // Two ContextMemory instances, as two processes would be: only the database's CAS protects.
      const one = new ContextMemory({ storage, model, now: NOW }, { maxConflictRetries: 20 });
      const two = new ContextMemory({ storage: await b.reopen(), model, now: NOW }, { maxConflictRetries: 20 });
      const reports = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? one : two).afterTurn({ userId: 'u1', enabled: true, userMessage: `Remember fact #${i}`, assistantMessage: 'ok' })));
      assert.deepEqual([...new Set(reports.map((r) => r.outcome))], ['updated']);
      const text = (await storage.read(PATH)).text;
      for (let i = 0; i < 16; i++) assert.match(text, new RegExp(`- fact #${i}\\n`), `fact ${i}`);
      assert.equal(parseProfile(text).frontmatter.turnCount, 4 + 16);
      assert.equal(await quiet.deleteContextMemory('u1'), true);
      assert.equal(await storage.read(PATH), null);
    });

    test('recall, search, oldestOwn, countUser and findByKey over 1,000 generated entries equal the core over list (seed 20261201)', async () => {
      const entries = generatedEntries(20261201, 1000);
      await seed(entries);
      const full = await b.store.list('u1');
      assert.equal(full.length, entries.filter((e) => e.userId === 'u1').length);
      const core = new m.InMemoryEntryStore();
      for (const e of entries) core.upsert(e);
      assert.equal(await b.store.countUser('u1'), core.countUser('u1'), 'countUser: the core rule (Rust trim: U+FEFF is not whitespace, U+0085 and U+3000 are)');
      assert.equal(await b.store.countUser('other-user'), core.countUser('other-user'));

      const answer = toolAnswer;
      let recalls = 0;
      for (const agentId of ['a1', 'a2', 'nobody']) {
        for (const groupId of [null, 'G1', 'G3', '']) {
          for (const order of ['most_recent', 'most_accessed']) {
            for (const limit of [1, 7, 50]) {
              const got = await b.store.recall({ userId: 'u1', agentId, groupId, order, limit });
              assert.ok(got.every((e) => e.userId === 'u1'));
              const scope = { agentId, groupId, config: { maxRecallEntries: limit, recallOrder: order, search: { mode: 'terms' } } };
              assert.equal(await answer(got, 'recallMemories', {}, scope), await answer(full, 'recallMemories', {}, scope), `recall ${agentId} ${groupId} ${order} ${limit}`);
              recalls++;
            }
          }
        }
      }
      await assertSearchExact(full, ['dog', 'dog name', 'REX', 'cafe', 'café', 'strasse', 'straße', 'οδος', 'ΟΔΟΣ', 'kelvin', '\u212Aelvin', 'i̇stanbul', '100', 'a_b', '%', 'slash', 'x2 cat', '12', 'true', 'w']);
      assert.deepEqual(await b.store.search('u1', '!!!'), []);

      // The core's eviction order, observed: at the cap, each new key of a1 evicts a1's oldest entry.
      const own = full.filter((e) => e.sourceAgentId === 'a1');
      const evicted = [];
      const host = listStore(full);
      const tools = m.createMemoryTools({ store: host, userId: 'u1', agentId: 'a1', config: { maxEntriesPerUser: core.countUser('u1'), onCapReached: 'evict_oldest', guardrails: { maxWritesPerTurn: 100 } }, now: () => '2027-01-01T00:00:00Z' });
      for (let i = 0; i < 12; i++) {
        const before = new Set(host.entries.map((e) => e.id));
        assert.match(await tools.call('rememberFact', { key: `new_${i}`, value: 'v', category: 'fact' }), /^✅ Remembered/);
        evicted.push(...[...before].filter((id) => !host.entries.some((e) => e.id === id)));
      }
      const oldest = await b.store.oldestOwn({ userId: 'u1', agentId: 'a1', limit: 12 });
      assert.deepEqual(oldest.map((e) => e.id), evicted, 'oldestOwn = the order the core evicts in');
      assert.ok(own.length > 12);
      assert.ok((await b.store.oldestOwn({ userId: 'u1', agentId: 'a1', limit: 10000 })).every((e) => e.sourceAgentId === 'a1' && !/^[ \u3000]*_gdpr_/.test(e.key)));

      for (const e of full.slice(0, 40)) {
        const found = await b.store.findByKey('u1', e.key);
        assert.deepEqual(found.map((x) => x.id).sort(), full.filter((x) => x.key === e.key).map((x) => x.id).sort());
      }
      assert.ok(recalls >= 72);
    });

    test('search over 1,000 generated entries (seed 20261202): exactly the core\'s matches plus the rows without search_text, for terms of 1, 2, 3+ characters, several terms, SQL and FTS5 syntax, non-ASCII terms and rows, non-string values', async () => {
      await seed(searchEntries(20261202, 1000));
      const full = await b.store.list('u1');
      assert.equal(full.length, 800);
      // Only values nested too deep have no search_text here (non-ASCII text and non-string values do).
      const [{ n }] = await b.sql("SELECT count(*) AS n FROM memcore_entries WHERE user_id = 'u1' AND search_text IS NULL");
      assert.ok(Number(n) > 5 && Number(n) < 40, `${n} rows without search_text`);
      await assertSearchExact(full, SEARCH_QUERIES);
      // Each kind of statement ran: indexed (a 3+ character term), all short terms, a non-ASCII term.
      const long = SEARCH_QUERIES.filter((q) => m.searchTerms(q).some((t) => t.length >= 3));
      assert.ok(long.length > 30 && SEARCH_QUERIES.length - long.length > 20, `${long.length} of ${SEARCH_QUERIES.length}`);
    });

    test('query plans: recall, identity lookup, eviction order, count, findByKey and search are index-driven', async () => {
      // Plus a few rows with rare words: for a term that most rows hold, reading the user's rows
      // is the cheaper plan, and PostgreSQL's planner rightly takes it.
      const rare = [0, 1, 2].map((i) => entry({ id: `rare${i}`, key: `zanzibar_${i}`, value: `quokka 東京 x ${100 + i}`, visibility: 'self', sourceAgentId: `r${i}` }));
      await seed([...generatedEntries(7, 1500), ...rare]);
      const evict = JSON.stringify(['x']);
      const probe = entry({ key: 'dog_cat_1', visibility: 'self' });
      const sqlitePlans = {
        recallRecent: [SQLITE_SQL.recallRecent, ['u1', 'a1', 'G1', 'G1', 50], 'memcore_entries_user_recent'],
        recallAccessed: [SQLITE_SQL.recallAccessed, ['u1', 'a1', 'G1', 'G1', 50, 'u1', 'a1', 'G1', 'G1', 50], 'memcore_entries_user_accessed'],
        oldestOwn: [SQLITE_SQL.oldestOwn, ['u1', 'a1', 5], 'memcore_entries_agent_oldest'],
        countUser: [SQLITE_SQL.countUser, ['u1'], 'memcore_user_counts'],
        findByKey: [SQLITE_SQL.findByKey, ['u1', 'k'], 'memcore_entries_user_key'],
        // Terms of 3+ characters go through the FTS5 trigram index (a non-ASCII one as its
        // skeleton; one that could lie in a number also as NUMBER_MARK), short ones are tested on
        // its candidates; only all-short queries test each of the user's rows.
        search: [...sqliteSearch('u1', prefilter(['zanzibar', 'quokka'])), 'memcore_search VIRTUAL TABLE'],
        searchCommon: [...sqliteSearch('u1', prefilter(['dog', 'cat'])), 'memcore_search VIRTUAL TABLE'],
        searchWithShortTerm: [...sqliteSearch('u1', prefilter(['zanzibar', 'x'])), 'memcore_search VIRTUAL TABLE'],
        searchShortTerms: [...sqliteSearch('u1', prefilter(['do', 'x'])), 'memcore_entries_user_'],
        searchNonAscii: [...sqliteSearch('u1', prefilter(['東京'])), 'memcore_search VIRTUAL TABLE'],
        searchNumber: [...sqliteSearch('u1', prefilter(['100', '7'])), 'memcore_search VIRTUAL TABLE'],
        capCount: [SQLITE_SQL.capCount, ['u1', evict, 'u1'], 'memcore_user_counts'],
        capEvict: [SQLITE_SQL.capEvict, ['u1', evict, ...identityParams(probe), evict, 'u1', evict, 'u1', 500], 'sqlite_autoindex_memcore_entries_1'],
        identity: [SQLITE_SQL.identity, identityParams(probe), 'memcore_entries_user_key'],
      };
      if (name === 'postgres') {
        const pg = {
          recallRecent: [POSTGRES_SQL.recallRecent, ['u1', 'a1', 'G1', 50], 'memcore_entries_user_recent'],
          recallAccessed: [POSTGRES_SQL.recallAccessed, ['u1', 'a1', 'G1', 50], 'memcore_entries_user_accessed'],
          oldestOwn: [POSTGRES_SQL.oldestOwn, ['u1', 'a1', 5], 'memcore_entries_agent_oldest'],
          countUser: [POSTGRES_SQL.countUser, ['u1'], 'memcore_user_counts'],
          findByKey: [POSTGRES_SQL.findByKey, ['u1', 'k'], 'memcore_entries_user_key'],
          search: [...postgresSearch('u1', prefilter(['zanzibar', 'quokka'])), 'memcore_search_trgm'],
          searchWithShortTerm: [...postgresSearch('u1', prefilter(['zanzibar', 'x'])), 'memcore_search_trgm'],
          searchShortTerms: [...postgresSearch('u1', prefilter(['do', 'x'])), 'memcore_entries_user_'],
          // A pattern of marks only holds no trigram pg_trgm could look up (it indexes letters and
          // digits): the other term drives the lookup.
          searchNonAscii: [...postgresSearch('u1', prefilter(['東京', 'zanzibar'])), 'memcore_search_trgm'],
          searchNumber: [...postgresSearch('u1', prefilter(['zanzibar', '100'])), 'memcore_search_trgm'],
          identity: [POSTGRES_SQL.identity, identityParams(probe), 'memcore_entries_'],
        };
        await manyOtherUsers(b.sql);
        const client = await b.store.pool.connect();
        try {
          // A 1,500-row table is small enough that a sequential scan can be cheaper; forbid it to
          // show the indexes serve each statement (at scale the planner picks them on its own).
          await client.query('SET enable_seqscan = off');
          for (const [label, [text, params, index]] of Object.entries(pg)) {
            const plan = (await client.query(`EXPLAIN ${text}`, params)).rows.map((r) => r['QUERY PLAN']).join('\n');
            assert.doesNotMatch(plan, /Seq Scan on memcore_entries/, `${label}:\n${plan}`);
            assert.ok(plan.includes(index), `${label} uses ${index}:\n${plan}`);
            if (label === 'recallRecent' || label === 'oldestOwn') assert.doesNotMatch(plan, /Sort/, `${label} reads in index order:\n${plan}`);
            // An indexed search never reads the user's index range: the trigram index, then the
            // user's rows without search_text.
            if (label.startsWith('search') && label !== 'searchShortTerms') {
              assert.doesNotMatch(plan, /memcore_entries_user_/, `${label}:\n${plan}`);
              assert.ok(plan.includes('memcore_entries_search_null'), `${label} reads the rows without search_text by their index:\n${plan}`);
            }
          }
        } finally {
          await client.query('RESET enable_seqscan');
          client.release();
        }
        return;
      }
      for (const [label, [text, params, index]] of Object.entries(sqlitePlans)) {
        let rows;
        try {
          rows = await b.sql(`EXPLAIN QUERY PLAN ${text}`, params);
        } catch (error) {
          // D1 does not run EXPLAIN; it executes the same statements on the same SQLite schema,
          // whose plans the sqlite backends check.
          assert.equal(name, 'd1', error.message);
          return;
        }
        const plan = rows.map((r) => r.detail).join('\n');
        assert.doesNotMatch(plan, /^SCAN memcore_entries\b/m, `${label}:\n${plan}`);
        assert.ok(plan.includes(index), `${label} uses ${index}:\n${plan}`);
        if (label === 'recallRecent' || label === 'oldestOwn') assert.doesNotMatch(plan, /TEMP B-TREE/, `${label} reads in index order:\n${plan}`);
        // The cap statements touch the evict ids and one count row, never the user's index range.
        if (label.startsWith('cap')) assert.doesNotMatch(plan, /memcore_entries USING [^\n]*\(user_id=\?( AND reserved=\?)?\)/, `${label}:\n${plan}`);
        // An indexed search never reads the user's index range: the trigram index's rows by
        // primary key, then the user's rows without search_text.
        if (label.startsWith('search') && label !== 'searchShortTerms') {
          assert.doesNotMatch(plan, /memcore_entries_user_/, `${label}:\n${plan}`);
          assert.ok(plan.includes('USING INDEX memcore_entries_search_null (user_id=?)'), `${label} reads the rows without search_text by their index:\n${plan}`);
          assert.match(plan, /^SCAN memcore_search VIRTUAL TABLE INDEX \d+:M\d*\nSEARCH r USING INTEGER PRIMARY KEY \(rowid=\?\)\nSEARCH e USING INDEX sqlite_autoindex_memcore_entries_1 \(id=\?\)$/m, `${label}:\n${plan}`);
        }
      }
    });

    test('search vectors: the prefilter keeps every match (Unicode folding, non-string values)', async () => {
      const v = vectors('entries/search.json');
      await b.reset();
      let i = 0;
      for (const c of v.matches) await b.store.upsert(entry({ id: `s${i++}`, key: c.key, value: c.value, visibility: 'self', sourceAgentId: `agent-${i}` }));
      i = 0;
      for (const c of v.matches) {
        const got = await b.store.search('u1', c.query);
        if (c.matches) assert.ok(got.some((e) => e.id === `s${i}`), `${c.query} ~ ${c.key}=${JSON.stringify(c.value)}`);
        i++;
      }
      // LIKE metacharacters and backslashes match literally (terms never hold them, values may).
      await b.reset();
      await b.store.upsert(entry({ id: 'p', key: 'pct', value: '100% sure' }));
      await b.store.upsert(entry({ id: 'q', key: 'plain', value: '1000 sure' }));
      assert.deepEqual((await b.store.search('u1', '100%')).map((e) => e.id).sort(), ['p', 'q']);
      assert.deepEqual((await b.store.search('u1', 'pct sure')).map((e) => e.id), ['p']);
    });

    test('search statements take FTS5 syntax, quotes and LIKE metacharacters in a term literally (terms the core never makes, bound all the same)', async () => {
      await b.reset();
      const texts = ['say a"b now', 'say ab now', 'x*y and or(', 'n:1 -no near(', '10% off', '100% sure', 'a_b', 'axb', 'a\\b', 'it\'s', 'plain words'];
      for (const [i, value] of texts.entries()) await b.store.upsert(entry({ id: `t${i}`, key: `k${i}`, value, visibility: 'self', sourceAgentId: `a${i}` }));
      let deep = 'leaf';
      for (let i = 0; i < 80; i++) deep = [deep];
      await b.store.upsert(entry({ id: 'u', key: 'unfolded', value: deep })); // too deep for a search_text: in every answer
      await b.store.upsert(entry({ id: 'w', userId: 'u2', key: 'k', value: 'say a"b now 10% off' }));
      const run = async (terms) => {
        const [sql, params] = name === 'postgres' ? postgresSearch('u1', literalPlan(terms)) : sqliteSearch('u1', literalPlan(terms));
        return (await b.sql(sql, params)).map((r) => r.id);
      };
      const cases = [
        [['a"b'], ['t0']], [['"a"'], []], [['x*y'], ['t2']], [['x*'], ['t2']], [['or('], ['t2']], [['and', 'or('], ['t2']], [['n:1'], ['t3']], [['-no'], ['t3']],
        [['near('], ['t3']], [['near(', 'n'], ['t3']], [['NEAR'], ['t3']], [['AND'], ['t2']], [['a"b', 'x*y'], []], [['10%'], ['t4']], [['0% '], ['t4', 't5']], [['a_b'], ['t6']],
        [['a\\b'], ['t8']], [['it\''], ['t9']], [["'s", 'i'], ['t9']], [['%'], ['t4', 't5']], [['_'], ['t6']], [['\\'], ['t8']],
      ];
      for (const [terms, ids] of cases) assert.deepEqual(await run(terms), [...ids, 'u'].sort(), JSON.stringify(terms));
      if (name === 'postgres') {
        assert.deepEqual(['a%b', 'a_b', 'a\\b'].map(containsPattern), ['%a\\%b%', '%a\\_b%', '%a\\\\b%']);
        return;
      }
      // FTS5 keywords and operators in a phrase are text (patterns are lowercase, but the query
      // builder does not rely on that).
      assert.equal(ftsQuery([{ anyOf: ['a"b'] }, { anyOf: ['12', NUMBER_MARK] }]), `"a""b" AND ("12" OR "${NUMBER_MARK}")`);
      for (const pattern of ['AND', 'NEAR(a b)', 'OR', 'NOT', 'x:y', '"', '*', '^a', '-a', '(', ')', '{a}', '+']) {
        assert.deepEqual(await b.sql('SELECT rowid FROM memcore_search WHERE memcore_search MATCH ?', [ftsQuery([{ anyOf: [pattern] }])]), [], pattern);
      }
    });

    test('the search index follows every write: upsert, user change, delete, insertWithinCap (update in place, insert, evict); a changed row is not found on its old text', async () => {
      await b.reset();
      const ids = async (user, query) => (await b.store.search(user, query)).map((e) => e.id);
      const expectIndex = async (term, matching) => {
        const state = await searchIndexState(b.sql, name === 'postgres' ? 'postgres' : 'sqlite');
        assert.deepEqual([state.docs, state.rows, state.stale], [state.texts, state.texts, 0], JSON.stringify(state));
        assert.deepEqual(await state.matching(term), matching, term);
      };
      await b.store.upsert(entry({ id: 'a', key: 'pet', value: 'alpha dog', visibility: 'self' }));
      await b.store.upsert(entry({ id: 'b', key: 'pet2', value: 'Alpha cat', visibility: 'self', sourceAgentId: 'a2' }));
      await b.store.upsert(entry({ id: 'c', userId: 'u2', key: 'pet', value: 'alpha' }));
      assert.deepEqual(await ids('u1', 'alpha'), ['a', 'b']);
      await expectIndex('alpha', ['a', 'b', 'c']);
      await b.store.upsert(entry({ id: 'a', key: 'pet', value: 'beta bird', visibility: 'self' }));
      assert.deepEqual([await ids('u1', 'alpha'), await ids('u1', 'beta')], [['b'], ['a']]);
      await expectIndex('alpha', ['b', 'c']);
      await b.store.upsert(entry({ id: 'a', key: 'pet', value: 'Café', visibility: 'self' }));
      assert.deepEqual([await ids('u1', 'beta'), await ids('u1', 'café'), await ids('u1', 'caf')], [[], ['a'], ['a']]);
      await expectIndex('beta', []);
      // A value too deep for a search_text: the row leaves the index and is a candidate of every query.
      let deep = 'alpha';
      for (let i = 0; i < 80; i++) deep = { d: deep };
      await b.store.upsert(entry({ id: 'a', key: 'pet', value: deep, visibility: 'self' }));
      assert.deepEqual([await ids('u1', 'caf'), await ids('u1', 'alpha')], [['a'], ['a', 'b']]);
      await expectIndex('caf', []);
      await b.store.upsert(entry({ id: 'a', key: 'pet', value: 'gamma', visibility: 'self' }));
      assert.deepEqual([await ids('u1', 'gamma'), await ids('u1', 'alpha')], [['a'], ['b']]);
      await b.store.upsert(entry({ id: 'a', userId: 'u3', key: 'pet', value: 'gamma', visibility: 'self' })); // moved to another user
      assert.deepEqual([await ids('u1', 'gamma'), await ids('u3', 'gamma')], [[], ['a']]);
      await expectIndex('gamma', ['a']);
      assert.equal(await b.store.delete('b'), true);
      assert.deepEqual(await ids('u1', 'alpha'), []);
      await expectIndex('alpha', ['c']);
      const cap = { maxEntries: 2, evict: [] };
      assert.deepEqual(await b.store.insertWithinCap(entry({ id: 'd', key: 'note', value: 'delta', visibility: 'self' }), cap), { written: true, count: 1 });
      assert.deepEqual(await ids('u1', 'delta'), ['d']);
      assert.deepEqual(await b.store.insertWithinCap(entry({ id: 'ignored', key: 'note', value: 'epsilon', visibility: 'self' }), cap), { written: true, count: 1 });
      assert.deepEqual([await ids('u1', 'delta'), await ids('u1', 'epsilon')], [[], ['d']]);
      await expectIndex('delta', []);
      await b.store.upsert(entry({ id: 'f', key: 'other', value: 'omega', visibility: 'self' }));
      assert.deepEqual(await b.store.insertWithinCap(entry({ id: 'g', key: 'new', value: 'eta', visibility: 'self' }), { maxEntries: 2, evict: ['d'] }), { written: true, count: 2 });
      assert.deepEqual([await ids('u1', 'epsilon'), await ids('u1', 'eta')], [[], ['g']]);
      await expectIndex('epsilon', []);
      await expectIndex('eta', ['g']);
    });

    test('migrations: a database at schema 3 with rows is upgraded to 4, its rows indexed, and search finds them', async () => {
      const fresh = await b.openFresh();
      const migrations = name === 'postgres' ? POSTGRES_MIGRATIONS : SQLITE_MIGRATIONS;
      for (const migration of migrations.filter((x) => x.version <= 3)) {
        if (name === 'postgres') await fresh.raw(migration.sql);
        else for (const statement of migration.statements) await fresh.raw(statement);
      }
      await fresh.raw('CREATE TABLE memcore_schema (version INTEGER PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL)');
      for (const version of [1, 2, 3]) await fresh.raw(`INSERT INTO memcore_schema (version, applied_at) VALUES (${version}, 'then')`);
      const old = searchEntries(20261203, 120);
      const cols = 'id, user_id, key, value, category, visibility, source_agent_id, group_ids, source_conversation_id, conflicted, access_count, created_at, updated_at, updated_sort, reserved, search_text';
      const marks = name === 'postgres' ? Array.from({ length: 16 }, (_, i) => `$${i + 1}`).join(', ') : Array.from({ length: 16 }, () => '?').join(', ');
      // The rows as schema-3 code wrote them: search_text only for ASCII strings (the same text the
      // skeleton gives them), NULL for every other row.
      // eslint-disable-next-line no-control-regex
      const schema3Text = (key, value) => (typeof value === 'string' && /^[\x00-\x7f]*$/.test(key + value) ? `${key}\u0001${value}`.toLowerCase() : null);
      for (const e of old) {
        await fresh.raw(`INSERT INTO memcore_entries (${cols}) VALUES (${marks})`, [e.id, e.userId, e.key, JSON.stringify(e.value), e.category, e.visibility, e.sourceAgentId, '[]', null,
          name === 'postgres' ? false : 0, 0, e.createdAt, e.updatedAt, `0${e.updatedAt}`, name === 'postgres' ? false : 0, schema3Text(e.key, e.value)]);
      }
      const upgraded = await fresh.open();
      assert.equal(upgraded.schemaVersion, LATEST);
      assert.deepEqual((await fresh.raw('SELECT version FROM memcore_schema ORDER BY version')).map((r) => Number(r.version)), ALL_VERSIONS);
      if (name === 'postgres') {
        assert.deepEqual((await fresh.raw("SELECT indexname FROM pg_indexes WHERE indexname LIKE 'memcore_%search%' ORDER BY 1")).map((r) => r.indexname), ['memcore_entries_search_null', 'memcore_search_pkey', 'memcore_search_trgm', 'memcore_search_user']);
      }
      const state = await searchIndexState(fresh.raw, name === 'postgres' ? 'postgres' : 'sqlite');
      // The upgrade computed search_text for the rows schema 3 left NULL (non-ASCII text,
      // non-string values): every row that schema 4 would give one has it, and the index holds it.
      const texted = old.filter((e) => searchText(e.key, e.value) !== null).length;
      assert.ok(old.filter((e) => schema3Text(e.key, e.value) === null).length > 30, 'rows schema 3 left without search_text');
      assert.equal(state.texts, texted, `${state.texts} rows with search_text, ${texted} expected`);
      // Each is the text a write of the stored value gives (PostgreSQL's jsonb answers objects
      // with its own key order; the skeleton of either order holds every term of the core).
      const stored = await fresh.raw('SELECT id, key, value, search_text FROM memcore_entries ORDER BY id');
      for (const row of stored) {
        assert.equal(row.search_text, searchText(row.key, name === 'postgres' ? row.value : JSON.parse(row.value)), row.id);
      }
      assert.deepEqual([state.docs, state.rows, state.stale], [state.texts, state.texts, 0]);
      const full = old.filter((e) => e.userId === 'u1').map((e) => ({ ...e, groupIds: [] }));
      await assertSearchExact(full, SEARCH_QUERIES.slice(0, 30), { store: upgraded, sql: fresh.raw });
      // Writes after the upgrade go through the triggers of schema 4.
      await upgraded.upsert({ ...old[1], value: 'rewritten' });
      assert.deepEqual((await upgraded.search('u1', 'rewritten')).map((e) => e.id).filter((id) => id === old[1].id), [old[1].id]);
      if (name !== 'd1') await upgraded.close();
      await fresh.close();
    });

    test('migrations: a database at schema 10 is upgraded to 11, each entry written by the writer kind of its newest write or restore in the audit log', async () => {
      const fresh = await b.openFresh();
      const migrations = name === 'postgres' ? POSTGRES_MIGRATIONS : SQLITE_MIGRATIONS;
      for (const migration of migrations.filter((x) => x.version <= 10)) {
        if (name === 'postgres') await fresh.raw(migration.sql);
        else for (const statement of migration.statements) await fresh.raw(statement);
      }
      await fresh.raw('CREATE TABLE IF NOT EXISTS memcore_schema (version INTEGER PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL)');
      for (let version = 1; version <= 10; version += 1) await fresh.raw(`INSERT INTO memcore_schema (version, applied_at) VALUES (${version}, 'then')`);
      const cols = 'id, user_id, key, value, category, visibility, source_agent_id, group_ids, source_conversation_id, conflicted, access_count, created_at, updated_at, updated_sort, reserved, search_text';
      const marks = (n) => (name === 'postgres' ? Array.from({ length: n }, (_, i) => `$${i + 1}`) : Array.from({ length: n }, () => '?')).join(', ');
      const at = '2026-05-01T10:00:00.000Z';
      for (const [id, userId, key] of [['e1', 'u1', 'city'], ['e2', 'u1', 'pet'], ['e3', 'u1', 'old'], ['e4', 'u2', 'tea']]) {
        await fresh.raw(`INSERT INTO memcore_entries (${cols}) VALUES (${marks(16)})`, [id, userId, key, JSON.stringify(`${key} value`), 'fact', 'global', 'agent-a', '[]', null,
          name === 'postgres' ? false : 0, 0, at, at, `0${at}`, name === 'postgres' ? false : 0, null]);
      }
      // In append order: e1 written by an agent then learned (then a Dream delete record, which is
      // not a write); e2 learned then restored over REST; e4's id once named an entry of u1 that
      // an MCP call wrote, and u2's entry was written by the migration; e3 has no record left.
      const records = [
        ['u1', 'write', 'agent', 'e1'], ['u1', 'write', 'learned', 'e2'], ['u1', 'write', 'learned', 'e1'], ['u2', 'write', 'migration', 'e4'],
        ['u1', 'restore', 'rest', 'e2'], ['u1', 'write', 'mcp', 'e4'], ['u1', 'delete', 'dream', 'e1'], ['u1', 'learn', 'learned', null],
      ];
      for (const [userId, operation, kind, entryId] of records) {
        const body = JSON.stringify({ at, actor: { kind, id: 'x' }, operation, userId, entryId, key: null, items: null });
        await fresh.raw(`INSERT INTO memcore_audit (at, user_id, operation, body) VALUES (${marks(4)})`, [at, userId, operation, body]);
      }
      const upgraded = await fresh.open();
      assert.equal(upgraded.schemaVersion, LATEST);
      const writers = async (userId) => Object.fromEntries((await upgraded.list(userId)).map((e) => [e.id, e.writtenBy ?? null]));
      assert.deepEqual(await writers('u1'), { e1: 'learned', e2: 'rest', e3: null });
      assert.deepEqual(await writers('u2'), { e4: 'migration' });
      assert.equal('writtenBy' in (await upgraded.get('e3')), false, 'an unknown writer is absent, as the core writes it');
      // A write after the upgrade keeps what it is given; a kind the store does not know is refused.
      await upgraded.upsert({ ...(await upgraded.get('e3')), value: 'new', writtenBy: 'dream' });
      assert.equal((await upgraded.get('e3')).writtenBy, 'dream');
      await assert.rejects(upgraded.upsert({ ...(await upgraded.get('e3')), writtenBy: 'someone' }), (e) => e.code === 'E_ARGUMENT' && /writtenBy/.test(e.message));
      if (name !== 'd1') await upgraded.close();
      await fresh.close();
    });

    test('PostgreSQL without the right to create pg_trgm: migration 4 succeeds without the trigram index, search answers the same; memcore_create_search_index() adds it once an administrator has installed pg_trgm', { skip: name !== 'postgres' }, async () => {
      const pg = (await import('pg')).default;
      const url = (user, db) => b.server.url.replace(/\/\/[^@]+@/, `//${user}@`).replace(/\/[^/]+$/, `/${db}`);
      // A role that may create tables in the public schema of its database but not extensions
      // (CREATE on the database), as application roles often are. Fixed identifiers, not values.
      await b.sql('CREATE ROLE memcore_app LOGIN');
      await b.sql('CREATE DATABASE memcore_app_db');
      const admin = new pg.Pool({ connectionString: url('postgres', 'memcore_app_db'), max: 1 });
      await admin.query('GRANT CREATE ON SCHEMA public TO memcore_app');
      const appPool = new pg.Pool({ connectionString: url('memcore_app', 'memcore_app_db'), max: 2 });
      const sql = async (text, params = []) => (await appPool.query(text, params)).rows;
      const plan = async (terms) => {
        const client = await appPool.connect();
        try {
          await client.query('SET enable_seqscan = off');
          const [text, params] = postgresSearch('u1', prefilter(terms));
          return (await client.query(`EXPLAIN ${text}`, params)).rows.map((r) => r['QUERY PLAN']).join('\n');
        } finally {
          client.release();
        }
      };
      try {
        assert.deepEqual(await sql("SELECT has_database_privilege('memcore_app_db', 'CREATE') AS may"), [{ may: false }]);
        const store = await openPostgres(appPool);
        assert.equal(store.schemaVersion, LATEST);
        const indexes = async () => (await sql("SELECT indexname FROM pg_indexes WHERE indexname LIKE '%search_trgm' ORDER BY 1")).map((r) => r.indexname);
        assert.deepEqual(await indexes(), []);
        assert.deepEqual(await sql("SELECT extname FROM pg_extension WHERE extname = 'pg_trgm'"), []);
        const entries = searchEntries(20261204, 400);
        for (let i = 0; i < entries.length; i += 20) await Promise.all(entries.slice(i, i + 20).map((e) => store.upsert(e)));
        const full = await store.list('u1');
        await assertSearchExact(full, SEARCH_QUERIES, { store, sql });
        // The same statement without the trigram index: the user's index range, each row tested.
        assert.match(await plan(['dog']), /memcore_search_user[\s\S]*Index Cond: \(user_id = 'u1'::text\)/);
        assert.doesNotMatch(await plan(['dog']), /search_trgm/);
        // An administrator installs pg_trgm into a schema that is not on the role's search_path.
        await admin.query('CREATE SCHEMA memcore_ext');
        await admin.query('CREATE EXTENSION pg_trgm SCHEMA memcore_ext');
        assert.deepEqual(await sql('SELECT memcore_create_search_index() AS made'), [{ made: false }], 'no USAGE on memcore_ext: no index, no error');
        assert.deepEqual(await indexes(), []);
        await admin.query('GRANT USAGE ON SCHEMA memcore_ext TO memcore_app');
        assert.deepEqual(await sql('SELECT memcore_create_search_index() AS made'), [{ made: true }]);
        assert.deepEqual(await indexes(), ['memcore_search_trgm']);
        await manyOtherUsers(sql);
        const indexed = await plan(['dog']);
        assert.match(indexed, /Bitmap Index Scan on memcore_search_trgm/);
        assert.doesNotMatch(indexed, /memcore_entries_user_/);
        await assertSearchExact(full, SEARCH_QUERIES, { store, sql });
        assert.deepEqual(await sql('SELECT memcore_create_search_index() AS made'), [{ made: true }], 'idempotent');
        await store.close();
      } finally {
        await appPool.end();
        await admin.end();
      }
    });

    test('insertWithinCap: evicts then writes, updates an existing identity in place, refuses at the cap and undoes its evictions', async () => {
      await seed([
        entry({ id: 'old1', key: 'k1', visibility: 'self', updatedAt: '2026-01-01T00:00:00Z' }),
        entry({ id: 'old2', key: 'k2', visibility: 'self', updatedAt: '2026-01-02T00:00:00Z' }),
        entry({ id: 'gdpr', key: '_gdpr_flag', visibility: 'global' }),
        entry({ id: 'theirs', userId: 'u2', key: 'k9' }),
      ]);
      const fresh = entry({ id: 'new1', key: 'k3', visibility: 'self', updatedAt: '2026-02-01T00:00:00Z' });
      assert.deepEqual(await b.store.insertWithinCap(fresh, { maxEntries: 2, evict: [] }), { written: false, count: 2 });
      assert.equal(await b.store.get('new1'), null);
      // Evicting an id of another user does nothing; the refusal restores what it evicted.
      assert.deepEqual(await b.store.insertWithinCap(fresh, { maxEntries: 1, evict: ['old1', 'theirs'] }), { written: false, count: 1 });
      assert.ok(await b.store.get('old1'));
      assert.ok(await b.store.get('theirs'));
      assert.deepEqual(await b.store.insertWithinCap(fresh, { maxEntries: 2, evict: ['old1', 'theirs'] }), { written: true, count: 2 });
      assert.equal(await b.store.get('old1'), null);
      assert.ok(await b.store.get('theirs'));
      await b.store.incrementAccess(['old2', 'old2']);
      const update = entry({ id: 'ignored', key: 'k2', visibility: 'group', groupIds: ['G1'], value: 'changed', updatedAt: '2026-03-01T00:00:00Z', createdAt: '2030-01-01T00:00:00Z' });
      // An update in place is written even at (or over) the cap.
      assert.deepEqual(await b.store.insertWithinCap(update, { maxEntries: 0, evict: [] }), { written: true, count: 2 });
      const kept = await b.store.get('old2');
      assert.deepEqual([kept.value, kept.visibility, kept.groupIds, kept.accessCount, kept.createdAt, kept.updatedAt], ['changed', 'group', ['G1'], 1, '2026-01-01T00:00:00Z', '2026-03-01T00:00:00Z']);
      assert.equal(await b.store.get('ignored'), null);
      assert.equal(await b.store.countUser('u1'), 2);
      // Concurrent inserts at the cap never exceed it.
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => b.store.insertWithinCap(entry({ id: `c${i}`, key: `c${i}`, visibility: 'self' }), { maxEntries: 6, evict: [] })));
      assert.equal(results.filter((r) => r.written).length, 4);
      assert.equal(await b.store.countUser('u1'), 6);
    });

    test('upsert, delete, incrementAccess, get: one row each, identity collisions refused clearly', async () => {
      await b.reset();
      await b.store.upsert(entry({ id: 'a', key: 'k', visibility: 'global' }));
      await b.store.upsert(entry({ id: 'b', key: 'k', visibility: 'self' })); // a self note beside the global fact
      await b.store.upsert(entry({ id: 'c', key: 'k', visibility: 'self', sourceAgentId: 'a2' }));
      await assert.rejects(b.store.upsert(entry({ id: 'd', key: 'k', visibility: 'global', sourceAgentId: 'a9' })), (e) => isCode('E_HOST')(e) && e.details.reason === 'identity-conflict' && /another entry already has the identity/.test(e.message));
      await assert.rejects(b.store.upsert(entry({ id: 'e', key: 'k', visibility: 'group', groupIds: ['G'] })), (e) => e.details.reason === 'identity-conflict');
      await b.store.upsert(entry({ id: 'b', key: 'k', visibility: 'group', groupIds: ['G'], value: 2 })); // the same id may change visibility
      assert.deepEqual((await b.store.get('b')).groupIds, ['G']);
      await b.store.incrementAccess(['a', 'b', 'a', 'missing']);
      assert.deepEqual([(await b.store.get('a')).accessCount, (await b.store.get('b')).accessCount], [1, 1]);
      await b.store.incrementAccess([]);
      assert.equal(await b.store.delete('a'), true);
      assert.equal(await b.store.delete('a'), false);
      assert.equal(await b.store.get('a'), null);
      assert.deepEqual((await b.store.findByKey('u1', 'k')).map((e) => e.id), ['b', 'c']);
      await assert.rejects(b.store.upsert({ id: 'x' }), isCode('E_ARGUMENT'));
      await assert.rejects(b.store.list(5), isCode('E_ARGUMENT'));
      await assert.rejects(b.store.recall({ userId: 'u1', agentId: 'a', order: 'random', limit: 1 }), isCode('E_ARGUMENT'));
    });

    test('migrations: reopening is idempotent; a database with a newer schema is refused and left untouched', async () => {
      const again = await b.reopen();
      assert.equal(again.schemaVersion, LATEST);
      assert.deepEqual((await b.sql('SELECT version FROM memcore_schema ORDER BY version')).map((r) => Number(r.version)), ALL_VERSIONS);
      const fresh = await b.openFresh();
      const opened = await fresh.open();
      assert.equal(opened.schemaVersion, LATEST);
      await opened.upsert(entry({ id: 'keep', key: 'k' }));
      if (name !== 'd1') await opened.close();
      await fresh.raw("INSERT INTO memcore_schema (version, applied_at) VALUES (99, 'later')");
      await assert.rejects(fresh.open(), (e) => isCode('E_HOST')(e) && e.details.reason === 'schema-newer' && e.details.found === 99 && e.details.supported === LATEST && /newer than this memcore supports/.test(e.message));
      assert.deepEqual((await fresh.raw('SELECT id FROM memcore_entries')).map((r) => r.id), ['keep']);
      assert.deepEqual((await fresh.raw('SELECT version FROM memcore_schema ORDER BY version')).map((r) => Number(r.version)), [...ALL_VERSIONS, 99]);
      await fresh.close();
    });

    test('migrations: a database at schema 1 (written before the per-user counts) is upgraded, its counts backfilled', async () => {
      const fresh = await b.openFresh();
      const first = (name === 'postgres' ? POSTGRES_MIGRATIONS : SQLITE_MIGRATIONS)[0];
      assert.equal(first.version, 1);
      if (name === 'postgres') await fresh.raw(first.sql);
      else for (const statement of first.statements) await fresh.raw(statement);
      await fresh.raw('CREATE TABLE memcore_schema (version INTEGER PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL)');
      await fresh.raw("INSERT INTO memcore_schema (version, applied_at) VALUES (1, 'then')");
      const row = (id, user, key) => [id, user, key, '"v"', 'fact', 'self', 'a', '[]', null, name === 'postgres' ? false : 0, 0, 't', 't', '0t', null, null];
      const cols = 'id, user_id, key, value, category, visibility, source_agent_id, group_ids, source_conversation_id, conflicted, access_count, created_at, updated_at, updated_sort, reserved, search_text';
      const marks = name === 'postgres' ? Array.from({ length: 16 }, (_, i) => `$${i + 1}`).join(', ') : Array.from({ length: 16 }, () => '?').join(', ');
      for (const [id, user, key] of [['o1', 'old', 'k1'], ['o2', 'old', 'k2'], ['o3', 'old', '_gdpr_x'], ['o4', 'older', 'k1']]) {
        const r = row(id, user, key);
        if (name !== 'postgres') r[14] = key.startsWith('_gdpr_') ? 1 : 0;
        else r[14] = key.startsWith('_gdpr_');
        await fresh.raw(`INSERT INTO memcore_entries (${cols}) VALUES (${marks})`, r);
      }
      const upgraded = await fresh.open();
      assert.equal(upgraded.schemaVersion, LATEST);
      assert.deepEqual((await fresh.raw('SELECT version FROM memcore_schema ORDER BY version')).map((r) => Number(r.version)), ALL_VERSIONS);
      assert.deepEqual([await upgraded.countUser('old'), await upgraded.countUser('older'), await upgraded.countUser('nobody')], [2, 1, 0]);
      await upgraded.delete('o1');
      await upgraded.upsert(entry({ id: 'o5', userId: 'old', key: 'k5' }));
      await upgraded.upsert(entry({ id: 'o5', userId: 'older', key: 'k5' })); // moved to another user
      await upgraded.upsert(entry({ id: 'o2', userId: 'old', key: '_gdpr_now_reserved' }));
      assert.deepEqual([await upgraded.countUser('old'), await upgraded.countUser('older')], [0, 2]);
      if (name !== 'd1') await upgraded.close();
      await fresh.close();
    });

    test('profile compare-and-swap: of two writers with one version exactly one wins; ifAbsent once; versions never reused', async () => {
      await b.reset();
      const other = await b.reopen();
      const { version } = await b.store.write(PATH, 'v1', { ifAbsent: true });
      await assert.rejects(other.write(PATH, 'again', { ifAbsent: true }), (e) => isCode('E_VERSION_CONFLICT')(e) && e.details.expected === null && e.details.actual === version);
      const outcomes = await Promise.allSettled([b.store.write(PATH, 'A', { ifVersion: version }), other.write(PATH, 'B', { ifVersion: version })]);
      assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
      const lost = outcomes.find((o) => o.status === 'rejected').reason;
      assert.ok(isCode('E_VERSION_CONFLICT')(lost));
      const won = outcomes.find((o) => o.status === 'fulfilled').value.version;
      assert.deepEqual([lost.details.path, lost.details.expected, lost.details.actual], [PATH, version, won]);
      assert.deepEqual(await b.store.read(PATH), { text: outcomes[0].status === 'fulfilled' ? 'A' : 'B', version: won });
      await assert.rejects(b.store.write(PATH, 'x', { ifVersion: 'not-a-version' }), (e) => e.details.actual === won);
      await assert.rejects(b.store.write('user-memory/none/memory.md', 'x', { ifVersion: '1' }), (e) => e.details.actual === null);
      const creators = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => (i % 2 ? other : b.store).write('user-memory/u9/memory.md', `c${i}`, { ifAbsent: true })));
      assert.equal(creators.filter((o) => o.status === 'fulfilled').length, 1);
      await b.store.remove(PATH);
      await b.store.remove(PATH);
      assert.equal(await b.store.read(PATH), null);
      const recreated = await b.store.write(PATH, 'new life');
      assert.notEqual(recreated.version, version);
      assert.notEqual(recreated.version, won);
      await assert.rejects(b.store.write(PATH, 'stale', { ifVersion: won }), isCode('E_VERSION_CONFLICT'));
      await assert.rejects(b.store.write(PATH, 'x', { ifAbsent: true, ifVersion: '1' }), isCode('E_ARGUMENT'));
      await assert.rejects(b.store.write('', 'x'), isCode('E_ARGUMENT'));
      await assert.rejects(b.store.write(PATH, 42), isCode('E_ARGUMENT'));
      await b.store.ensureRoot('user-memory');
    });

    test('eraseUserData (Art. 17): afterwards no table holds the user id; the report matches; twice is fine; export → import round trip', async () => {
      await b.reset();
      const memory = new ContextMemory({ storage: b.store, entries: b.store, model: { complete: (r) => (r.purpose === 'gate' ? 'UPDATE' : PROFILE_BODY) }, now: () => '2026-12-01T00:00:00Z' });
      for (const user of ['erase-me', 'keep-me']) {
        const tools = m.createMemoryTools({ store: b.store, userId: user, agentId: 'a', now: () => '2026-12-01T00:00:00Z', newId: (() => { let k = 0; return () => `${user}-${k++}`; })() });
        await tools.call('rememberFact', { key: 'k', value: 'v' });
        await tools.call('rememberFact', { key: 'g', value: { n: 1 }, visibility: 'global' });
        assert.equal((await memory.afterTurn({ userId: user, enabled: true, userMessage: 'I am Ana', assistantMessage: 'ok' })).outcome, 'updated');
      }
      await m.setProcessingRestriction(b.store, 'erase-me', true, { admin: true, now: () => '2026-12-01T00:00:00Z', newId: () => 'erase-me-flag' });
      const exported = await m.exportUserData('erase-me', { entries: b.store, memory, now: () => '2026-12-01T00:00:00Z' });
      assert.equal(exported.entries.length, 3);
      const report = await m.eraseUserData('erase-me', { entries: b.store, memory });
      // The store is also the memory's storage: its profile is erased once, through the ContextMemory.
      const kind = { postgres: 'PostgresStorage', d1: 'object' }[name] ?? 'SqliteStorage';
      // Two writes, the restriction and the export were audit records; no write replaced a state.
      // Nothing of another user named erase-me as the one who acted: nothing renamed.
      const history = { versions: 0, audit: 4, renamed: { audit: 0, versions: 0 } };
      assert.deepEqual(report, {
        userId: 'erase-me',
        // The store holds API keys (none of erase-me's): it was asked first.
        keys: 0,
        entries: [3],
        history: [history],
        episodes: [0],
        profiles: [{ removed: true, folderRemoved: false }],
        stores: [
          { option: 'options.entries', kind, entries: 3, history, profile: null, keys: 0, episodes: 0 },
          { option: 'options.memory', kind: 'ContextMemory', entries: null, history: null, profile: { removed: true, folderRemoved: false }, keys: null, episodes: null },
        ],
      });
      const holding = [];
      for (const table of ['memcore_entries', 'memcore_user_counts', 'memcore_entry_versions', 'memcore_audit', ...(name === 'postgres' ? ['memcore_search'] : [])]) {
        const rows = await b.sql(`SELECT * FROM ${table} WHERE user_id = 'erase-me'`);
        if (rows.length) holding.push(`${table}: ${rows.length}`);
      }
      const profiles = await b.sql("SELECT path FROM memcore_profiles WHERE path LIKE '%erase-me%'");
      if (profiles.length) holding.push(`memcore_profiles: ${profiles.length}`);
      assert.deepEqual(holding, [], 'no row of any table names the erased user');
      // The search index is in tables of its own: none of the erased entries is left in them.
      const state = await searchIndexState(b.sql, name === 'postgres' ? 'postgres' : 'sqlite');
      assert.deepEqual([state.docs, state.rows, state.stale], [state.texts, state.texts, 0]);
      if (name !== 'postgres') assert.deepEqual(await b.sql("SELECT entry_id FROM memcore_search_rows WHERE entry_id LIKE 'erase-me%'"), []);
      assert.equal((await b.sql("SELECT * FROM memcore_entries WHERE user_id = 'keep-me'")).length, 2, 'others untouched');
      assert.ok(await b.store.read('user-memory/keep-me/memory.md'));
      const again = await m.eraseUserData('erase-me', { entries: b.store, memory });
      assert.deepEqual([again.entries, again.profiles], [[0], [{ removed: false, folderRemoved: false }]]);
      // The export restores losslessly into the (now empty for that user) store.
      assert.deepEqual(await m.importUserData(exported, { entries: b.store, memory }), {
        entries: 3,
        profile: true,
        secrets: [],
        history: { imported: 0, dropped: 0 },
        vectors: { dropped: 2, embedded: 0, reindex: true }, episodes: 0,
        stores: [
          { option: 'options.entries', kind, entries: 3, profile: null },
          { option: 'options.memory', kind: 'ContextMemory', entries: null, profile: true },
        ],
      });
      // The same data (`historySize` reports the store).
      assert.deepEqual({ ...(await m.exportUserData('erase-me', { entries: b.store, memory, now: () => '2026-12-01T00:00:00Z' })), historySize: undefined }, { ...exported, historySize: undefined });
      assert.equal(await m.isProcessingRestricted(b.store, 'erase-me'), true);
      assert.equal((await memory.afterTurn({ userId: 'erase-me', enabled: true, userMessage: 'hi', assistantMessage: 'ok' })).outcome, 'restricted');
    });

    test('bad input: SQL metacharacters, NUL, lone surrogates, 64 KiB values, deep JSON, long keys and ids; no other row changes', async () => {
      await b.reset();
      const bystander = entry({ id: 'bystander', userId: 'u2', key: 'safe', value: 'untouched' });
      await b.store.upsert(bystander);
      const hostile = ["'; DROP TABLE memcore_entries; --", '%', '_', '\\', "\\'", '"', '%_\\%', 'ends with \\'];
      for (const [i, text] of hostile.entries()) {
        await b.store.upsert(entry({ id: `h${i}${text}`, key: text, value: text, visibility: 'self', sourceAgentId: text, groupIds: [text] }));
        const got = await b.store.get(`h${i}${text}`);
        assert.deepEqual([got.key, got.value, got.sourceAgentId, got.groupIds], [text, text, text, [text]]);
        assert.deepEqual((await b.store.findByKey('u1', text)).map((e) => e.id), [`h${i}${text}`]);
      }
      assert.deepEqual((await b.store.findByKey('u1', '%')).length, 1, 'no wildcard lookup');
      assert.equal((await b.store.recall({ userId: 'u1', agentId: '%', groupId: '%', order: 'most_recent', limit: 50 })).length, 1);
      const big = 'x'.repeat(64 * 1024);
      let deep = 'leaf';
      for (let i = 0; i < 200; i++) deep = { d: [deep] };
      const longKey = 'k'.repeat(256);
      const longUser = 'u'.repeat(256);
      await b.store.upsert(entry({ id: 'big', key: longKey, value: big }));
      await b.store.upsert(entry({ id: 'deep', key: 'deep', value: deep }));
      await b.store.upsert(entry({ id: 'longuser', userId: longUser, key: longKey, value: { '': null, 'é': [1.5, -2e-7, 1e21, true] } }));
      assert.equal((await b.store.get('big')).value, big);
      assert.deepEqual((await b.store.get('deep')).value, deep);
      assert.deepEqual((await b.store.list(longUser))[0].value, { '': null, 'é': [1.5, -2e-7, 1e21, true] });
      assert.equal((await b.store.findByKey('u1', longKey))[0].id, 'big');

      const nul = entry({ id: 'nul', key: 'nul\u0000key', value: 'a\u0000b' });
      const surrogateValue = entry({ id: 'sv', key: 'sv', value: { 'lone\ud800': 'x\udc00y' } });
      const surrogateKey = entry({ id: 'sk', key: 'lone\ud800key', value: 'v' });
      if (name === 'postgres') {
        // PostgreSQL text and jsonb cannot hold U+0000 or lone surrogates: refused, nothing written.
        await assert.rejects(b.store.upsert(nul), (e) => isCode('E_ARGUMENT')(e) && e.details.reason === 'nul' && /PostgreSQL/.test(e.message));
        await assert.rejects(b.store.upsert({ ...nul, key: 'plain' }), (e) => e.details.argument === 'entry.value' && e.details.reason === 'nul');
        await assert.rejects(b.store.upsert(surrogateValue), (e) => isCode('E_ARGUMENT')(e) && e.details.reason === 'lone-surrogate');
        await assert.rejects(b.store.write(PATH, 'a\u0000b'), (e) => isCode('E_ARGUMENT')(e) && e.details.reason === 'nul');
        assert.equal(await b.store.get('nul'), null);
        // Only real NULs and lone surrogates: their escapes written out as text are plain text.
        await b.store.upsert(entry({ id: 'escapes', key: 'escapes', value: { 'k\\u0000': 'literal \\u0000 and \\ud800' } }));
        assert.deepEqual((await b.store.get('escapes')).value, { 'k\\u0000': 'literal \\u0000 and \\ud800' });
      } else {
        // SQLite and D1 keep NUL everywhere and lone surrogates in values (escaped JSON text).
        await b.store.upsert(nul);
        await b.store.upsert(surrogateValue);
        assert.deepEqual([(await b.store.get('nul')).key, (await b.store.get('nul')).value], ['nul\u0000key', 'a\u0000b']);
        assert.deepEqual((await b.store.get('sv')).value, { 'lone\ud800': 'x\udc00y' });
        await b.store.write(PATH, 'a\u0000b');
        assert.equal((await b.store.read(PATH)).text, 'a\u0000b');
      }
      // A lone surrogate in a text column would reach every driver as U+FFFD: refused everywhere.
      await assert.rejects(b.store.upsert(surrogateKey), (e) => isCode('E_ARGUMENT')(e) && e.details.argument === 'entry.key' && e.details.reason === 'lone-surrogate');
      await assert.rejects(b.store.write(PATH, 'lone \ud800'), (e) => isCode('E_ARGUMENT')(e) && e.details.reason === 'lone-surrogate');
      assert.deepEqual(await b.store.findByKey('u1', 'lone\ud800key'), []);
      assert.equal(await b.store.get('x\ud800'), null);
      // (A BigInt cannot even reach the Worker: the JSON transport of this test refuses it first.)
      if (name !== 'd1') await assert.rejects(b.store.upsert(entry({ id: 'cyc', key: 'c', value: 10n })), isCode('E_ARGUMENT'));
      assert.deepEqual(await b.store.get('bystander'), bystander);
      assert.equal((await b.store.list('u2')).length, 1);
      assert.deepEqual((await b.sql("SELECT count(*) AS n FROM memcore_entries WHERE user_id = 'u2'")).map((r) => Number(r.n)), [1]);
    });
  });
}
