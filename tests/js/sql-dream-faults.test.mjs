// Dream's fault injection (issue 11's suite, issue 12's "the same suites against every store")
// against the SQL stores through the installed package: for seeded users, a clean run counts its
// store operations N; then for every k in 1..N the k-th operation fails before it takes effect,
// fails after it took effect (the answer is lost), or the run "crashes" after it (every later
// operation fails). After each run an invariant checker that knows only the initial entries, the
// final rows and each group's planned writes (the `dream.group.writes` debug event) proves: every
// original fact is still there — unchanged, updated in place into a consolidated entry, or deleted
// only when every consolidated entry of its group exists (or pruned as stale); no `_gdpr_` entry
// and no other user's entry changed; every new entry is a planned consolidated one. The tallies
// are printed. With history (the default `dream.mode: 'supersede'`) every original that is gone or
// changed in place must also be kept as a version with its state — restorable — whatever fails
// (the history appends are among the faulted operations). (The native suite, tests/dream_faults.rs, runs 1,000 generated users over the
// in-memory store with the full checker.)
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as m from 'memcore';
import { BACKENDS } from '../support/sql-backends.mjs';
import { prng } from '../support/prng.mjs';

const NOW = '2026-06-17T12:00:00Z';
const USERS = { 'sqlite-file': 6, postgres: 4, d1: 1 };
const KEYS = ['dog', 'color', 'city', 'lang', 'tz', 'food', 'job', 'pet', 'car', 'team', 'sport', 'music'];
const CONFIG = { dream: { enabled: true, pruneStaleAfterDays: 90, summarizeInteractions: true, summarizeMinEntries: 3, summarizeTargetEntries: 2, detectContradictions: true } };


/** One user's entries: fact and preference groups of agent-1, a stale one, a _gdpr_ flag-free bookkeeping entry, and another user's entries. */
function generate(seed) {
  const random = prng(seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const entries = [];
  const n = 6 + Math.floor(random() * 6);
  const used = new Set();
  for (let i = 0; i < n; i++) {
    let key;
    do key = pick(KEYS); while (used.has(key));
    used.add(key);
    const stale = random() < 0.2;
    const day = stale ? 1 + Math.floor(random() * 20) : 100 + Math.floor(random() * 60);
    const at = new Date(Date.UTC(2026, 0, day)).toISOString();
    entries.push({
      id: `s${seed}-e${i}`, userId: 'u1', key, value: `${key} value ${Math.floor(random() * 1000)}`,
      category: pick(['fact', 'preference']), visibility: pick(['self', 'self', 'global']), sourceAgentId: 'agent-1',
      groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0, createdAt: at, updatedAt: at,
    });
  }
  entries.push({ id: `s${seed}-gdpr`, userId: 'u1', key: '_gdpr_consent', value: { given: true }, category: 'fact', visibility: 'global', sourceAgentId: null, groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' });
  entries.push({ id: `s${seed}-other`, userId: 'u2', key: 'dog', value: 'not u1', category: 'fact', visibility: 'self', sourceAgentId: 'agent-1', groupIds: [], sourceConversationId: null, conflicted: false, accessCount: 0, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' });
  return entries;
}

/** The model: consolidates a group into its first key (reused in place) and one new summary entry. */
const model = {
  complete(request) {
    const block = /<memories>\n([\s\S]*?)\n<\/memories>/.exec(request.user)?.[1] ?? '[]';
    const items = JSON.parse(block);
    const values = items.map((i) => (typeof i.value === 'string' ? i.value : JSON.stringify(i.value)));
    return JSON.stringify([{ key: items[0].key, value: values.slice(0, Math.ceil(values.length / 2)).join('; ') }, { key: `${items[0].key}_summary`, value: values.slice(Math.ceil(values.length / 2)).join('; ') }]);
  },
};

/** The store with the k-th operation failing (`before`/`after` its effect) or every operation from k on failing (`crash`). */
function faulty(store, k, mode) {
  let n = 0;
  const wrap = (name) => async (...args) => {
    n += 1;
    if (mode === 'crash' && n > k) throw new Error(`crashed before ${name}`);
    if (mode === 'before' && n === k) throw new Error(`injected failure before ${name}`);
    const result = await store[name](...args);
    if (mode === 'after' && n === k) throw new Error(`injected failure after ${name}`);
    return result;
  };
  const methods = ['list', 'get', 'upsert', 'delete', 'incrementAccess', 'countUser', 'search', 'recall', 'findByKey', 'oldestOwn', 'insertWithinCap', 'appendHistory', 'versions', 'auditLog', 'eraseHistory', 'historySize'];
  return { wrapped: Object.fromEntries(methods.map((name) => [name, wrap(name)])), count: () => n };
}

async function run(store) {
  const events = [];
  let id = 0;
  const report = await m.dream({ store, model, userId: 'u1', agentId: 'agent-1', config: CONFIG, now: NOW, newId: () => `new-${++id}`, log: (e) => events.push(e) });
  const plans = events.filter((e) => e.event === 'dream.group.writes').map((e) => e.fields);
  return { report, plans };
}

const byId = (list) => new Map(list.map((e) => [e.id, e]));
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** The state of an entry a version must keep (everything a restore gives back). */
const state = (e) => JSON.stringify([e.key, e.value, e.category, e.visibility, e.groupIds ?? [], e.sourceAgentId ?? null]);

/**
 * The history invariant of a non-destructive Dream (`dream.mode: 'supersede'`, the default): every
 * original of u1 that is gone or was changed in place has a version keeping its state — reason
 * `pruned` (stale) or `summarised` (superseded by one of its group's consolidated entries) — so
 * it can be restored.
 */
async function checkHistory(store, initial, after, plans, label) {
  const now = byId(after);
  for (const original of initial) {
    if (original.userId !== 'u1' || original.key.startsWith('_gdpr_')) continue;
    const found = now.get(original.id);
    if (found && same(found, original)) continue;
    const versions = await store.versions({ userId: 'u1', entryId: original.id });
    const kept = versions.filter((v) => state(v) === state(original) && v.validFrom === original.updatedAt);
    assert.ok(kept.length > 0, `${label}: ${original.id} ${found ? 'changed' : 'gone'} but no version keeps its state`);
    const plan = plans.find((p) => p.members.includes(original.id));
    const reasons = new Set(kept.map((v) => v.reason));
    // A summary's original is superseded by one of its group's consolidated entries; a prune
    // whose answer was lost may have kept the state first (then the summary wrote over it).
    const summarised = kept.filter((v) => v.reason === 'summarised');
    if (plan && summarised.length > 0) {
      const consolidated = [...plan.inserts, ...plan.updates];
      assert.ok(summarised.some((v) => consolidated.includes(v.supersededBy)), `${label}: ${original.id} is not superseded by its group's summary`);
    } else {
      assert.ok(reasons.has('pruned') && (plan || !found), `${label}: ${original.id}'s version is neither a summary's nor a prune's (${[...reasons]})`);
    }
  }
}

/** The invariants after a faulted run (see the header). */
function check(initial, after, plans, label) {
  const before = byId(initial);
  const now = byId(after);
  const stale = (e) => Date.parse(e.updatedAt) < Date.parse(NOW) - 90 * 86_400_000;
  for (const original of initial) {
    const found = now.get(original.id);
    const plan = plans.find((p) => p.members.includes(original.id));
    if (original.userId !== 'u1' || original.key.startsWith('_gdpr_')) {
      assert.ok(found && same(found, original), `${label}: ${original.id} (${original.userId === 'u1' ? '_gdpr_' : 'other user'}) unchanged`);
      continue;
    }
    if (found) {
      if (!same(found, original)) assert.ok(plan?.updates.includes(original.id) && found.sourceConversationId === 'dream-consolidation', `${label}: ${original.id} changed only as a planned in-place update`);
      continue;
    }
    if (!plan) {
      assert.ok(stale(original), `${label}: ${original.id} deleted but neither stale nor in a group`);
      continue;
    }
    // Deleted from a group: only once every consolidated entry of that group exists.
    assert.ok(plan.deletes.includes(original.id), `${label}: ${original.id} deleted without being planned`);
    for (const nid of plan.inserts) assert.ok(now.has(nid), `${label}: ${original.id} deleted while the consolidated ${nid} is missing`);
    for (const uid of plan.updates) assert.ok(now.get(uid)?.sourceConversationId === 'dream-consolidation', `${label}: ${original.id} deleted while the in-place update of ${uid} is missing`);
  }
  for (const entry of after) {
    if (before.has(entry.id)) continue;
    assert.ok(plans.some((p) => p.inserts.includes(entry.id)) && entry.sourceConversationId === 'dream-consolidation', `${label}: ${entry.id} is not a planned consolidated entry`);
  }
}

for (const name of Object.keys(USERS)) {
  describe(`Dream fault injection: ${name}`, () => {
    let b;
    before(async () => {
      b = await BACKENDS[name]();
    });
    after(async () => b?.stop());

    const seed = async (entries) => {
      await b.reset();
      if (b.upsertMany) await b.upsertMany(entries);
      else for (const e of entries) await b.store.upsert(e);
    };
    const rows = async () => [...(await b.store.list('u1')), ...(await b.store.list('u2'))];

    test(`every store operation of a run fails (before / after its effect) or the run crashes after it: no fact is lost (${USERS[name]} seeded users)`, async (t) => {
      let faults = 0;
      let runs = 0;
      for (let user = 0; user < USERS[name]; user++) {
        const initial = generate(20261201 + user);
        await seed(initial);
        const clean = faulty(b.store, 0, 'none');
        const { report } = await run(clean.wrapped);
        assert.equal(report.error ?? null, null, JSON.stringify(report.error));
        const total = clean.count();
        assert.ok(report.summarized + report.pruned > 0, `user ${user}: the clean run changes something (${JSON.stringify(report)})`);
        for (let k = 1; k <= total; k++) {
          for (const mode of ['before', 'after', 'crash']) {
            await seed(initial);
            const f = faulty(b.store, mode === 'crash' ? k - 1 : k, mode);
            const { plans } = await run(f.wrapped).catch((error) => assert.fail(`dream rejected: ${error}`));
            const final = await rows();
            check(initial, final, plans, `${name} user ${user} op ${k} ${mode}`);
            await checkHistory(b.store, initial, final, plans, `${name} user ${user} op ${k} ${mode}`);
            faults += 1;
          }
        }
        runs += 1;
      }
      t.diagnostic(`${name}: ${faults} injected faults survived over ${runs} users`);
      console.log(`# ${name}: Dream survived ${faults} injected faults over ${runs} seeded users (every operation, before/after/crash)`);
    });
  });
}
