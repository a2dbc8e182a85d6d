// One server of the load benchmark (scripts/bench/load.mjs) in a process of its own, so its
// memory (VmHWM, VmRSS) is its own:
//
//   node scripts/bench/load-server.mjs memcore sqlite /tmp/x/load.db
//   node scripts/bench/load-server.mjs memcore postgres postgres://…
//   node scripts/bench/load-server.mjs plain sqlite|postgres <file|url>
//   node scripts/bench/load-server.mjs null
//
// `memcore`: examples/node-server's own `start()` (createApp: createMemoryHandler + ContextMemory +
// telemetry + the demo bearer tokens, over openSqlite/openPostgres) with the benchmark's model and
// embedder. `plain`: plain-server.mjs (no memcore is imported). `null`: node:http answering `{}`
// at once (the harness's ceiling). Listens on 127.0.0.1 on a free port, prints `{"port":N}` on
// stdout, and on SIGTERM closes the server and the database and exits 0.
import http from 'node:http';
import { embedder, model } from './load-hosts.mjs';

const [server, kind, target] = process.argv.slice(2);

async function main() {
  if (server === 'memcore') {
    const { start } = await import('../../examples/node-server/server.mjs');
    const app = await start({ port: 0, host: '127.0.0.1', ...(kind === 'postgres' ? { databaseUrl: target } : { dbPath: target }), model, embedder });
    app.server.keepAliveTimeout = 30000;
    return { port: app.server.address().port, close: app.close };
  }
  if (server === 'plain') {
    const { openPlainStore, startPlainServer } = await import('./plain-server.mjs');
    const store = await openPlainStore(kind === 'postgres' ? { kind, url: target } : { kind, path: target });
    const { server: s, port } = await startPlainServer(store, { model, embedder });
    return {
      port,
      close: async () => {
        await new Promise((resolve) => {
          s.close(resolve);
          s.closeAllConnections();
        });
        await store.close();
      },
    };
  }
  if (server === 'null') {
    const s = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end(req.method === 'PUT' ? '{"created":true}' : req.method === 'POST' ? '{"facts":[]}' : '{"entries":[]}');
      });
    });
    s.keepAliveTimeout = 30000;
    await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve));
    return {
      port: s.address().port,
      close: () =>
        new Promise((resolve) => {
          s.close(resolve);
          s.closeAllConnections();
        }),
    };
  }
  throw new Error(`load-server: the server must be memcore, plain or null, not ${server}`);
}

try {
  const { port, close } = await main();
  let closing = false;
  process.on('SIGTERM', () => {
    if (closing) return;
    closing = true;
    close().then(() => process.exit(0), (error) => {
      console.error(`load-server: closing failed: ${error?.stack ?? error}`);
      process.exit(1);
    });
  });
  process.stdout.write(`${JSON.stringify({ port })}\n`);
} catch (error) {
  console.error(`load-server: ${error?.stack ?? error}`);
  process.exit(1);
}
