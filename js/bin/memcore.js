#!/usr/bin/env node
// `memcore`: check, fit, count and inspect profile files; show and edit a user's stored profile
// in the `<base>/<root>/<userId>/memory.md` layout (behaviour §1.1–1.5, §1.10). Node built-ins only.
import { parseArgs } from 'node:util';
import { closeSync, openSync, readSync, writeFileSync, renameSync, mkdtempSync, rmSync } from 'node:fs';
import { join, dirname, basename } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import * as memcore from '../node.js';
import { CliError, DEFAULT_DB, openDatabase, openStorage, UsageError } from './cli-common.js';
import { keys, mcp, serve } from './service.js';

const COMMON = { help: { type: 'boolean', short: 'h' } };
const BUDGET = {
  'max-tokens': { type: 'string', default: '2000' },
  encoding: { type: 'string', default: 'o200k_base' },
};
const STORE = {
  user: { type: 'string' },
  root: { type: 'string', default: 'user-memory' },
  base: { type: 'string', default: '.' },
  db: { type: 'string' },
};
const BUDGET_HELP = `  --max-tokens N   token budget of the whole file, 500–8000 (default 2000)
  --encoding E     o200k_base (default) or cl100k_base`;
const STORE_HELP = `  --user ID        the user id (required; checked like the core does: no '/', '..', …)
  --root DIR       root folder (default user-memory)
  --base DIR       directory holding the root folder (default .)
  --db URL         profiles in a database instead of files: a SQLite file (sqlite:PATH, or a
                   path ending in .db/.sqlite/.sqlite3) or PostgreSQL (postgres://…); the
                   MEMCORE_DATABASE_URL environment variable is the default`;

const COMMANDS = {
  check: {
    summary: 'diagnostics and tokens vs budget; exit 1 on a warning or over budget',
    usage: 'memcore check FILE [--max-tokens N] [--encoding E]',
    options: { ...BUDGET },
    help: BUDGET_HELP,
    notes: 'Prints FILE:LINE: severity code: message per diagnostic. Exit 0 when clean, 1 on any\nwarning-severity diagnostic or when the file is over budget.',
    file: true,
    run: check,
  },
  fit: {
    summary: 'fit a profile to its budget (condense, then hard cut)',
    usage: 'memcore fit FILE [--max-tokens N] [--encoding E] [--write]',
    options: { ...BUDGET, write: { type: 'boolean' } },
    help: `${BUDGET_HELP}\n  --write          replace FILE with the fitted text (atomically) instead of printing it`,
    file: true,
    run: fit,
  },
  tokens: {
    summary: 'print the exact token count',
    usage: 'memcore tokens FILE [--encoding E]',
    options: { encoding: BUDGET.encoding },
    help: BUDGET_HELP.split('\n')[1],
    file: true,
    run: tokens,
  },
  prompt: {
    summary: 'print the system-prompt section injected for this profile',
    usage: 'memcore prompt FILE',
    options: {},
    help: '',
    file: true,
    run: prompt,
  },
  show: {
    summary: "print a user's stored profile (body only; nothing is created)",
    usage: 'memcore show --user ID [--root DIR] [--base DIR | --db URL]',
    options: { ...STORE },
    help: STORE_HELP,
    notes: 'Exit 1 when the user has no profile (memcore: E_NO_PROFILE). A database is opened\nread-only and must exist: a missing file, or a database without memcore tables, is an error\n(exit 1); nothing is created or migrated.',
    run: show,
  },
  mcp: {
    summary: "serve one user's memory to an MCP client over stdio (Claude Desktop, Cursor, Claude Code)",
    usage: 'memcore mcp --user ID [--agent ID] [--group ID] [--tenant ID] [--db URL] [--root DIR] [--embed-url URL --embed-model ID]',
    options: { user: STORE.user, root: STORE.root, db: STORE.db, agent: { type: 'string' }, group: { type: 'string' }, tenant: { type: 'string' }, 'embed-url': { type: 'string' }, 'embed-model': { type: 'string' } },
    help: `  --user ID        the user whose memory this is (required)
  --agent ID       the agent the tools act as (default mcp-agent)
  --group ID       the group conversation (group entries), if any
  --tenant ID      the tenant (organisation) of the user in a shared database; default none
  --db URL         a SQLite file (sqlite:PATH, or a path ending in .db/.sqlite/.sqlite3) or
                   PostgreSQL (postgres://…); default MEMCORE_DATABASE_URL, else
                   ./.memcore/memcore.db (created on first use)
  --root DIR       the profile folder in the database (default user-memory)
  --embed-url URL  an OpenAI-compatible embeddings endpoint (…/v1): searchMemory then finds by
                   meaning (search mode auto) and rememberFact stores each fact's vector;
                   the key, if any, from MEMCORE_EMBED_API_KEY
  --embed-model ID the embedding model at --embed-url (default text-embedding-3-small)`,
    notes: 'Speaks MCP on stdin/stdout (the official SDK\'s stdio transport): the four memory tools\n(rememberFact, recallMemories, searchMemory, forgetFact) and memoryHistory, bound to --user and\n--agent, the memory://profile resource and get_profile/update_profile. Each tool call is one tool\nturn. Needs the optional peers @modelcontextprotocol/sdk and zod. Logs go to stderr.',
    run: mcp,
  },
  doctor: {
    summary: 'find data stored under user ids memcore refuses; --fix erases it',
    usage: 'memcore doctor [--db URL] [--fix]',
    options: { db: STORE.db, fix: { type: 'boolean' } },
    help: `  --db URL         a SQLite file (sqlite:PATH, or a path ending in .db/.sqlite/.sqlite3) or
                   PostgreSQL (postgres://…); default MEMCORE_DATABASE_URL, else
                   ./.memcore/memcore.db
  --fix            erase the data (entries, history, API keys) of every such id`,
    notes: 'Every write checks the user id by the rule erasure uses (no /, \\, . or .., control\ncharacters, at most 255 bytes, …); data written before that under an id the rule refuses could\nnever be erased. Lists each such id (every tenant) on stdout. Exit 0 when there is none or --fix\nerased them, 1 when some were found without --fix (or on an error).',
    run: doctor,
  },
  serve: {
    summary: 'run the memory service: REST, MCP, GraphQL, /healthz, /metrics, on one database',
    usage: 'memcore serve [--db URL] [--host H] [--port N] [--jwks-url URL --jwt-issuer ISS --jwt-audience AUD | --jwt-secret-file FILE …] [--embed-url URL] [--model-url URL --model ID] [limits]',
    options: {
      db: STORE.db,
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8787' },
      'jwks-url': { type: 'string' },
      'jwt-secret-file': { type: 'string' },
      'jwt-issuer': { type: 'string' },
      'jwt-audience': { type: 'string' },
      'embed-url': { type: 'string' },
      'embed-model': { type: 'string' },
      'model-url': { type: 'string' },
      model: { type: 'string' },
      'requests-per-minute': { type: 'string' },
      'writes-per-minute': { type: 'string' },
      'max-concurrent': { type: 'string' },
      'drain-timeout': { type: 'string', default: '30' },
      log: { type: 'string', default: 'json' },
    },
    help: `  --db URL         a SQLite file (sqlite:PATH, or a path ending in .db/.sqlite/.sqlite3) or
                   PostgreSQL (postgres://…); default MEMCORE_DATABASE_URL, else
                   ./.memcore/memcore.db (created, with its folder, on first use)
  --host H         the interface to listen on (default 127.0.0.1: this machine only)
  --port N         the port (default 8787; 0 picks a free one)
  --jwks-url URL   also accept JWTs signed by the keys at URL (needs jose; with --jwt-issuer and
                   --jwt-audience)
  --jwt-secret-file FILE
                   also accept HS256/384/512 JWTs signed with the secret in FILE (its bytes,
                   trailing newline removed; with --jwt-issuer and --jwt-audience)
  --jwt-issuer ISS the expected iss of a JWT
  --jwt-audience AUD
                   the expected aud of a JWT
  --embed-url URL  an OpenAI-compatible embeddings endpoint (…/v1): search by meaning (mode auto
                   is hybrid) and a vector for every write; key from MEMCORE_EMBED_API_KEY
  --embed-model ID the embedding model (default text-embedding-3-small)
  --model-url URL  an OpenAI-compatible chat endpoint (…/v1): learning from turns (POST
                   /usermemorystore/memories/{userId}/learn) and Dream's summaries (POST
                   /admin/dream/{userId}); key from MEMCORE_MODEL_API_KEY (never a flag)
  --model ID       the chat model at --model-url (default gpt-4o-mini)
  --requests-per-minute N, --writes-per-minute N, --max-concurrent N
                   the limits per principal (default 600, 120 and 32; 429 beyond them)
  --drain-timeout S
                   on SIGTERM/SIGINT, how long the requests in flight may take (default 30 s)
  --log json|none  one JSON line per request on stdout (default json), or none`,
    notes: `Routes: REST /usermemorystore/memories/…, /propertiesstore/properties/…,
/contextmemory/me, /admin/gdpr/…, /admin/audit, /admin/keys; MCP /mcp (admin tools) and
/mcp/agent (the agent's tools; both need @modelcontextprotocol/sdk and zod); GraphQL /graphql
(needs graphql); GET /healthz (no credential: { ok, version, database }, 503 while draining);
GET /metrics (Prometheus text, scope admin); /console/, the operators' page (sign in with an
admin key).

Credentials: API keys kept hashed in the database (memcore keys create --admin prints the first
one), then JWTs when --jwks-url or --jwt-secret-file is given. Nothing else signs in.

On SIGTERM or SIGINT the server drains: /healthz answers 503, no new connection is accepted, the
requests in flight are answered, the database is closed. A second signal stops at once.

Exit codes: 0 drained (every request answered); 1 an error — the database cannot be opened
(a missing folder, a schema newer than this memcore, PostgreSQL unreachable), the port is in
use, a JWT option without jose, the drain timed out (stderr: memcore: CODE: message); 2 usage.`,
    run: serve,
  },
  keys: {
    summary: 'API keys in the database: keys create --admin | --user ID --scopes …; keys list; keys revoke ID',
    usage: 'memcore keys create (--admin | --user ID --scopes S,…) [--agent ID] [--group ID] [--name N] [--expires TIME] [--tenant ID] [--db URL]\n       memcore keys list [--user ID] [--tenant ID] [--json] [--db URL]\n       memcore keys revoke ID [--tenant ID] [--db URL]',
    options: {
      db: STORE.db,
      admin: { type: 'boolean' },
      user: { type: 'string' },
      scopes: { type: 'string' },
      agent: { type: 'string' },
      group: { type: 'string' },
      name: { type: 'string' },
      expires: { type: 'string' },
      tenant: { type: 'string' },
      json: { type: 'boolean' },
    },
    help: `  --admin          create: an administrator's key (every scope; user id admin unless --user)
  --user ID        create: the key's user; list: only that user's keys
  --scopes S,…     create: memory:read, memory:write, profile:read, profile:write, admin
  --agent ID       create: the agent the key acts as (the agent MCP endpoint's tools)
  --group ID       create: the group conversation of the key
  --name N         create: a label for the key
  --expires TIME   create: when it stops working (RFC 3339)
  --tenant ID      the tenant of the key (default none)
  --json           list: JSON instead of lines
  --db URL         as for memcore serve (default MEMCORE_DATABASE_URL, else ./.memcore/memcore.db)`,
    notes: `create prints the key on stdout — the only time it is shown; the database keeps its hash —
and the key's record on stderr. revoke ends the key at once (exit 1 when no live key has that id).`,
    args: [1, 2],
    run: keys,
  },
  edit: {
    summary: "edit a user's profile in $VISUAL/$EDITOR (frontmatter kept)",
    usage: 'memcore edit --user ID [--root DIR] [--base DIR | --db URL] [--from FILE]',
    options: { ...STORE, from: { type: 'string' } },
    help: `${STORE_HELP}\n  --from FILE      take the new body from FILE ('-' for stdin) instead of an editor`,
    notes: 'The editor is $VISUAL, else $EDITOR, else vi. The frontmatter is kept byte for byte (a new\nprofile gets a fresh one); an unchanged body writes nothing. Diagnostics are warnings: the\nsave still happens. The write is atomic and creates the folders if needed.',
    run: edit,
  },
};

const TOOL_HELP = `memcore — per-user memory profiles from the command line

Usage: memcore <command> [options]

Commands:
${Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(8)} ${c.summary}`).join('\n')}
  help     show help for a command: memcore help <command>

FILE may be '-' to read standard input; at most 1 MiB (1048576 bytes) is read from it.
Options: -h, --help   show help;   --version   print the version

Exit codes: 0 ok; 1 check failed, no profile (show) or a memcore/file error (stderr: memcore:
CODE: message); 2 usage error.`;


function commandHelp(name) {
  const c = COMMANDS[name];
  const options = [c.help, '  -h, --help       show this help'].filter(Boolean).join('\n');
  const notes = [c.notes, c.file && "FILE may be '-' to read standard input; at most 1 MiB is read (more is E_TOO_LARGE, exit 1)."].filter(Boolean).join('\n\n');
  return `memcore ${name} — ${c.summary}\n\nUsage: ${c.usage}\n\nOptions:\n${options}${notes ? `\n\n${notes}` : ''}`;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The most the CLI reads from a FILE or stdin: the largest body a profile edit may save
 * (`MAX_EDIT_BODY_BYTES`, 1 MiB) — a profile within any budget is far smaller.
 */
const INPUT_LIMIT = memcore.MAX_EDIT_BODY_BYTES;

/** Wait without a busy loop (a non-blocking stdin with nothing to read yet). */
const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Read at most INPUT_LIMIT + 1 bytes: one byte more than the limit is proof of too much, and the
 * rest is never read (`/dev/zero`, an endless pipe).
 */
function readBounded(file, name) {
  const cannot = (error) => new CliError(error.code ?? 'E_IO', `cannot read ${name}: ${error.message}`);
  let fd = 0;
  try {
    if (file !== '-') fd = openSync(file, 'r');
  } catch (error) {
    throw cannot(error);
  }
  const buffer = Buffer.allocUnsafe(INPUT_LIMIT + 1);
  let total = 0;
  try {
    while (total <= INPUT_LIMIT) {
      let n;
      try {
        n = readSync(fd, buffer, total, Math.min(64 * 1024, buffer.length - total), null);
      } catch (error) {
        if (error.code === 'EAGAIN') {
          pause(5);
          continue;
        }
        if (error.code === 'EOF') break;
        throw cannot(error);
      }
      if (n === 0) break;
      total += n;
    }
  } finally {
    if (fd !== 0) closeSync(fd);
  }
  if (total > INPUT_LIMIT) {
    throw new CliError('E_TOO_LARGE', `${name} is larger than ${INPUT_LIMIT} bytes (1 MiB), the most memcore reads; a memory profile is far smaller`);
  }
  return buffer.subarray(0, total);
}

/** Bytes as text: UTF-8 without NUL bytes (a memory profile is a Markdown file), else E_INPUT. */
function textOf(bytes, name, tail = '') {
  let text;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new CliError('E_INPUT', `${name} is not UTF-8 text (a memory profile is a Markdown file)${tail}`);
  }
  if (text.includes('\0')) throw new CliError('E_INPUT', `${name} is not UTF-8 text: it holds NUL bytes (a binary file?)${tail}`);
  return text;
}

function readInput(file) {
  const name = file === '-' ? '<stdin>' : file;
  return { name, text: textOf(readBounded(file, name), name) };
}

/**
 * A core error about a command-line value is a usage error naming the option (the core decides
 * what is valid: budgets 500–8000, the encodings it knows).
 */
function asUsage(error) {
  if (!(error instanceof memcore.MemcoreError)) return error;
  if (error.code === 'E_CONFIG' && error.details?.path === 'maxTokens') {
    return new UsageError(`--max-tokens ${error.message.replace(/^maxTokens: /, '')}`);
  }
  if (error.code === 'E_ARGUMENT' && /(^|\.)encoding$/.test(error.details?.argument ?? '')) {
    return new UsageError(`--encoding: ${error.message.replace(/^.*`(options|tokenizer|encoding)(\.encoding)?`: /, '')}`);
  }
  return error;
}

async function usageChecked(run) {
  try {
    return await run();
  } catch (error) {
    throw asUsage(error);
  }
}

/** Write via a temp file in the same folder and a rename, so readers never see half a file. */
function writeAtomic(path, text) {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw new CliError(error.code ?? 'E_IO', `cannot write ${path}: ${error.message}`);
  }
}

function maxTokens(values) {
  const raw = values['max-tokens'];
  if (!/^\d+$/.test(raw)) throw new UsageError(`--max-tokens must be a whole number, not '${raw}'`);
  return Number(raw);
}

const diagnosticLine = (name, d) => `${name}:${d.line}: ${d.severity} ${d.code}: ${d.message}`;

async function check({ values, file }) {
  const budget = maxTokens(values);
  const { name, text } = readInput(file);
  const { diagnostics } = memcore.parseProfile(text);
  const report = await usageChecked(() => memcore.fitProfile(text, { maxTokens: budget, encoding: values.encoding }));
  for (const d of diagnostics) console.log(diagnosticLine(name, d));
  const warnings = diagnostics.filter((d) => d.severity === 'warning').length;
  // A file longer than the budget could ever hold is not counted (tokensBefore null).
  const before = report.tokensBefore;
  const over = before === null ? 1 : before - budget;
  console.log(`${name}: ${before ?? `more than ${budget}`} / ${budget} tokens (${values.encoding})`);
  const problems = [];
  if (warnings) problems.push(`${warnings} warning${warnings === 1 ? '' : 's'}`);
  const by = before === null ? 'far over budget' : `over budget by ${over} token${over === 1 ? '' : 's'}`;
  if (over > 0) problems.push(`${by} (memcore fit would ${report.truncated ? 'truncate' : 'condense'} it)`);
  console.log(`${name}: ${problems.length ? problems.join(', ') : 'ok'}`);
  return problems.length ? 1 : 0;
}

async function fit({ values, file }) {
  if (values.write && file === '-') throw new UsageError('--write needs a FILE, not stdin');
  const budget = maxTokens(values);
  const { name, text } = readInput(file);
  const r = await usageChecked(() => memcore.fitProfile(text, { maxTokens: budget, encoding: values.encoding }));
  const changed = r.text !== text;
  if (values.write) {
    if (changed) writeAtomic(file, r.text);
  } else {
    process.stdout.write(r.text);
  }
  const yes = (b) => (b ? 'yes' : 'no');
  const condensed = r.condensed ? `yes (${r.removedDuplicates} duplicates, ${r.removedTopics} topics removed)` : 'no';
  const outcome = values.write ? (changed ? 'written' : 'unchanged, not written') : changed ? 'fitted' : 'already within budget';
  process.stderr.write(`${name}: ${r.tokensBefore ?? `more than ${budget}`} → ${r.tokensAfter} tokens (max ${values['max-tokens']}); condensed: ${condensed}; truncated: ${yes(r.truncated)}; ${outcome}\n`);
  return 0;
}

async function tokens({ values, file }) {
  const { text } = readInput(file);
  console.log(String(await usageChecked(() => memcore.countTokens(text, { encoding: values.encoding }))));
  return 0;
}

function prompt({ file }) {
  const section = memcore.memorySystemPromptSection(readInput(file).text);
  process.stdout.write(section.endsWith('\n') || section === '' ? section : `${section}\n`);
  return 0;
}


/** The user's profile through the core's Settings functions (no model needed). */
function settings(values, storage) {
  return new memcore.ContextMemory({ storage }, { rootFolder: values.root });
}

async function show({ values }) {
  // The user id first: a refused id is reported before any database is touched.
  if (values.user === undefined) throw new UsageError('--user ID is required');
  const relative = memcore.memoryPath(values.user, values.root);
  const store = await openStorage(values, { readonly: true });
  try {
    const path = store.where(relative);
    const view = await settings(values, store.storage).getMyContextMemory(values.user);
    if (!view.exists) throw new CliError('E_NO_PROFILE', `no profile for user ${values.user} (${path} does not exist)`);
    process.stderr.write(`${path}: last_updated ${view.lastUpdated ?? '-'}, turn_count ${view.turnCount ?? '-'}\n`);
    process.stdout.write(view.body.endsWith('\n') || view.body === '' ? view.body : `${view.body}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

/** Let the user edit `initial` in $VISUAL/$EDITOR (default vi); returns the saved text. */
function runEditor(initial) {
  const editor = process.env.VISUAL || process.env.EDITOR || 'vi';
  const dir = mkdtempSync(join(tmpdir(), 'memcore-edit-'));
  const file = join(dir, 'memory.md');
  try {
    writeFileSync(file, initial);
    // Through a shell, so EDITOR may carry arguments ("code --wait").
    const r = process.platform === 'win32'
      ? spawnSync(`${editor} "${file}"`, { stdio: 'inherit', shell: true })
      : spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'memcore-editor', file], { stdio: 'inherit' });
    if (r.error) throw new CliError('E_EDITOR', `cannot start editor '${editor}': ${r.error.message}`);
    if (r.status !== 0) throw new CliError('E_EDITOR', `editor '${editor}' exited with ${r.status ?? r.signal}; nothing saved`);
    // What the editor saved must be text, as any other input (readInput's rule): binary is refused, not
    // saved as U+FFFD and NUL characters.
    return textOf(readBounded(file, 'the edited file'), 'the edited file', '; nothing saved');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function edit({ values }) {
  const store = await openStorage(values);
  try {
    const relative = memcore.memoryPath(values.user, values.root);
    const path = store.where(relative);
    let existing;
    try {
      existing = (await store.storage.read(relative))?.text ?? null;
    } catch (error) {
      throw new CliError(error.code ?? 'E_IO', `cannot read ${path}: ${error.message}`);
    }
    const now = new Date();
    const initial = existing === null
      ? memcore.editableBody(memcore.renderProfile(memcore.emptyProfile(values.user, now)))
      : memcore.editableBody(existing);
    const body = values.from !== undefined ? readInput(values.from).text : runEditor(initial);
    if (body === initial && (existing !== null || values.from === undefined)) {
      process.stderr.write('no changes\n');
      return 0;
    }
    // What the save would store, to skip a save that changes nothing.
    if (memcore.applyUserEdit(existing, body, { userId: values.user, now }).text === existing) {
      process.stderr.write('no changes\n');
      return 0;
    }
    const { diagnostics } = await settings(values, store.storage).updateMyContextMemory(values.user, body);
    for (const d of diagnostics) process.stderr.write(`${diagnosticLine(path, d)}\n`);
    process.stderr.write(`saved ${path}${existing === null ? ' (new profile)' : ''}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

/**
 * `memcore doctor`: the one-off repair of data stored under user ids memcore now refuses (written
 * before every write checked them; no erasure can reach it): lists them, and with --fix erases
 * each (entries, history, API keys) as an erasure does.
 */
async function doctor({ values }) {
  const url = values.db ?? process.env.MEMCORE_DATABASE_URL;
  const store = await openDatabase(url === undefined || url === '' ? DEFAULT_DB : url, { readonly: !values.fix });
  try {
    const found = await memcore.findInvalidUserIds(store.storage);
    const shown = (f) => `${f.tenantId === null ? '' : `tenant ${JSON.stringify(f.tenantId)}: `}user ${JSON.stringify(f.userId)}`;
    if (found.length === 0) {
      process.stderr.write('memcore doctor: every stored user id is one memcore accepts\n');
      return 0;
    }
    for (const f of found) process.stdout.write(`${shown(f)}: ${f.reason.replace(/; pass the authenticated.*$/, '')}\n`);
    if (!values.fix) {
      process.stderr.write(`memcore doctor: ${found.length} stored user id${found.length === 1 ? '' : 's'} memcore refuses; run with --fix to erase their data\n`);
      return 1;
    }
    for (const f of found) {
      const r = await memcore.eraseInvalidUserData(f.userId, { entries: store.storage, tenantId: f.tenantId, principal: 'memcore doctor' });
      process.stdout.write(`erased ${shown(f)}: ${r.entries} entries, ${r.history?.versions ?? 0} versions, ${r.history?.audit ?? 0} audit records, ${r.keys} API keys\n`);
    }
    process.stderr.write(`memcore doctor: erased the data of ${found.length} user id${found.length === 1 ? '' : 's'}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

async function main(argv) {
  const [name, ...rest] = argv;
  if (name === undefined) {
    process.stderr.write(`${TOOL_HELP}\n`);
    return 2;
  }
  if (name === '-h' || name === '--help') {
    console.log(TOOL_HELP);
    return 0;
  }
  if (name === '--version' || name === '-v') {
    console.log(memcore.version());
    return 0;
  }
  if (name === 'help') {
    if (rest.length === 0) console.log(TOOL_HELP);
    else if (Object.hasOwn(COMMANDS, rest[0])) console.log(commandHelp(rest[0]));
    else throw new UsageError(`unknown command '${rest[0]}'`);
    return 0;
  }
  if (!Object.hasOwn(COMMANDS, name)) throw new UsageError(`unknown command '${name}'`);
  const command = COMMANDS[name];
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: { ...COMMON, ...command.options }, allowPositionals: true, strict: true });
  } catch (error) {
    // parseArgs's messages run on with advice about `--`; the first sentence is the point.
    throw new UsageError(error.message.split(/\. /)[0].replace(/^Unknown/, 'unknown'), { cause: name });
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(commandHelp(name));
    return 0;
  }
  const [least, most] = command.args ?? (command.file ? [1, 1] : [0, 0]);
  if (positionals.length < least) throw new UsageError(command.file ? 'missing FILE (use - for stdin)' : `missing ${name === 'keys' ? 'the action (create, list or revoke)' : 'an argument'}`, { cause: name });
  if (positionals.length > most) throw new UsageError(`unexpected argument '${positionals[most]}'`, { cause: name });
  return command.run({ values, file: positionals[0], positionals });
}

process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    const name = error.cause ?? process.argv[2];
    const usage = Object.hasOwn(COMMANDS, name) ? `Usage: ${COMMANDS[name].usage}` : 'Usage: memcore <command> [options]';
    process.stderr.write(`memcore: ${error.message}\n${usage}\nRun 'memcore ${Object.hasOwn(COMMANDS, name) ? `${name} ` : ''}--help' for more.\n`);
    process.exitCode = 2;
  } else if (error instanceof CliError || error instanceof memcore.MemcoreError) {
    process.stderr.write(`memcore: ${error.code}: ${error.message}\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(`memcore: unexpected error (please report it): ${error?.stack ?? error}\n`);
    process.exitCode = 1;
  }
}
