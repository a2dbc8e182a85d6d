// A throwaway PostgreSQL server for the tests: Debian's server binaries (scripts/setup.sh installs
// them), `initdb` into a fresh temp dir (owned by the `postgres` user when we run as root — initdb
// refuses root), started on 127.0.0.1 on a free port with its socket in that dir. `stop()` (also
// run on process exit, SIGINT and SIGTERM) shuts it down and removes the dir; `halt()`/`resume()` stop and start the
// same server to test a database that goes away and comes back.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const ROOT = '/usr/lib/postgresql';

/** The newest installed server's bin directory, or null. */
export function postgresBin() {
  if (!existsSync(ROOT)) return null;
  const versions = readdirSync(ROOT).filter((v) => existsSync(join(ROOT, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(ROOT, versions[0], 'bin') : null;
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Start a server; resolves to `{ url, port, database, stop(), halt(), resume() }`. Fails with a
 * clear message when no server is installed (run scripts/setup.sh).
 */
export async function startPostgres({ database = 'memcore_test' } = {}) {
  const bin = postgresBin();
  if (!bin) throw new Error(`no PostgreSQL server under ${ROOT}/*/bin; run scripts/setup.sh (it installs Debian's postgresql)`);
  const dir = mkdtempSync(join(tmpdir(), 'memcore-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const run = (tool, args) => {
    const cmd = asRoot ? 'runuser' : join(bin, tool);
    const argv = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    return execFileSync(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60000 });
  };
  if (asRoot) {
    chmodSync(dir, 0o777);
    execFileSync('chown', ['postgres:postgres', dir]);
  }
  const port = await freePort();
  let running = false;
  const start = () => {
    run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o',
      `-k ${dir} -h 127.0.0.1 -p ${port} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=60`, 'start']);
    running = true;
  };
  const halt = () => {
    if (!running) return;
    running = false;
    run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  };
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      if (running) run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // already gone
    }
    running = false;
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stop);
  // A cancelled test run (node --test sends SIGTERM, a user Ctrl-C) must not leave a server behind.
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      stop();
      process.kill(process.pid, signal);
    });
  }
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-locale']);
    start();
    const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`); // a fixed identifier, not a value
    await admin.end();
  } catch (error) {
    stop();
    throw new Error(`could not start PostgreSQL from ${bin}: ${error.stderr?.toString() || error.message}`);
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/${database}`, port, database, stop, halt, resume: start };
}
