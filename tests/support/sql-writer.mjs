// One writer process of tests/js/sql-concurrency.test.mjs. Usage:
//   node sql-writer.mjs cap   <sqlite|postgres> <path|url> <writer> <count> <maxEntries>  (rememberFact through the tools)
//   node sql-writer.mjs turns <sqlite|postgres|fs> <path|url|dir> <writer> <count>
// Prints one JSON line with what it did.
import { ContextMemory } from 'memcore';

const [mode, kind, target, writer, count, maxEntries] = process.argv.slice(2);

async function open() {
  if (kind === 'sqlite') return (await import('memcore/adapters/sqlite')).openSqlite(target);
  if (kind === 'postgres') return (await import('memcore/adapters/postgres')).openPostgres(target, { max: 4 });
  const { FileSystemProfileStorage } = await import('memcore/adapters/fs');
  return Object.assign(new FileSystemProfileStorage({ baseDir: target }), { close: async () => {} });
}

const store = await open();
const n = Number(count);
if (mode === 'cap') {
  // Through the tools, as an agent writes: rememberFact of new keys with onCapReached "reject";
  // four agents per process, so the capped inserts of different processes really interleave.
  const { createMemoryTools } = await import('memcore');
  const config = { maxEntriesPerUser: Number(maxEntries), onCapReached: 'reject' };
  const agents = Array.from({ length: 4 }, (_, a) => createMemoryTools({
    store, config, userId: 'cap-user', agentId: `agent-${writer}-${a}`, now: () => '2026-01-01T00:00:00Z',
    newId: (() => { let k = 0; return () => `w${writer}-${a}-${k++}`; })(),
  }));
  const accepted = [];
  const refusals = [];
  const others = [];
  const writes = Array.from({ length: n }, (_, i) => async () => {
    const tools = agents[i % agents.length];
    const key = `key-${writer}-${i}`;
    tools.newTurn();
    const answer = await tools.call('rememberFact', { key, value: String(i) });
    if (answer === `✅ Remembered: ${key} = ${i} [fact, self]`) accepted.push(key);
    else if (answer.startsWith('⚠️ Memory capacity reached')) refusals.push(answer);
    else others.push(answer);
  });
  for (let i = 0; i < writes.length; i += 4) await Promise.all(writes.slice(i, i + 4).map((w) => w()));
  console.log(JSON.stringify({ accepted, refused: refusals.length, refusals: [...new Set(refusals)], others }));
} else {
  const model = {
    async complete(request) {
      await new Promise((r) => setTimeout(r, 2));
      if (request.purpose === 'gate') return 'UPDATE';
      const current = /<current_profile>\n?([\s\S]*?)\n?<\/current_profile>/.exec(request.user)?.[1] ?? '';
      const fact = /<user_message>\n?Remember (p\d+-\d+)/.exec(request.user)[1];
      return current.replace('\n\n## Communication Preferences', `\n- fact ${fact}\n\n## Communication Preferences`);
    },
  };
  const memory = new ContextMemory({ storage: store, model, now: () => '2026-11-29T10:00:00Z' }, { maxConflictRetries: 20 });
  const outcomes = {};
  for (let i = 0; i < n; i++) {
    const report = await memory.afterTurn({ userId: 'u1', enabled: true, userMessage: `Remember p${writer}-${i}`, assistantMessage: 'ok' });
    outcomes[report.outcome] = (outcomes[report.outcome] ?? 0) + 1;
  }
  console.log(JSON.stringify({ outcomes }));
}
await store.close();
