// The order logic the SQL statements hold — ORDER BY updated_sort / access_count / id (recall
// most_recent and most_accessed), oldestOwn (eviction order) and the search candidates' order —
// replayed from tests/vectors/sql/order.json against each backend: a SQLite file, D1 via
// miniflare and a real PostgreSQL server. tests/sql_order_vectors.rs checks the same file
// against the core's own rules.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { BACKENDS } from '../support/sql-backends.mjs';

const VECTORS = JSON.parse(readFileSync(new URL('../vectors/sql/order.json', import.meta.url), 'utf8'));

for (const name of ['sqlite-file', 'd1', 'postgres']) {
  describe(`SQL order vectors: ${name}`, () => {
    let b;
    before(async () => {
      b = await BACKENDS[name]();
      await b.reset();
      await b.store.insertAll(VECTORS.entries);
    });
    after(async () => b?.stop());

    test('recall, oldestOwn and search answer the ids of the vector file, in its order', async () => {
      for (const c of VECTORS.cases) {
        let got;
        if (c.op === 'recall') got = await b.store.recall({ userId: 'u', agentId: c.agentId, groupId: c.groupId, order: c.order, limit: c.limit });
        else if (c.op === 'oldestOwn') got = await b.store.oldestOwn({ userId: 'u', agentId: c.agentId, limit: c.limit });
        else got = await b.store.search('u', c.query);
        assert.deepEqual(got.map((e) => e.id), c.expect, JSON.stringify(c));
      }
    });
  });
}
