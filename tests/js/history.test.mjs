// Entry history (issue 22, SPEC §8.3) through the installed package, on every store: the
// in-memory store, SQLite on a file, PostgreSQL and D1 (each started for real). Every change kind
// keeps the state it replaced — its author, reason, validity and successor — while every read of
// the current state stays what it was; retention bounds what is kept; a store that cannot keep a
// version refuses the change rather than lose the old state.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as m from 'memcore';
import { BACKENDS } from '../support/sql-backends.mjs';

const STORES = ['memory', 'sqlite-file', 'postgres', 'd1'];

/** A clock the test moves: `at('2026-05-01T10:00:00.000Z')`. */
function clock(start) {
  let now = start;
  return { now: () => now, set: (t) => { now = t; } };
}

function counter(prefix) {
  let n = 0;
  return () => `${prefix}-${++n}`;
}

/** The fields of a version a test compares (everything but the derived id and createdAt). */
function shape(v) {
  return { entryId: v.entryId, key: v.key, value: v.value, visibility: v.visibility, sourceAgentId: v.sourceAgentId, validFrom: v.validFrom, validUntil: v.validUntil, author: v.author, reason: v.reason, supersededBy: v.supersededBy };
}

for (const kind of STORES) {
  describe(`history on ${kind}`, () => {
    let backend;
    let store;
    before(async () => {
      if (kind !== 'memory') {
        backend = await BACKENDS[kind]();
        store = backend.store;
      }
    });
    after(async () => backend?.stop());
    const fresh = async () => {
      if (kind === 'memory') return new m.InMemoryEntryStore();
      await backend.reset();
      return store;
    };

    test('a cross-agent overwrite keeps the old value with its provenance; reads show the current one only', async () => {
      const s = await fresh();
      const t = clock('2026-05-01T10:00:00.000Z');
      const ids = counter('e');
      const a = m.createMemoryTools({ store: s, userId: 'u1', agentId: 'agent-a', now: t.now, newId: ids });
      const b = m.createMemoryTools({ store: s, userId: 'u1', agentId: 'agent-b', now: t.now, newId: ids });
      assert.equal(await a.call('rememberFact', { key: 'city', value: 'Porto', visibility: 'global' }), '✅ Remembered: city = Porto [fact, global]');
      t.set('2026-05-02T09:30:00.000Z');
      assert.equal(await b.call('rememberFact', { key: 'city', value: 'Lisbon', visibility: 'global' }), '✅ Remembered: city = Lisbon [fact, global]');
      // The current state, exactly as without history.
      assert.equal(await a.call('recallMemories', {}), '• city = Lisbon [fact, global]');
      assert.deepEqual((await m.listUserMemories(s, 'u1')).map((e) => [e.key, e.value, e.sourceAgentId]), [['city', 'Lisbon', 'agent-b']]);
      const history = await m.entryHistory({ store: s, userId: 'u1', key: 'city' });
      assert.deepEqual(history.current.map((e) => [e.id, e.value]), [['e-1', 'Lisbon']]);
      assert.deepEqual(history.versions.map(shape), [{
        entryId: 'e-1', key: 'city', value: 'Porto', visibility: 'global', sourceAgentId: 'agent-a',
        validFrom: '2026-05-01T10:00:00.000Z', validUntil: '2026-05-02T09:30:00.000Z',
        author: { kind: 'agent', id: 'agent-b' }, reason: 'overwritten', supersededBy: 'e-1',
      }]);
      assert.match(history.versions[0].id, /^e-1~[0-9a-f]{16}$/);
      // By entry id: the same.
      assert.deepEqual(await m.entryHistory({ store: s, userId: 'u1', entryId: 'e-1' }), history);
      // An unchanged write keeps no version; an agent updating its own entry is an update.
      t.set('2026-05-03T00:00:00.000Z');
      assert.match(await b.call('rememberFact', { key: 'city', value: 'Lisbon', visibility: 'global' }), /^✅ Already remembered/);
      await b.call('rememberFact', { key: 'city', value: 'Faro', visibility: 'global' });
      const after = await m.entryHistory({ store: s, userId: 'u1', key: 'city' });
      assert.deepEqual(after.versions.map((v) => [v.value, v.reason, v.author.id, v.validFrom, v.validUntil]), [
        ['Lisbon', 'updated', 'agent-b', '2026-05-02T09:30:00.000Z', '2026-05-03T00:00:00.000Z'],
        ['Porto', 'overwritten', 'agent-b', '2026-05-01T10:00:00.000Z', '2026-05-02T09:30:00.000Z'],
      ]);
    });

    test('forgetFact, REST delete and delete-all keep the last state; REST writes name their principal', async () => {
      const s = await fresh();
      const t = clock('2026-05-01T00:00:00.000Z');
      const ids = counter('r');
      const tools = m.createMemoryTools({ store: s, userId: 'u1', agentId: 'agent-a', now: t.now, newId: ids });
      await tools.call('rememberFact', { key: 'dog', value: 'Rex' });
      t.set('2026-05-01T01:00:00.000Z');
      assert.equal(await tools.call('forgetFact', { key: 'dog' }), '✅ Forgotten: dog');
      const forgotten = await m.entryHistory({ store: s, userId: 'u1', key: 'dog' });
      assert.deepEqual(forgotten.current, []);
      assert.deepEqual(forgotten.versions.map((v) => [v.value, v.reason, v.author, v.supersededBy, v.validUntil]), [['Rex', 'deleted', { kind: 'agent', id: 'agent-a' }, null, '2026-05-01T01:00:00.000Z']]);

      const rest = { now: t.now, newId: ids, principal: 'alice' };
      const stored = await m.upsertUserMemory(s, { userId: 'u1', key: 'tz', value: 'CET', visibility: 'global' }, rest);
      t.set('2026-05-01T02:00:00.000Z');
      await m.upsertUserMemory(s, { userId: 'u1', key: 'tz', value: 'WET', visibility: 'global' }, rest);
      t.set('2026-05-01T03:00:00.000Z');
      assert.equal((await m.deleteUserMemory(s, stored.entry.id, { ...rest, userId: 'u1' })).outcome, 'deleted');
      const tz = await m.entryHistory({ store: s, userId: 'u1', key: 'tz' });
      assert.deepEqual(tz.versions.map((v) => [v.value, v.reason, v.author]), [
        ['WET', 'deleted', { kind: 'rest', id: 'alice' }],
        ['CET', 'updated', { kind: 'rest', id: 'alice' }],
      ]);
      // MCP writes are authored by MCP; a delete-all keeps each state.
      await m.upsertUserMemory(s, { userId: 'u1', key: 'a', value: 1, visibility: 'global' }, { ...rest, surface: 'mcp', principal: 'bob' });
      await m.upsertUserMemory(s, { userId: 'u1', key: 'a', value: 2, visibility: 'global' }, { ...rest, surface: 'mcp', principal: 'bob' });
      await m.upsertUserMemory(s, { userId: 'u1', key: 'b', value: 3, visibility: 'global' }, rest);
      t.set('2026-05-01T04:00:00.000Z');
      assert.equal(await m.deleteAllUserMemories(s, 'u1', rest), 2);
      const a = await m.entryHistory({ store: s, userId: 'u1', key: 'a' });
      assert.deepEqual(a.versions.map((v) => [v.value, v.reason, v.author]), [[2, 'deleted_all', { kind: 'rest', id: 'alice' }], [1, 'updated', { kind: 'mcp', id: 'bob' }]]);
      assert.deepEqual((await m.entryHistory({ store: s, userId: 'u1', key: 'b' })).versions.map((v) => v.reason), ['deleted_all']);
      assert.deepEqual(await m.listUserMemories(s, 'u1'), []);
    });

    test('an eviction at the cap keeps the evicted state', async () => {
      const s = await fresh();
      const t = clock('2026-05-01T00:00:00.000Z');
      const tools = m.createMemoryTools({ store: s, config: { maxEntriesPerUser: 2 }, userId: 'u1', agentId: 'a', now: t.now, newId: counter('c') });
      await tools.call('rememberFact', { key: 'k1', value: 1 });
      t.set('2026-05-01T00:00:01.000Z');
      await tools.call('rememberFact', { key: 'k2', value: 2 });
      t.set('2026-05-01T00:00:02.000Z');
      assert.match(await tools.call('rememberFact', { key: 'k3', value: 3 }), /^✅ Remembered: k3 = 3/);
      const k1 = await m.entryHistory({ store: s, userId: 'u1', key: 'k1' });
      assert.deepEqual(k1.current, []);
      assert.deepEqual(k1.versions.map((v) => [v.value, v.reason, v.author.id, v.validUntil]), [[1, 'evicted', 'a', '2026-05-01T00:00:02.000Z']]);
    });

    test('Dream prunes and summarises into history: every original restorable from its version', async () => {
      const s = await fresh();
      const old = '2026-01-01T00:00:00.000Z';
      const recent = '2026-05-01T00:00:00.000Z';
      const seed = [
        { id: 'stale', key: 'old', value: 'x', at: old },
        { id: 'p1', key: 'likes_tea', value: 'green tea', at: recent },
        { id: 'p2', key: 'likes_coffee', value: 'espresso', at: recent },
        { id: 'p3', key: 'likes_juice', value: 'orange', at: recent },
      ];
      for (const e of seed) {
        await s.upsert({ id: e.id, userId: 'u1', key: e.key, value: e.value, category: 'preference', visibility: 'self', sourceAgentId: 'agent-1', groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0, createdAt: e.at, updatedAt: e.at });
      }
      const model = { complete: () => JSON.stringify([{ key: 'drinks', value: 'green tea, espresso, orange' }]) };
      const report = await m.dream({
        store: s, model, userId: 'u1', agentId: 'agent-1', now: '2026-05-10T00:00:00.000Z', newId: () => 'summary-1',
        config: { dream: { enabled: true, pruneStaleAfterDays: 90, summarizeInteractions: true, summarizeMinEntries: 3, summarizeTargetEntries: 1 } },
      });
      assert.equal(report.pruned, 1);
      assert.deepEqual((await m.listUserMemories(s, 'u1')).map((e) => e.id), ['summary-1']);
      const stale = await m.entryHistory({ store: s, userId: 'u1', entryId: 'stale' });
      assert.deepEqual(stale.versions.map((v) => [v.value, v.reason, v.author, v.validUntil]), [['x', 'pruned', { kind: 'dream', id: 'agent-1' }, '2026-05-10T00:00:00.000Z']]);
      for (const e of seed.slice(1)) {
        const h = await m.entryHistory({ store: s, userId: 'u1', entryId: e.id });
        assert.deepEqual(h.versions.map((v) => [v.value, v.reason, v.supersededBy, v.validFrom]), [[e.value, 'summarised', 'summary-1', recent]], e.id);
      }
    });

    test("Dream mode 'delete' keeps nothing (SPEC §3 exactly); another agent's overwrite is a contradiction from the history", async () => {
      const s = await fresh();
      const old = '2026-01-01T00:00:00.000Z';
      const recent = '2026-05-01T00:00:00.000Z';
      const seed = [['stale', 'old', old], ['p1', 'likes_tea', recent], ['p2', 'likes_coffee', recent], ['p3', 'likes_juice', recent]];
      for (const [id, key, at] of seed) {
        await s.upsert({ id, userId: 'u1', key, value: `${key} value`, category: 'preference', visibility: 'self', sourceAgentId: 'agent-1', groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0, createdAt: at, updatedAt: at });
      }
      const model = { complete: () => JSON.stringify([{ key: 'drinks', value: 'tea, coffee, juice' }]) };
      const config = { dream: { enabled: true, mode: 'delete', summarizeInteractions: true, summarizeMinEntries: 3, summarizeTargetEntries: 1 } };
      const report = await m.dream({ store: s, model, userId: 'u1', agentId: 'agent-1', now: '2026-05-10T00:00:00.000Z', newId: () => 'summary-2', config });
      assert.deepEqual([report.pruned, report.summarized], [1, 2]);
      for (const [id] of seed) assert.deepEqual((await m.entryHistory({ store: s, userId: 'u1', entryId: id })).versions, [], id);

      const t = clock('2026-05-11T00:00:00.000Z');
      const a = m.createMemoryTools({ store: s, userId: 'u1', agentId: 'agent-1', now: t.now, newId: () => 'city-1' });
      const b = m.createMemoryTools({ store: s, userId: 'u1', agentId: 'agent-2', now: t.now, newId: () => 'never' });
      await a.call('rememberFact', { key: 'city', value: 'Porto', visibility: 'global' });
      t.set('2026-05-12T00:00:00.000Z');
      await b.call('rememberFact', { key: 'city', value: 'Lisbon', visibility: 'global' });
      const run = (now, agentId = 'agent-1', extra = {}) => m.dream({ store: s, userId: 'u1', agentId, now, config: { dream: { enabled: true, detectContradictions: true, ...extra } } });
      const found = (await run('2026-05-13T00:00:00.000Z')).contradictions;
      assert.deepEqual(found, [{ key: 'city', agents: ['agent-1', 'agent-2'], entryIds: ['city-1'], overwrittenAt: '2026-05-12T00:00:00.000Z' }]);
      // Another agent's run sees it only under crossAgentMaintenance; outside the retention window nothing.
      assert.deepEqual((await run('2026-05-13T00:00:00.000Z', 'agent-3')).contradictions, []);
      assert.equal((await run('2026-05-13T00:00:00.000Z', 'agent-3', { crossAgentMaintenance: true })).contradictions.length, 1);
      assert.deepEqual((await run('2026-07-01T00:00:00.000Z')).contradictions, []);
    });

    test('retention: the newest maxVersionsPerEntry versions, none older than retainDays; disabled history keeps none', async () => {
      const s = await fresh();
      const t = clock('2026-05-01T00:00:00.000Z');
      const config = { history: { maxVersionsPerEntry: 3, retainDays: 2 } };
      const tools = m.createMemoryTools({ store: s, config, userId: 'u1', agentId: 'a', now: t.now, newId: counter('k') });
      for (let i = 1; i <= 6; i++) {
        t.set(`2026-05-01T00:00:0${i}.000Z`);
        await tools.call('rememberFact', { key: 'n', value: i });
      }
      let h = await m.entryHistory({ store: s, userId: 'u1', key: 'n' });
      assert.deepEqual(h.versions.map((v) => v.value), [5, 4, 3]);
      // Another entry changed three days later: the first entry's versions have expired.
      await tools.call('rememberFact', { key: 'other', value: 1 });
      t.set('2026-05-04T00:00:00.000Z');
      await tools.call('rememberFact', { key: 'other', value: 2 });
      h = await m.entryHistory({ store: s, userId: 'u1', key: 'n' });
      assert.deepEqual(h.versions, []);
      assert.deepEqual(h.current.map((e) => e.value), [6]);
      assert.deepEqual((await m.entryHistory({ store: s, userId: 'u1', key: 'other' })).versions.map((v) => v.value), [1]);

      const off = m.createMemoryTools({ store: s, config: { history: { enabled: false } }, userId: 'u1', agentId: 'a', now: t.now, newId: counter('z') });
      await off.call('rememberFact', { key: 'quiet', value: 1 });
      await off.call('rememberFact', { key: 'quiet', value: 2 });
      await off.call('forgetFact', { key: 'quiet' });
      assert.deepEqual((await m.entryHistory({ store: s, userId: 'u1', key: 'quiet' })).versions, []);
    });

    test('asOf reads the state that was current then, through every read, at every boundary', async () => {
      const s = await fresh();
      const t = clock('2026-05-01T10:00:00.000Z');
      const ids = counter('p');
      const a = m.createMemoryTools({ store: s, userId: 'u1', agentId: 'agent-a', now: t.now, newId: ids });
      const b = m.createMemoryTools({ store: s, userId: 'u1', agentId: 'agent-b', now: t.now, newId: ids });
      await a.call('rememberFact', { key: 'city', value: 'Porto', visibility: 'global' });
      await a.call('rememberFact', { key: 'dog', value: 'Rex' });
      t.set('2026-05-02T10:00:00.000Z');
      await b.call('rememberFact', { key: 'city', value: 'Lisbon', visibility: 'global' });
      t.set('2026-05-03T10:00:00.000Z');
      await a.call('forgetFact', { key: 'dog' });
      const list = async (asOf) => (await m.listUserMemories(s, 'u1', { asOf })).map((e) => `${e.key}=${e.value}`).sort();
      assert.deepEqual(await list('2026-05-01T09:59:59.999Z'), []);
      assert.deepEqual(await list('2026-05-01T10:00:00.000Z'), ['city=Porto', 'dog=Rex']);
      assert.deepEqual(await list('2026-05-02T09:59:59.999Z'), ['city=Porto', 'dog=Rex']);
      assert.deepEqual(await list('2026-05-02T10:00:00.000Z'), ['city=Lisbon', 'dog=Rex']);
      assert.deepEqual(await list(new Date('2026-05-03T09:00:00Z')), ['city=Lisbon', 'dog=Rex']);
      assert.deepEqual(await list('2026-05-03T10:00:00.000Z'), ['city=Lisbon']);
      assert.deepEqual(await list(undefined), ['city=Lisbon']);
      const then = '2026-05-01T12:00:00Z';
      const visible = await m.getVisibleMemories(s, { userId: 'u1', agentId: 'agent-a', limit: 10 }, { asOf: then });
      assert.deepEqual(visible.entries.map((e) => e.value).sort(), ['Porto', 'Rex']);
      // What agent-b sees then: the global entry only (dog was agent-a's self entry).
      const seenByB = await m.getVisibleMemories(s, { userId: 'u1', agentId: 'agent-b', limit: 10 }, { asOf: then });
      assert.deepEqual(seenByB.entries.map((e) => [e.value, e.sourceAgentId]), [['Porto', 'agent-a']]);
      assert.deepEqual((await m.searchUserMemories(s, 'u1', 'porto', { asOf: then })).map((e) => e.value), ['Porto']);
      assert.deepEqual(await m.searchUserMemories(s, 'u1', 'porto'), []);
      assert.deepEqual((await m.searchUserMemories(s, 'u1', 'city porto', { asOf: then, mode: 'ranked' })).map((e) => e.value), ['Porto']);
      assert.equal((await m.getMemoryByKey(s, 'u1', 'city', { asOf: then })).value, 'Porto');
      assert.equal(await m.getMemoryByKey(s, 'u1', 'dog'), null);
      assert.equal((await m.getMemoryByKey(s, 'u1', 'dog', { agentId: 'agent-a', asOf: then })).value, 'Rex');
      assert.equal(await m.countUserMemories(s, 'u1', { asOf: then }), 2);
      assert.equal(await m.countUserMemories(s, 'u1'), 1);
      // Bad times and writes with asOf are refused; the next call works.
      for (const bad of ['yesterday', '2026-13-01T00:00:00Z', '']) {
        await assert.rejects(m.listUserMemories(s, 'u1', { asOf: bad }), (e) => e.code === 'E_ARGUMENT' && /asOf/.test(e.message));
      }
      await assert.rejects(m.upsertUserMemory(s, { userId: 'u1', key: 'k', value: 1, visibility: 'global' }, { asOf: then }), (e) => e.code === 'E_ARGUMENT' && /asOf/.test(e.message));
      await assert.rejects(m.deleteAllUserMemories(s, 'u1', { asOf: then }), (e) => e.code === 'E_ARGUMENT');
      assert.deepEqual(await list(undefined), ['city=Lisbon']);
    });

    test('the audit log records every operation without values; erasure leaves only its own record; export → import round-trips the history byte for byte', async () => {
      const s = await fresh();
      const t = clock('2026-08-01T00:00:00.000Z');
      const tick = (iso) => t.set(iso);
      const ids = counter('a');
      const tools = m.createMemoryTools({ store: s, userId: 'u1', agentId: 'agent-a', now: t.now, newId: ids });
      await tools.call('rememberFact', { key: 'city', value: 'Porto', visibility: 'global' });
      tick('2026-08-01T00:00:01.000Z');
      await tools.call('rememberFact', { key: 'city', value: 'Lisbon', visibility: 'global' });
      tick('2026-08-01T00:00:02.000Z');
      await tools.call('rememberFact', { key: 'pin_hint', value: 'birthday' });
      tick('2026-08-01T00:00:03.000Z');
      await tools.call('forgetFact', { key: 'pin_hint' });
      tick('2026-08-01T00:00:04.000Z');
      await m.upsertUserMemory(s, { userId: 'u1', key: 'tz', value: 'CET', visibility: 'global' }, { now: t.now, newId: ids, principal: 'alice' });
      tick('2026-08-01T00:00:05.000Z');
      await m.setProcessingRestriction(s, 'u1', true, { admin: true, now: t.now, newId: ids, principal: 'root' });
      tick('2026-08-01T00:00:06.000Z');
      await m.setProcessingRestriction(s, 'u1', false, { admin: true, now: t.now, newId: ids, principal: 'root' });
      // Another user's history, untouched by what follows.
      const other = m.createMemoryTools({ store: s, userId: 'u2', agentId: 'agent-a', now: t.now, newId: ids });
      await other.call('rememberFact', { key: 'x', value: 1 });
      await other.call('rememberFact', { key: 'x', value: 2 });
      tick('2026-08-01T00:00:07.000Z');
      const exported = await m.exportUserData('u1', { entries: s, now: t.now, principal: 'root' });

      const log = await m.auditLog({ store: s, userId: 'u1' });
      assert.deepEqual(log.map((r) => [r.operation, r.actor.kind, r.actor.id, r.key, r.at]), [
        ['write', 'agent', 'agent-a', 'city', '2026-08-01T00:00:00.000Z'],
        ['write', 'agent', 'agent-a', 'city', '2026-08-01T00:00:01.000Z'],
        ['write', 'agent', 'agent-a', 'pin_hint', '2026-08-01T00:00:02.000Z'],
        ['delete', 'agent', 'agent-a', 'pin_hint', '2026-08-01T00:00:03.000Z'],
        ['write', 'rest', 'alice', 'tz', '2026-08-01T00:00:04.000Z'],
        ['restrict', 'rest', 'root', null, '2026-08-01T00:00:05.000Z'],
        ['unrestrict', 'rest', 'root', null, '2026-08-01T00:00:06.000Z'],
        ['export', 'rest', 'root', null, '2026-08-01T00:00:07.000Z'],
      ]);
      assert.ok(log.every((r, i) => i === 0 || r.seq > log[i - 1].seq));
      assert.ok(!JSON.stringify(log).includes('Porto') && !JSON.stringify(log).includes('birthday'), 'no value in the audit log');
      assert.equal(log[0].entryId, 'a-1');
      assert.equal(log.at(-1).items, exported.entries.length + exported.history.length);
      // Filters and paging.
      assert.deepEqual((await m.auditLog({ store: s, userId: 'u1', since: '2026-08-01T00:00:05Z' })).map((r) => r.operation), ['restrict', 'unrestrict', 'export']);
      const page = await m.auditLog({ store: s, userId: 'u1', limit: 3 });
      const next = await m.auditLog({ store: s, userId: 'u1', limit: 3, afterSeq: page.at(-1).seq });
      assert.deepEqual([...page, ...next].map((r) => r.seq), log.slice(0, 6).map((r) => r.seq));
      assert.ok((await m.auditLog({ store: s })).some((r) => r.userId === 'u2'));
      for (const bad of [{ store: s, since: 'later' }, { store: s, limit: 0 }, { store: s, limit: 1001 }, { store: s, userId: 5 }]) {
        await assert.rejects(m.auditLog(bad), (e) => e.code === 'E_ARGUMENT');
      }

      // The export carries the history and its size.
      assert.deepEqual(exported.history.map((v) => [v.key, v.value, v.reason]), [['city', 'Porto', 'updated'], ['pin_hint', 'birthday', 'deleted']]);
      assert.deepEqual(exported.historySize, { versions: 2, audit: 7 });

      // Erasure: no version and no audit record of the user but the erasure's own.
      tick('2026-08-01T00:00:08.000Z');
      const erased = await m.eraseUserData('u1', { entries: s, now: t.now, principal: 'dpo' });
      // Nothing of another user named u1 as the one who acted: nothing renamed.
      assert.deepEqual(erased.history, [{ versions: 2, audit: 8, renamed: { audit: 0, versions: 0 } }]);
      assert.deepEqual((await m.entryHistory({ store: s, userId: 'u1', key: 'city' })).versions, []);
      const left = await m.auditLog({ store: s, userId: 'u1' });
      assert.deepEqual(left.map((r) => [r.operation, r.actor, r.items, r.at, r.entryId, r.key]), [['erase', { kind: 'rest', id: 'dpo' }, erased.entries[0] + 2 + 8, '2026-08-01T00:00:08.000Z', null, null]]);
      assert.equal((await m.entryHistory({ store: s, userId: 'u2', key: 'x' })).versions.length, 1);
      assert.equal((await m.auditLog({ store: s, userId: 'u2' })).length, 2);

      // Import restores the history byte for byte, and is itself a record.
      tick('2026-08-01T00:00:09.000Z');
      const imported = await m.importUserData(exported, { entries: s, now: t.now, principal: 'dpo' });
      assert.equal(imported.entries, exported.entries.length);
      const again = await m.exportUserData('u1', { entries: s, now: t.now, principal: 'dpo' });
      assert.equal(JSON.stringify(again.history), JSON.stringify(exported.history));
      assert.equal(JSON.stringify(again.entries), JSON.stringify(exported.entries));
      assert.deepEqual((await m.auditLog({ store: s, userId: 'u1' })).map((r) => [r.operation, r.items]), [['erase', erased.entries[0] + 10], ['import', exported.entries.length], ['export', again.entries.length + again.history.length]]);
      // A document whose history names another user, or an instant the core does not write, is refused before anything is written.
      await m.eraseUserData('u1', { entries: s, now: t.now });
      const foreign = { ...exported, history: [{ ...exported.history[0], userId: 'u2' }] };
      await assert.rejects(m.importUserData(foreign, { entries: s }), (e) => e.code === 'E_ARGUMENT' && /history\[0\]/.test(e.message));
      const sloppy = { ...exported, history: [{ ...exported.history[0], validUntil: '2026-08-01T00:00:01Z' }] };
      await assert.rejects(m.importUserData(sloppy, { entries: s }), (e) => e.code === 'E_ARGUMENT' && /validUntil/.test(e.message));
      assert.deepEqual(await m.listUserMemories(s, 'u1'), []);
    });

    test('restoreVersion brings a past state back as a new change, itself versioned; a deleted entry comes back; conflicts, the cap and a restriction refuse', async () => {
      const s = await fresh();
      const t = clock('2026-09-01T00:00:00.000Z');
      const ids = counter('r');
      const a = m.createMemoryTools({ store: s, userId: 'u1', agentId: 'agent-a', now: t.now, newId: ids });
      const b = m.createMemoryTools({ store: s, userId: 'u1', agentId: 'agent-b', now: t.now, newId: ids });
      await a.call('rememberFact', { key: 'city', value: 'Porto', visibility: 'global' });
      t.set('2026-09-02T00:00:00.000Z');
      await b.call('rememberFact', { key: 'city', value: 'Lisbon', visibility: 'global' });
      const porto = (await m.entryHistory({ store: s, userId: 'u1', key: 'city' })).versions[0];
      t.set('2026-09-03T00:00:00.000Z');
      const opts = { now: t.now, newId: ids, principal: 'carol' };
      const restored = await m.restoreVersion({ store: s, userId: 'u1', versionId: porto.id, ...opts });
      assert.equal(restored.outcome, 'restored');
      assert.deepEqual([restored.entry.id, restored.entry.value, restored.entry.sourceAgentId, restored.entry.updatedAt, restored.entry.createdAt], ['r-1', 'Porto', 'agent-a', '2026-09-03T00:00:00.000Z', '2026-09-01T00:00:00.000Z']);
      assert.equal(await a.call('recallMemories', {}), '• city = Porto [fact, global]');
      const after = await m.entryHistory({ store: s, userId: 'u1', key: 'city' });
      assert.deepEqual(after.versions.map((v) => [v.value, v.reason, v.author]), [['Lisbon', 'restored', { kind: 'rest', id: 'carol' }], ['Porto', 'overwritten', { kind: 'agent', id: 'agent-b' }]]);
      assert.equal((await m.auditLog({ store: s, userId: 'u1' })).at(-1).operation, 'restore');
      // The restore is undone by restoring what it replaced.
      t.set('2026-09-04T00:00:00.000Z');
      assert.equal((await m.restoreVersion({ store: s, userId: 'u1', versionId: after.versions[0].id, ...opts })).entry.value, 'Lisbon');
      assert.equal((await m.restoreVersion({ store: s, userId: 'u1', versionId: after.versions[0].id, ...opts })).outcome, 'unchanged');

      // A deleted entry comes back with its id and createdAt.
      await a.call('rememberFact', { key: 'dog', value: 'Rex' });
      const dogId = (await m.getMemoryByKey(s, 'u1', 'dog', { agentId: 'agent-a' })).id;
      t.set('2026-09-05T00:00:00.000Z');
      await a.call('forgetFact', { key: 'dog' });
      const gone = (await m.entryHistory({ store: s, userId: 'u1', entryId: dogId })).versions[0];
      const back = await m.restoreVersion({ store: s, userId: 'u1', versionId: gone.id, ...opts });
      assert.deepEqual([back.outcome, back.entry.id, back.entry.value, back.entry.createdAt], ['restored', dogId, 'Rex', '2026-09-04T00:00:00.000Z']);
      assert.equal((await m.getMemoryByKey(s, 'u1', 'dog', { agentId: 'agent-a' })).value, 'Rex');

      // Another entry holds the identity now: conflict, nothing written.
      await a.call('rememberFact', { key: 'team', value: 'red', visibility: 'global' });
      await a.call('forgetFact', { key: 'team' });
      const red = (await m.entryHistory({ store: s, userId: 'u1', key: 'team' })).versions[0];
      await b.call('rememberFact', { key: 'team', value: 'blue', visibility: 'global' });
      const conflict = await m.restoreVersion({ store: s, userId: 'u1', versionId: red.id, ...opts });
      assert.deepEqual([conflict.outcome, conflict.entry.value], ['conflict', 'blue']);
      // At the cap a deleted entry cannot come back (never evicts).
      await b.call('forgetFact', { key: 'team' });
      const count = await m.countUserMemories(s, 'u1');
      const full = await m.restoreVersion({ store: s, userId: 'u1', versionId: red.id, config: { maxEntriesPerUser: count }, ...opts });
      assert.equal(full.outcome, 'full');
      assert.match(full.message, /^⚠️ Memory capacity reached/);
      // Unknown, foreign and restricted.
      for (const versionId of ['nope', 'r-1~0000000000000000', `${porto.id}x`]) {
        assert.equal((await m.restoreVersion({ store: s, userId: 'u1', versionId, ...opts })).outcome, 'notFound');
      }
      assert.equal((await m.restoreVersion({ store: s, userId: 'u2', versionId: porto.id, ...opts })).outcome, 'notFound');
      await m.setProcessingRestriction(s, 'u1', true, { admin: true, now: t.now, newId: ids });
      assert.equal((await m.restoreVersion({ store: s, userId: 'u1', versionId: red.id, ...opts })).outcome, 'restricted');
      await assert.rejects(m.restoreVersion({ store: s, userId: 'u1' }), (e) => e.code === 'E_ARGUMENT');
      await assert.rejects(m.restoreVersion({ store: s, userId: 'u1', versionId: red.id, asOf: '2026-01-01T00:00:00Z' }), (e) => e.code === 'E_ARGUMENT');
    });

    test('properties, the legacy merge and delete, and the legacy migration keep versions and audit records by their writers', async () => {
      const s = await fresh();
      const t = clock('2026-10-01T00:00:00.000Z');
      const ids = counter('p');
      await m.persistLongTermProperties(s, [{ name: 'lang', value: 'de' }], { userId: 'u1', agentId: 'agent-a', now: t.now, newId: ids });
      t.set('2026-10-01T00:00:01.000Z');
      await m.persistLongTermProperties(s, [{ name: 'lang', value: 'en' }], { userId: 'u1', agentId: 'agent-a', now: t.now, newId: ids });
      assert.deepEqual((await m.entryHistory({ store: s, userId: 'u1', key: 'lang' })).versions.map((v) => [v.value, v.reason, v.author]), [['de', 'updated', { kind: 'agent', id: 'agent-a' }]]);
      await m.mergeProperties(s, 'u1', { tz: 'CET' }, { now: t.now, newId: ids, principal: 'alice' });
      t.set('2026-10-01T00:00:02.000Z');
      await m.mergeProperties(s, 'u1', { tz: 'WET' }, { now: t.now, newId: ids, principal: 'alice' });
      t.set('2026-10-01T00:00:03.000Z');
      assert.equal(await m.deleteProperties(s, 'u1', { now: t.now, principal: 'bob' }), 1);
      assert.deepEqual((await m.entryHistory({ store: s, userId: 'u1', key: 'tz' })).versions.map((v) => [v.value, v.reason, v.author]), [
        ['WET', 'deleted_all', { kind: 'rest', id: 'bob' }],
        ['CET', 'updated', { kind: 'rest', id: 'alice' }],
      ]);
      t.set('2026-10-01T00:00:04.000Z');
      const migrated = await m.applyPropertiesMigration({ inserts: [{ userId: 'u1', key: 'old_setting', value: 1 }] }, s, { now: t.now, newId: ids });
      assert.equal(migrated.inserted, 1);
      const log = await m.auditLog({ store: s, userId: 'u1' });
      assert.deepEqual(log.map((r) => [r.operation, r.actor.kind, r.actor.id, r.key]), [
        ['write', 'agent', 'agent-a', 'lang'], ['write', 'agent', 'agent-a', 'lang'],
        ['write', 'rest', 'alice', 'tz'], ['write', 'rest', 'alice', 'tz'], ['delete', 'rest', 'bob', 'tz'],
        ['write', 'migration', null, 'old_setting'],
      ]);
    });

    test("history is the owner's: another user's entry, _gdpr_ keys and bad requests show nothing or are refused", async () => {
      const s = await fresh();
      const t = clock('2026-05-01T00:00:00.000Z');
      const tools = m.createMemoryTools({ store: s, userId: 'u2', agentId: 'a', now: t.now, newId: counter('o') });
      await tools.call('rememberFact', { key: 'travel_plan', value: 'v1' });
      await tools.call('rememberFact', { key: 'travel_plan', value: 'v2' });
      assert.equal((await m.entryHistory({ store: s, userId: 'u2', entryId: 'o-1' })).versions.length, 1);
      assert.deepEqual(await m.entryHistory({ store: s, userId: 'u1', entryId: 'o-1' }), { current: [], versions: [] });
      assert.deepEqual(await m.entryHistory({ store: s, userId: 'u1', key: 'travel_plan' }), { current: [], versions: [] });
      await m.setProcessingRestriction(s, 'u2', true, { admin: true, now: t.now, newId: counter('g') });
      await m.setProcessingRestriction(s, 'u2', false, { admin: true, now: t.now, newId: counter('g') });
      assert.deepEqual(await m.entryHistory({ store: s, userId: 'u2', key: '_gdpr_processing_restricted' }), { current: [], versions: [] });
      for (const bad of [{ store: s, userId: 'u2' }, { store: s, userId: 'u2', key: 'k', entryId: 'o-1' }]) {
        await assert.rejects(m.entryHistory(bad), (e) => e.code === 'E_ARGUMENT' && /exactly one of entryId and key/.test(e.message));
      }
      for (const bad of [undefined, null, 42, { userId: 'u2', key: 'k' }, { store: s, userId: 7, key: 'k' }, { store: s, userId: 'u2', key: 5 }]) {
        await assert.rejects(m.entryHistory(bad), (e) => e.code === 'E_ARGUMENT');
      }
      // The next call works.
      assert.equal((await m.entryHistory({ store: s, userId: 'u2', key: 'travel_plan' })).current[0].value, 'v2');
    });
  });
}

describe('history over a host store', () => {
  /** A plain object store that keeps entries and versions in maps, with an optional failing appendVersions. */
  function hostStore({ failAppend = false, history = true } = {}) {
    const entries = new Map();
    const versions = [];
    const control = { failAppend };
    const store = {
      list: (u) => [...entries.values()].filter((e) => e.userId === u),
      get: (id) => entries.get(id) ?? null,
      upsert: (e) => void entries.set(e.id, e),
      delete: (id) => entries.delete(id),
      incrementAccess: () => {},
    };
    if (history) {
      store.appendHistory = (append) => {
        if (control.failAppend) throw new Error('history disk full');
        assert.ok(append.versions.every((v) => v.userId === append.userId));
        versions.push(...append.versions);
      };
      store.versions = (q) => versions.filter((v) => v.userId === q.userId && (q.entryId === undefined || v.entryId === q.entryId) && (q.key === undefined || v.key === q.key));
    }
    return { store, entries, versions, control };
  }

  test('a version that cannot be kept stops the change: the old state is never lost, and the next call works', async () => {
    const { store, entries, control } = hostStore();
    let n = 0;
    let id = 0;
    const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a', now: () => `2026-05-01T00:00:0${n++}.000Z`, newId: () => `h-${++id}` });
    assert.equal(await tools.call('rememberFact', { key: 'k', value: 1 }), '✅ Remembered: k = 1 [fact, self]');
    control.failAppend = true;
    // Not even a new entry is written when its audit record cannot be kept.
    assert.equal(await tools.call('rememberFact', { key: 'other', value: 1 }), '❌ Failed to store memory: history disk full');
    assert.equal(entries.size, 1);
    const answer = await tools.call('rememberFact', { key: 'k', value: 2 });
    assert.equal(answer, '❌ Failed to store memory: history disk full');
    assert.equal(entries.get('h-1').value, 1);
    assert.match(await tools.call('forgetFact', { key: 'k' }), /^❌ .*history disk full/);
    assert.equal(entries.get('h-1').value, 1);
    await assert.rejects(m.upsertUserMemory(store, { userId: 'u1', key: 'k', value: 3, visibility: 'self', sourceAgentId: 'a' }, { now: () => '2026-05-02T00:00:00.000Z' }), (e) => e.code === 'E_HOST');
    assert.equal(entries.get('h-1').value, 1);
    assert.equal(await tools.call('recallMemories', {}), '• k = 1 [fact, self]');
  });

  test('a store without history overwrites as before, and entryHistory says the store keeps none', async () => {
    const { store, entries } = hostStore({ history: false });
    const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a', now: () => '2026-05-01T00:00:00.000Z', newId: () => 'n-1' });
    await tools.call('rememberFact', { key: 'k', value: 1 });
    assert.equal(await tools.call('rememberFact', { key: 'k', value: 2 }), '✅ Remembered: k = 2 [fact, self]');
    assert.equal(entries.get('n-1').value, 2);
    await assert.rejects(m.entryHistory({ store, userId: 'u1', key: 'k' }), (e) => e.code === 'E_ARGUMENT' && /keeps history/.test(e.message));
    await assert.rejects(m.listUserMemories(store, 'u1', { asOf: '2026-05-01T00:00:00Z' }), (e) => e.code === 'E_ARGUMENT' && /keeps history/.test(e.message));
  });

  test('the versions a host store is given are the documented shape', async () => {
    const { store, versions } = hostStore();
    const tools = m.createMemoryTools({ store, userId: 'u1', agentId: 'a', group: 'g1', conversationId: 'c1', now: () => '2026-05-01T00:00:00.000Z', newId: () => 'x-1' });
    await tools.call('rememberFact', { key: 'k', value: { deep: [1, 'two'] }, visibility: 'group', category: 'context' });
    await tools.call('rememberFact', { key: 'k', value: 'flat', visibility: 'group', category: 'context' });
    assert.equal(versions.length, 1);
    const [v] = versions;
    assert.deepEqual(Object.keys(v), ['id', 'entryId', 'userId', 'key', 'value', 'category', 'visibility', 'sourceAgentId', 'groupIds', 'sourceConversationId', 'createdAt', 'validFrom', 'validUntil', 'author', 'reason', 'supersededBy']);
    assert.deepEqual({ ...v, id: undefined }, {
      id: undefined, entryId: 'x-1', userId: 'u1', key: 'k', value: { deep: [1, 'two'] }, category: 'context', visibility: 'group', sourceAgentId: 'a',
      groupIds: ['g1'], sourceConversationId: 'c1', createdAt: '2026-05-01T00:00:00.000Z', validFrom: '2026-05-01T00:00:00.000Z',
      validUntil: '2026-05-01T00:00:00.000Z', author: { kind: 'agent', id: 'a' }, reason: 'updated', supersededBy: 'x-1',
    });
  });
});

describe('history over REST and MCP', () => {
  let server;
  let base;
  const t = clock('2026-06-01T00:00:00.000Z');
  const store = new m.InMemoryEntryStore();
  const auth = (userId, admin = false) => ({ authorization: `Bearer ${userId}`, ...(admin ? { 'x-admin': 'yes' } : {}) });
  before(async () => {
    const { createMemoryHandler, toNodeListener } = await import('memcore/server');
    const http = await import('node:http');
    let n = 0;
    const handler = createMemoryHandler({
      entries: store,
      authenticate: (request) => {
        const token = request.headers.get('authorization')?.replace(/^Bearer /, '');
        return token ? { userId: token, admin: request.headers.get('x-admin') === 'yes' } : null;
      },
      now: t.now,
      newId: () => `w-${++n}`,
    });
    server = http.createServer(toNodeListener(handler));
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${server.address().port}/usermemorystore/memories`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  const put = (who, body) => fetch(base, { method: 'PUT', headers: { ...auth(who), 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());
  const get = (who, path, admin = false) => fetch(`${base}/${path}`, { headers: auth(who, admin) });

  test('REST: the history routes and ?asOf=, the principal as author, another user refused', async () => {
    await put('alice', { userId: 'alice', key: 'city', value: 'Porto', visibility: 'global' });
    t.set('2026-06-02T00:00:00.000Z');
    await put('alice', { userId: 'alice', key: 'city', value: 'Lisbon', visibility: 'global' });
    const h = await get('alice', 'alice/key/city/history');
    assert.equal(h.status, 200);
    const body = await h.json();
    assert.deepEqual(body.current.map((e) => e.value), ['Lisbon']);
    assert.deepEqual(body.versions.map((v) => [v.value, v.author, v.reason]), [['Porto', { kind: 'rest', id: 'alice' }, 'updated']]);
    const byEntry = await (await get('alice', `alice/entry/${body.current[0].id}/history`)).json();
    assert.deepEqual(byEntry, body);
    assert.deepEqual((await (await get('alice', 'alice?asOf=2026-06-01T12:00:00Z')).json()).entries.map((e) => e.value), ['Porto']);
    assert.equal((await (await get('alice', 'alice/key/city?asOf=2026-06-01T12:00:00Z')).json()).entry.value, 'Porto');
    assert.equal((await (await get('alice', 'alice/count?asOf=2026-05-01T00:00:00Z')).json()).count, 0);
    assert.deepEqual((await (await get('alice', 'alice/search?q=porto&asOf=2026-06-01T12:00:00Z')).json()).entries.map((e) => e.value), ['Porto']);
    assert.deepEqual((await (await get('alice', 'alice/visible?agentId=x&asOf=2026-06-01T12:00:00Z')).json()).entries.map((e) => e.value), ['Porto']);
    const bad = await get('alice', 'alice?asOf=not-a-time');
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).error.code, 'E_ARGUMENT');
    assert.equal((await get('mallory', 'alice/key/city/history')).status, 403);
    assert.equal((await get('mallory', 'alice?asOf=2026-06-01T12:00:00Z')).status, 403);
    assert.equal((await get('root', 'alice/key/city/history', true)).status, 200);
    // Restore over REST: the owner may, another user may not.
    const version = body.versions[0].id;
    const restore = (who) => fetch(`${base}/alice/versions/${encodeURIComponent(version)}/restore`, { method: 'POST', headers: auth(who) });
    assert.equal((await restore('mallory')).status, 403);
    t.set('2026-06-02T12:00:00.000Z');
    const restored = await restore('alice');
    assert.equal(restored.status, 200);
    assert.deepEqual([(await restored.json()).entry.value], ['Porto']);
    assert.equal((await fetch(`${base}/alice/versions/nope/restore`, { method: 'POST', headers: auth('alice') })).status, 404);
    t.set('2026-06-02T13:00:00.000Z');
    await put('alice', { userId: 'alice', key: 'city', value: 'Lisbon', visibility: 'global' });
    // The audit log is for administrators.
    const admin = (path, who = 'root', isAdmin = true) => fetch(base.replace('/usermemorystore/memories', `/admin/audit${path}`), { headers: auth(who, isAdmin) });
    assert.equal((await admin('', 'alice', false)).status, 403);
    const records = (await (await admin('?userId=alice&limit=10')).json()).records;
    assert.deepEqual(records.map((r) => [r.operation, r.actor.id, r.key]), [['write', 'alice', 'city'], ['write', 'alice', 'city'], ['restore', 'alice', 'city'], ['write', 'alice', 'city']]);
    assert.equal((await admin('?limit=x')).status, 400);
    assert.equal((await admin('?since=whenever')).status, 400);
    body.current[0].id = (await (await get('alice', 'alice/key/city')).json()).entry.id;
    // A delete over REST is authored by the principal.
    t.set('2026-06-03T00:00:00.000Z');
    const del = await fetch(`${base}/entry/${body.current[0].id}`, { method: 'DELETE', headers: auth('alice') });
    assert.equal(del.status, 200);
    const after = await (await get('alice', 'alice/key/city/history')).json();
    assert.deepEqual(after.versions.map((v) => [v.value, v.reason, v.author.id]), [['Lisbon', 'deleted', 'alice'], ['Porto', 'updated', 'alice'], ['Lisbon', 'restored', 'alice'], ['Porto', 'updated', 'alice']]);
  });

  test('MCP: get_memory_history and asOf through the official client; another user refused', async () => {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const connect = async (who) => {
      const client = new Client({ name: 'history-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(base.replace('/usermemorystore/memories', '/mcp')), { requestInit: { headers: auth(who) } }));
      return client;
    };
    const bob = await connect('bob');
    const eve = await connect('eve');
    try {
      const call = async (client, name, args) => {
        const r = await client.callTool({ name, arguments: args });
        return { isError: r.isError === true, json: JSON.parse(r.content[0].text) };
      };
      t.set('2026-06-10T00:00:00.000Z');
      await call(bob, 'upsert_user_memory', { userId: 'bob', key: 'team', value: 'red', visibility: 'self', agentId: 'a' });
      t.set('2026-06-11T00:00:00.000Z');
      await call(bob, 'upsert_user_memory', { userId: 'bob', key: 'team', value: 'blue', visibility: 'self', agentId: 'a' });
      const h = await call(bob, 'get_memory_history', { userId: 'bob', key: 'team' });
      assert.equal(h.isError, false);
      assert.deepEqual(h.json.versions.map((v) => [v.value, v.author, v.reason]), [['red', { kind: 'mcp', id: 'bob' }, 'updated']]);
      const listed = await call(bob, 'list_user_memories', { userId: 'bob', asOf: '2026-06-10T12:00:00Z' });
      assert.deepEqual(listed.json.entries.map((e) => e.value), ['red']);
      const byKey = await call(bob, 'get_memory_by_key', { userId: 'bob', key: 'team', agentId: 'a', asOf: '2026-06-10T12:00:00Z' });
      assert.equal(byKey.json.entry.value, 'red');
      const both = await call(bob, 'get_memory_history', { userId: 'bob', key: 'team', entryId: 'x' });
      assert.deepEqual([both.isError, both.json.error.code], [true, 'E_ARGUMENT']);
      const badTime = await call(bob, 'count_user_memories', { userId: 'bob', asOf: 'soon' });
      assert.deepEqual([badTime.isError, badTime.json.error.code], [true, 'E_ARGUMENT']);
      const refused = await call(eve, 'get_memory_history', { userId: 'bob', key: 'team' });
      assert.deepEqual([refused.isError, refused.json.error.code], [true, 'E_FORBIDDEN']);
      const refusedPast = await call(eve, 'list_user_memories', { userId: 'bob', asOf: '2026-06-10T12:00:00Z' });
      assert.deepEqual([refusedPast.isError, refusedPast.json.error.code], [true, 'E_FORBIDDEN']);
    } finally {
      await bob.close();
      await eve.close();
    }
  });
});
