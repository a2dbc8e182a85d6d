// History never grows without limit (issue 22, SPEC §8.3): 100,000 changes to one key, one a
// minute (69 days), through the installed package. The entry keeps its newest
// `maxVersionsPerEntry` versions and the audit log the records of the last `retainDays` — checked
// ten times along the way, and reported by `exportUserData` (`historySize`) and `auditLog`. In
// memory and in SQLite on a file 100,000 changes with the default 30 days; PostgreSQL 10,000 with
// 3 days and D1 2,000 with 1 day (same code as SQLite behind a Worker): a write there costs
// several round trips (measured 4 ms on PostgreSQL, 23 ms through miniflare), and the shorter
// windows are crossed the same way.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as m from 'memcore';
import { BACKENDS } from '../support/sql-backends.mjs';

// changes, retainDays: the window (retainDays × 1,440 one-minute changes) is crossed everywhere.
const CASES = { memory: [100_000, 30], 'sqlite-file': [100_000, 30], postgres: [10_000, 3], d1: [2_000, 1] };
const MINUTE = 60_000;
const START = Date.parse('2026-01-01T00:00:00Z');

for (const [kind, [changes, retainDays]] of Object.entries(CASES)) {
  describe(`history bounds on ${kind}`, () => {
    let backend;
    let store;
    before(async () => {
      if (kind === 'memory') store = new m.InMemoryEntryStore();
      else {
        backend = await BACKENDS[kind]();
        await backend.reset();
        store = backend.store;
      }
    });
    after(async () => backend?.stop());

    test(`${changes.toLocaleString('en')} changes to one key stay within maxVersionsPerEntry and retainDays`, async (t) => {
      const config = { history: { maxVersionsPerEntry: 10, retainDays } };
      let at = START;
      const now = () => new Date(at).toISOString();
      const options = { now, newId: () => 'the-entry', config };
      const window = retainDays * 24 * 60; // minutes
      const windowed = Math.min(changes, window + 1);
      const every = changes / 10;
      const exports = [];
      for (let i = 1; i <= changes; i++) {
        at = START + i * MINUTE;
        const outcome = await m.upsertUserMemory(store, { userId: 'u1', key: 'counter', value: i, visibility: 'global' }, options);
        assert.equal(outcome.outcome, 'stored');
        if (i % every === 0) {
          const { current, versions } = await m.entryHistory({ store, userId: 'u1', key: 'counter' });
          assert.deepEqual(current.map((e) => e.value), [i]);
          // The newest ten previous values, newest first.
          assert.deepEqual(versions.map((v) => v.value), Array.from({ length: Math.min(10, i - 1) }, (_, k) => i - 1 - k));
          const exported = await m.exportUserData('u1', { entries: store, now });
          // Every write and every earlier export is one audit record (the export counts what it
          // found before its own record); those older than retainDays are gone.
          const inWindow = Math.min(i, window + 1) + exports.filter((j) => j >= i - window).length;
          exports.push(i);
          assert.deepEqual(exported.historySize, { versions: Math.min(10, i - 1), audit: inWindow });
          assert.equal(exported.history.length, Math.min(10, i - 1));
        }
      }
      // Nothing in the audit log is older than the window.
      const first = await m.auditLog({ store, userId: 'u1', limit: 1 });
      const notBefore = START + changes * MINUTE - retainDays * 86_400_000;
      assert.ok(Date.parse(first[0].at) >= notBefore, `${first[0].at} is inside the window`);
      t.diagnostic(`${kind}: ${changes} changes → ${windowed} audit records in the ${retainDays}-day window, 10 versions`);
    });
  });
}
