// The memcore operator console (issue 43), served by `memcore serve` at /console/ under a CSP of
// `script-src 'self'; style-src 'self'; connect-src 'self'`: vanilla JS, no framework, no inline
// code or style. Every value the server answers is shown as text (textContent and text nodes,
// never innerHTML); the credential lives in this tab's sessionStorage only; every list is paged.

import { diffLines } from './line-diff.js';

const TOKEN = 'memcore.console.token';
const PAGE = 50;
const CLIP = 600; // characters of a value shown before "Show all"
const TIMEOUT_MS = 30_000;
const CATEGORIES = ['preference', 'fact', 'context', 'legacy', 'property'];
const VISIBILITIES = ['global', 'self', 'group'];
// The entries filter "written by" (the server's `writtenBy`): learned from a turn, or written.
const WRITERS = [['', 'anyone'], ['learned', 'learned from turns'], ['written', 'written (any writer)'], ['agent', 'an agent\'s tool'], ['rest', 'REST'], ['mcp', 'MCP'], ['dream', 'Dream'], ['migration', 'the migration'], ['unknown', 'unknown (older entries)']];
const MODES = ['auto', 'terms', 'ranked', 'hybrid'];
const SCOPES = ['memory:read', 'memory:write', 'profile:read', 'profile:write', 'admin'];
const OPERATIONS = ['write', 'delete', 'restore', 'erase', 'restrict', 'unrestrict', 'import', 'export', 'learn'];
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const HAS_BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
// The API lives at the console's parent path: /console/ → /, /base/console/ → /base/.
const BASE = new URL('../', location.href);
const $ = (id) => document.getElementById(id);
const enc = encodeURIComponent;
let generation = 0;
let uid = 0;
const memo = { users: { prefix: '', cursors: [''] }, audit: { userId: '', since: '', op: '', seqs: [0] } };

// ---- the DOM, as text --------------------------------------------------------------------------

/** An element: h('p', { class, onclick, … }, 'text', child…). Strings become text nodes. */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else if (name === 'class') el.className = value;
    else if (name === 'value' || name === 'checked' || name === 'disabled') el[name] = value;
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child !== null && child !== undefined && child !== false) el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

const nextId = (prefix) => `${prefix}-${(uid += 1)}`;

/** A labelled control in its wrapper (`control(wrapper)` finds it); `kind`: 'input' (default), 'select', 'textarea'. */
function field(labelText, attrs = {}, { kind = 'input', options, help } = {}) {
  const id = attrs.id ?? nextId('f');
  const helpId = help ? `${id}-help` : undefined;
  const control = h(kind, { ...attrs, id, 'aria-describedby': helpId }, (options ?? []).map(([value, text]) => h('option', { value }, text)));
  if (kind !== 'select' && kind !== 'textarea' && !attrs.type) control.type = 'text';
  if (kind === 'input' && control.type !== 'checkbox') control.autocomplete = 'off';
  return h('div', { class: control.type === 'checkbox' ? 'check' : 'field' },
    control.type === 'checkbox' ? control : null,
    h('label', { for: id }, labelText),
    control.type === 'checkbox' ? null : control,
    help ? h('p', { class: 'help', id: helpId }, help) : null);
}
const control = (wrap) => wrap.querySelector('input, select, textarea');

function button(text, onclick, attrs = {}) {
  return h('button', { type: 'button', onclick, ...attrs }, text);
}

/** A form whose submit runs `onsubmit` (Enter in any field submits it). */
function form(attrs, children, onsubmit) {
  return h('form', { ...attrs, novalidate: true, onsubmit: (event) => { event.preventDefault(); onsubmit(event); } }, children);
}

/** JSON values as the operator reads them: strings as they are, anything else as JSON. */
function text(value) {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value, null, 2);
}

/** Text with its direction controls (U+202E and kin) shown as ⟦U+202E⟧: they cannot reorder what is read. */
const plain = (t) => String(t).replace(BIDI, (c) => `⟦U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}⟧`);

/**
 * A value as text, cut to `limit` characters with "Show all"; direction controls marked, with
 * "Show as written" to see the characters themselves.
 */
function clipped(value, limit = CLIP) {
  const full = text(value);
  const data = h('span', { class: 'data' });
  const box = h('div', { class: 'value' }, data);
  const cut = full.length > limit;
  const marked = HAS_BIDI.test(full);
  let open = false;
  let raw = false;
  const render = () => {
    const shown = !cut || open ? full : `${full.slice(0, limit)}…`;
    data.textContent = raw ? shown : plain(shown);
  };
  render();
  if (marked) {
    const written = button('Show as written', () => {
      raw = !raw;
      written.setAttribute('aria-pressed', String(raw));
      render();
    }, { class: 'link', 'aria-pressed': 'false' });
    box.append(h('span', { class: 'badge' }, 'Direction-control characters, marked ⟦U+…⟧'), ' ', written);
  }
  if (cut) {
    const toggle = button(`Show all (${full.length.toLocaleString('en')} characters)`, () => {
      open = !open;
      toggle.setAttribute('aria-expanded', String(open));
      toggle.textContent = open ? 'Show less' : `Show all (${full.length.toLocaleString('en')} characters)`;
      render();
    }, { class: 'link', 'aria-expanded': 'false' });
    box.append(' ', toggle);
  }
  return box;
}

/** A data table: columns are [heading, (row) => cell content]. */
function table(caption, columns, rows) {
  return h('table', {},
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, columns.map(([name, , width]) => h('th', { scope: 'col', class: width }, name)))),
    h('tbody', {}, rows.map((row) => h('tr', {}, columns.map(([, cell]) => h('td', {}, cell(row)))))));
}

const when = (t) => (typeof t === 'string' && t ? t.replace('T', ' ').replace(/(\.000)?(Z|[+-]00:?00)$/, ' UTC') : '—');
const count = (n) => (typeof n === 'number' ? n.toLocaleString('en') : '—');

// ---- the server --------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, code, message, details, path) {
    super(message);
    Object.assign(this, { status, code, details, path });
  }
}

const token = () => sessionStorage.getItem(TOKEN);

/** One call to the server, with the bearer credential; its JSON answer, or an ApiError. */
async function api(method, path, { query, body } = {}) {
  const url = new URL(path.slice(1), BASE);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') url.searchParams.set(name, String(value));
  }
  const headers = { authorization: `Bearer ${token() ?? ''}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), TIMEOUT_MS);
  let response;
  let raw;
  try {
    response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: abort.signal, cache: 'no-store', credentials: 'omit' });
    raw = await response.text();
  } catch {
    throw new ApiError(0, 'E_NETWORK', abort.signal.aborted ? `the server did not answer within ${TIMEOUT_MS / 1000} s` : 'the server cannot be reached', {}, path);
  } finally {
    clearTimeout(timer);
  }
  let data = null;
  try {
    data = raw ? JSON.parse(raw) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = data && typeof data.error === 'object' && data.error !== null ? data.error : {};
    throw new ApiError(response.status, String(error.code ?? `HTTP_${response.status}`), typeof error.message === 'string' ? error.message : `HTTP ${response.status}`, error, path);
  }
  return data;
}

/** What an operator should read about a failure. */
function describe(error) {
  if (!(error instanceof ApiError)) return `The page failed: ${error?.message ?? error}`;
  const { status, code, message, details } = error;
  if (status === 401) return `The server refused this key or token: ${message}.`;
  if (status === 403) {
    const scope = typeof details.missingScope === 'string' ? details.missingScope : null;
    if (code === 'E_FORBIDDEN' && scope && scope !== 'admin') return `Not allowed: this key lacks the scope ${scope} (${message}).`;
    return `Not allowed: this key is not an administrator's (scope admin). The server said: ${message}.`;
  }
  if (status === 404 && message === 'no such route') return `This server has no route ${error.path.split('?')[0]}: it is an older memcore without this part of the console.`;
  if (status === 429) return `Too many requests: ${message}. Wait a moment and try again.`;
  if (status === 0) return `No answer: ${message}.`;
  return `${message} (${code}).`;
}

/** Tell the operator (the live region); `quiet` for what a view loaded: announced, not shown. */
function say(message, quiet = false) {
  $('status').textContent = message;
  $('status').classList.toggle('quiet', quiet);
}

/** Show a failure; a 401 signs out (the key is wrong, revoked or expired). */
function fail(error) {
  if (error instanceof ApiError && error.status === 401) {
    signOut(`${describe(error)} Sign in again.`);
    return;
  }
  $('alert').textContent = describe(error);
}

// ---- views and routing -------------------------------------------------------------------------

/** Start a view: clears the page, titles it, moves the focus to its heading. */
function view(title, { section, user, tab } = {}) {
  const mine = (generation += 1);
  const root = $('view');
  root.replaceChildren();
  root.setAttribute('aria-busy', 'false');
  $('alert').textContent = '';
  say('');
  document.title = `${plain(title)} · memcore console`;
  const heading = h('h2', { tabindex: '-1', class: 'title' }, plain(title));
  root.append(heading);
  if (user !== undefined) root.append(userNav(user, tab));
  for (const link of document.querySelectorAll('#nav a')) {
    if (link.dataset.section === section) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (document.activeElement !== document.body || location.hash) heading.focus({ preventScroll: false });
  const stale = () => mine !== generation;
  /** Run a call for this view: its answer, or null when it failed or the view is gone. */
  const call = async (...args) => {
    root.setAttribute('aria-busy', 'true');
    try {
      const answer = await api(...args);
      return stale() ? null : answer;
    } catch (error) {
      if (!stale()) fail(error);
      return null;
    } finally {
      if (!stale()) root.setAttribute('aria-busy', 'false');
    }
  };
  // Reloads within a view (a new search, a page, a filter) may answer out of order: `latest()`
  // marks a load, and its check is true only while no later load has started.
  let loads = 0;
  const latest = () => {
    const mine = (loads += 1);
    return () => mine === loads;
  };
  return { root, stale, call, latest, add: (...nodes) => root.append(...nodes.filter(Boolean)) };
}

const TABS = [['entries', 'Entries'], ['episodes', 'Episodes'], ['profile', 'Profile'], ['dream', 'Dream'], ['rights', 'Rights'], ['keys', 'API keys']];
const userPath = (userId, tab = 'entries') => `#/users/${enc(userId)}/${tab}`;

function userNav(userId, current) {
  return h('nav', { 'aria-label': 'This user', class: 'tabs' }, h('ul', {}, TABS.map(([tab, name]) =>
    h('li', {}, h('a', { href: userPath(userId, tab), 'aria-current': tab === current ? 'page' : null }, name)))));
}

const ROUTES = [
  [/^\/users$/, viewUsers],
  [/^\/users\/([^/]+)\/entries$/, viewEntries],
  [/^\/users\/([^/]+)\/entries\/([^/]+)\/history$/, viewHistory],
  [/^\/users\/([^/]+)\/episodes$/, viewEpisodes],
  [/^\/users\/([^/]+)\/profile$/, viewProfile],
  [/^\/users\/([^/]+)\/dream$/, viewDream],
  [/^\/users\/([^/]+)\/rights$/, viewRights],
  [/^\/users\/([^/]+)\/keys$/, (userId) => viewKeys(userId)],
  [/^\/audit$/, viewAudit],
  [/^\/keys$/, () => viewKeys()],
];

function route() {
  const hash = location.hash;
  if (hash && !hash.startsWith('#/')) return;
  const signedIn = token() !== null;
  $('nav').hidden = !signedIn;
  $('sign-out').hidden = !signedIn;
  $('who').textContent = signedIn ? signedInAs(token()) : '';
  if (!signedIn) return viewSignIn();
  const path = hash.slice(1) || '/users';
  for (const [pattern, render] of ROUTES) {
    const match = pattern.exec(path);
    if (!match) continue;
    let params;
    try {
      params = match.slice(1).map(decodeURIComponent);
    } catch {
      break;
    }
    return render(...params);
  }
  const v = view('Not found');
  v.add(h('p', {}, 'No view has this address. '), h('a', { href: '#/users' }, 'Go to the users'));
}

function signedInAs(credential) {
  const key = /^mk_([0-9a-f]{16})_/.exec(credential);
  return key ? `Signed in with the API key ${key[1]}` : 'Signed in with a bearer token';
}

/** Forget the credential; a refused one (`message`) keeps the place to come back to. */
function signOut(message) {
  sessionStorage.removeItem(TOKEN);
  if (!message) history.replaceState(null, '', '#/');
  route();
  say(message ?? 'Signed out: the key is no longer kept in this tab.');
}

// ---- sign in -----------------------------------------------------------------------------------

function viewSignIn() {
  const v = view('Sign in');
  const input = field('API key or bearer token', { type: 'password', spellcheck: 'false', required: true }, { help: 'Kept in this tab only (session storage): closing the tab or signing out forgets it.' });
  v.add(form({ class: 'card', 'aria-label': 'Sign in' }, [input, h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Sign in'))], async () => {
    const credential = control(input).value.trim();
    if (!credential) {
      $('alert').textContent = 'Paste an API key (mk_…) or a bearer token first.';
      return;
    }
    sessionStorage.setItem(TOKEN, credential);
    control(input).value = '';
    try {
      await api('GET', '/admin/audit', { query: { limit: 1 } });
    } catch (error) {
      if (error instanceof ApiError && (error.status === 401 || error.status === 0)) {
        sessionStorage.removeItem(TOKEN);
        $('alert').textContent = `${describe(error)} Check the key and try again.`;
        control(input).focus();
        return;
      }
      // Signed in all the same: a key without the scope admin is told so by every view.
    }
    if (!location.hash || location.hash === '#/') history.replaceState(null, '', '#/users');
    route();
    say('Signed in.', true);
  }));
}

// ---- users -------------------------------------------------------------------------------------

function pager({ previous, next, label }) {
  return h('div', { class: 'pager', role: 'group', 'aria-label': label },
    button('Previous page', previous ?? undefined, { disabled: !previous }),
    button('Next page', next ?? undefined, { disabled: !next }));
}

function viewUsers() {
  const v = view('Users', { section: 'users' });
  const state = memo.users;
  const prefix = field('User id starts with', { type: 'search', value: state.prefix });
  const exact = field('User id', { value: '' });
  const results = h('div', {});
  v.add(
    h('div', { class: 'row' },
      form({ role: 'search', class: 'card', 'aria-label': 'Find users' }, [prefix, h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Find users'))], () => {
        state.prefix = control(prefix).value;
        state.cursors = [''];
        load();
      }),
      form({ class: 'card', 'aria-label': 'Open a user' }, [exact, h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Open user'))], () => {
        const id = control(exact).value;
        if (id) location.hash = userPath(id);
      })),
    results);
  async function load() {
    const current = v.latest(); // a newer load of this view wins: an older answer is dropped
    const after = state.cursors[state.cursors.length - 1];
    const answer = await v.call('GET', '/admin/users', { query: { prefix: state.prefix, after, limit: PAGE } });
    if (!answer || !current()) return;
    const users = Array.isArray(answer.users) ? answer.users : [];
    const first = (state.cursors.length - 1) * PAGE;
    results.replaceChildren(
      users.length === 0 ? h('p', {}, state.prefix ? 'No user id starts with this.' : 'No users yet.') : table(
        users.length ? `Users ${first + 1}–${first + users.length}${state.prefix ? ' matching the prefix' : ''}` : 'Users',
        [
          ['User', (u) => h('a', { href: userPath(u.userId), class: 'data' }, plain(u.userId))],
          ['Entries', (u) => count(u.entries)],
          ['Episodes', (u) => count(u.episodes)],
          ['Last activity', (u) => when(u.lastActivity)],
          ['Restricted', (u) => (u.restricted ? 'restricted' : 'no')],
        ], users),
      pager({
        label: 'Pages of users',
        previous: state.cursors.length > 1 ? () => { state.cursors.pop(); load(); } : null,
        next: answer.next ? () => { state.cursors.push(answer.next); load(); } : null,
      }));
    say(`${users.length} user${users.length === 1 ? '' : 's'} shown.`, true);
  }
  load();
}

/** Who wrote an entry's current state, in words: its writer kind and agent. */
function writer(entry) {
  const agent = entry.sourceAgentId ? ` by ${entry.sourceAgentId}` : '';
  if (entry.writtenBy === 'learned') return `learned from a turn${agent}`;
  const how = { agent: 'written with a tool', rest: 'written over REST', mcp: 'written over MCP', dream: 'written by Dream', migration: 'written by the migration' }[entry.writtenBy];
  return how ? `${how}${agent}` : `written${agent || ' by no agent'}`;
}

// ---- a user's entries --------------------------------------------------------------------------

function viewEntries(userId) {
  const v = view(`Entries of ${userId}`, { section: 'users', user: userId, tab: 'entries' });
  const filters = { category: '', visibility: '', agentId: '', writtenBy: '', offset: 0, q: '', mode: 'auto' };
  const category = field('Category', {}, { kind: 'select', options: [['', 'any'], ...CATEGORIES.map((c) => [c, c])] });
  const visibility = field('Visibility', {}, { kind: 'select', options: [['', 'any'], ...VISIBILITIES.map((c) => [c, c])] });
  const agent = field('Agent id', {});
  const writer = field('Written by', {}, { kind: 'select', options: WRITERS });
  const q = field('Search', { type: 'search' });
  const mode = field('Mode', {}, { kind: 'select', options: MODES.map((m) => [m, m]) });
  const results = h('div', {});
  v.add(h('div', { class: 'row' },
    form({ class: 'card', 'aria-label': 'Filter entries' }, [category, visibility, agent, writer, h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Apply filters'))], () => {
      Object.assign(filters, { category: control(category).value, visibility: control(visibility).value, agentId: control(agent).value, writtenBy: control(writer).value, offset: 0, q: '' });
      control(q).value = '';
      load();
    }),
    form({ role: 'search', class: 'card', 'aria-label': 'Search entries' }, [q, mode, h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Search'), button('Clear search', () => {
      control(q).value = '';
      filters.q = '';
      filters.offset = 0;
      load();
    }))], () => {
      filters.q = control(q).value;
      filters.mode = control(mode).value;
      load();
    })), results);

  async function load() {
    const current = v.latest(); // a newer load of this view wins: an older answer is dropped
    const searching = filters.q !== '';
    const answer = searching
      ? await v.call('GET', `/usermemorystore/memories/${enc(userId)}/search`, { query: { q: filters.q, mode: filters.mode, limit: PAGE } })
      : await v.call('GET', `/usermemorystore/memories/${enc(userId)}`, { query: { limit: PAGE, offset: filters.offset, category: filters.category, visibility: filters.visibility, agentId: filters.agentId, writtenBy: filters.writtenBy } });
    if (!answer || !current()) return;
    const entries = Array.isArray(answer.entries) ? answer.entries : [];
    const total = typeof answer.total === 'number' ? answer.total : null;
    if (!searching && entries.length === 0 && filters.offset > 0) {
      // The last entry of a page was deleted: show the page before.
      filters.offset = Math.max(0, filters.offset - PAGE);
      return load();
    }
    const caption = searching
      ? `${entries.length} entr${entries.length === 1 ? 'y' : 'ies'} found for the search`
      : entries.length === 0 ? 'No entries' : `Entries ${filters.offset + 1}–${filters.offset + entries.length}${total === null ? '' : ` of ${total.toLocaleString('en')}`}`;
    results.replaceChildren(
      entries.length === 0 ? h('p', {}, searching ? 'Nothing matches the search.' : 'No entries match.') : table(caption, [
        ['Key', (e) => clipped(e.key, 120), 'w16'],
        ['Value', (e) => clipped(e.value), 'w26'],
        ['Category', (e) => e.category ?? 'fact', 'w9'],
        ['Visibility', (e) => e.visibility, 'w9'],
        ['Agent', (e) => h('span', { class: 'data' }, plain(e.sourceAgentId ?? '—')), 'w9'],
        ['By', (e) => e.writtenBy ?? '—', 'w6'],
        ['Updated', (e) => when(e.updatedAt), 'w12'],
        ['Actions', (e) => actions(e)],
      ], entries),
      searching ? h('p', { class: 'help' }, `The best ${PAGE} matches at most.`) : pager({
        label: 'Pages of entries',
        previous: filters.offset > 0 ? () => { filters.offset = Math.max(0, filters.offset - PAGE); load(); } : null,
        next: (total === null ? entries.length >= PAGE : filters.offset + entries.length < total) ? () => { filters.offset += PAGE; load(); } : null,
      }));
    say(searching ? `${entries.length} found.` : `${caption}.`, true);
  }

  function actions(entry) {
    const cell = h('div', { class: 'actions' });
    const name = entry.key.length > 60 ? `${entry.key.slice(0, 60)}…` : entry.key;
    const idle = () => cell.replaceChildren(
      h('a', { href: `${userPath(userId)}/${enc(entry.id)}/history`, 'aria-label': `History of ${name}` }, 'History'),
      button('Delete', () => {
        const yes = button('Yes, delete', async () => {
          const done = await v.call('DELETE', `/usermemorystore/memories/entry/${enc(entry.id)}`);
          if (!done) return;
          await load();
          say(`Deleted the entry ${plain(name)}.`);
        }, { class: 'danger', 'aria-label': `Yes, delete ${name}` });
        cell.replaceChildren(h('span', {}, 'Delete it?'), yes, button('Cancel', idle, { 'aria-label': `Cancel deleting ${name}` }));
        yes.focus();
      }, { class: 'danger', 'aria-label': `Delete ${name}` }));
    idle();
    return cell;
  }
  load();
}

// ---- an entry's history ------------------------------------------------------------------------

/**
 * Lines of `a` and `b` as a list of [op, line] with op ' ', '-', '+': the package's line diff
 * (Myers), or — beyond 2,000 edits — every old line removed and every new one added.
 */
function diff(a, b) {
  const x = a.split('\n');
  const y = b.split('\n');
  const steps = diffLines(x, y, 2000);
  if (!steps) return [...x.map((l) => ['-', l]), ...y.map((l) => ['+', l])];
  return steps.map((s) => [s.op === 'same' ? ' ' : s.op === 'del' ? '-' : '+', s.text]);
}

function diffView(before, after) {
  const lines = diff(text(before), text(after));
  const shown = lines.slice(0, 400);
  return h('pre', { class: 'diff' },
    shown.map(([op, line]) => h('span', { class: op === '+' ? 'ins' : op === '-' ? 'del' : 'same' }, `${op} ${line.length > 2000 ? `${line.slice(0, 2000)}…` : line}\n`)),
    lines.length > shown.length ? `… ${lines.length - shown.length} more lines` : null);
}

async function viewHistory(userId, entryId) {
  const v = view('Entry history', { section: 'users', user: userId, tab: 'entries' });
  const body = h('div', {});
  v.add(h('p', {}, h('a', { href: userPath(userId) }, `Back to the entries of ${plain(userId)}`)), body);
  const answer = await v.call('GET', `/usermemorystore/memories/${enc(userId)}/entry/${enc(entryId)}/history`);
  if (!answer) return;
  const current = (answer.current ?? []).find((e) => e.id === entryId) ?? null;
  const versions = Array.isArray(answer.versions) ? answer.versions : [];
  const key = current?.key ?? versions[0]?.key ?? entryId;
  const title = `History of ${plain(key.length > 80 ? `${key.slice(0, 80)}…` : key)}`;
  v.root.querySelector('h2').textContent = title;
  document.title = `${title} · memcore console`;
  const items = [];
  items.push(h('li', { class: 'state current' },
    h('h3', {}, current ? 'Now' : 'Now: deleted'),
    current ? [h('p', { class: 'meta' }, `Since ${when(current.updatedAt)} · ${current.visibility} · ${writer(current)}`), clipped(current.value)] : h('p', {}, 'The entry does not exist now; restore a version to bring it back.')));
  versions.forEach((version, i) => {
    const newer = i === 0 ? current : versions[i - 1];
    const author = version.author ? `${version.author.kind} ${version.author.id ?? ''}`.trim() : 'unknown';
    const restore = button('Restore', async () => {
      const done = await v.call('POST', `/usermemorystore/memories/${enc(userId)}/versions/${enc(version.id)}/restore`);
      if (!done) return;
      await viewHistory(userId, entryId);
      say(done.restored ? `Restored the version of ${when(version.validFrom)}.` : 'That version is already the current state: nothing changed.');
    }, { 'aria-label': `Restore the version of ${when(version.validFrom)}` });
    items.push(h('li', { class: 'state' },
      h('h3', {}, `${when(version.validFrom)} until ${when(version.validUntil)}`),
      h('p', { class: 'meta' }, `Ended: ${version.reason ?? 'changed'} by ${author}`),
      clipped(version.value),
      newer && version.supersededBy === newer.id
        ? h('details', {}, h('summary', {}, 'What changed next'), diffView(version.value, newer.value))
        : h('p', { class: 'meta' }, version.supersededBy ? 'Superseded by another entry.' : 'Deleted after this state.'),
      h('div', { class: 'actions' }, restore)));
  });
  body.replaceChildren(
    h('p', {}, `${versions.length} earlier version${versions.length === 1 ? '' : 's'} kept, newest first.`),
    h('ol', { class: 'timeline', 'aria-label': 'Timeline' }, items));
}

// ---- episodes ----------------------------------------------------------------------------------

function viewEpisodes(userId) {
  const v = view(`Episodes of ${userId}`, { section: 'users', user: userId, tab: 'episodes' });
  const q = field('Search text (optional)', { type: 'search' }, { help: 'Without a search text: the newest episodes, a page at a time.' });
  const conversation = field('Conversation id (optional)', {});
  const results = h('div', {});
  let offset = 0;
  v.add(form({ role: 'search', class: 'card filters', 'aria-label': 'Find episodes' }, [q, conversation, h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Show episodes'))], () => {
    offset = 0;
    load();
  }), results);
  async function load() {
    const current = v.latest(); // a newer load of this view wins: an older answer is dropped
    const text = control(q).value;
    const answer = await v.call('GET', `/usermemorystore/memories/${enc(userId)}/episodes`, { query: { q: text, conversationId: control(conversation).value, limit: PAGE, offset: text ? undefined : offset || undefined } });
    if (!answer || !current()) return;
    const episodes = Array.isArray(answer.episodes) ? answer.episodes : [];
    const total = typeof answer.total === 'number' && !text ? answer.total : null;
    const groups = new Map();
    for (const e of episodes) {
      if (!groups.has(e.conversationId)) groups.set(e.conversationId, []);
      groups.get(e.conversationId).push(e);
    }
    const sections = [...groups].map(([id, list]) => h('section', { class: 'card conversation', 'aria-label': `Conversation ${id}` },
      h('h3', {}, 'Conversation ', h('span', { class: 'data' }, plain(id))),
      h('ol', { class: 'episodes' }, list.map((e) => h('li', {},
        h('p', { class: 'meta' }, `${e.role} · ${when(e.at)}${typeof e.score === 'number' ? ` · score ${e.score.toFixed(3)}` : ''}`),
        clipped(e.text))))));
    results.replaceChildren(...(episodes.length === 0 ? [h('p', {}, 'No episodes.')] : sections), ...(total === null ? [] : [pager({
      label: 'Pages of episodes',
      previous: offset > 0 ? () => { offset = Math.max(0, offset - PAGE); load(); } : null,
      next: offset + episodes.length < total ? () => { offset += PAGE; load(); } : null,
    })]));
    const range = total === null ? `at most ${PAGE}` : episodes.length ? `${offset + 1}–${offset + episodes.length} of ${total}` : `of ${total}`;
    say(`${episodes.length} episode${episodes.length === 1 ? '' : 's'} in ${groups.size} conversation${groups.size === 1 ? '' : 's'} (${range}).`, true);
  }
  load();
}

// ---- the profile -------------------------------------------------------------------------------

async function viewProfile(userId) {
  const v = view(`Profile of ${userId}`, { section: 'users', user: userId, tab: 'profile' });
  const meta = h('p', { class: 'meta' });
  const meterId = nextId('meter');
  const meter = h('meter', { id: meterId, min: '0', max: '1', value: '0' });
  const size = h('span', {});
  const editor = field('Profile (Markdown)', { class: 'body', rows: '18', spellcheck: 'false' }, { kind: 'textarea' });
  const diagnostics = h('div', {});
  const save = h('button', { type: 'submit', class: 'primary' }, 'Save profile');
  v.add(meta, h('p', { class: 'meter' }, h('label', { for: meterId }, 'Size '), meter, ' ', size),
    form({ class: 'card', 'aria-label': 'Edit the profile' }, [editor, h('div', { class: 'actions' }, save)], async () => {
      save.disabled = true;
      const answer = await v.call('PUT', `/admin/profiles/${enc(userId)}`, { body: { body: control(editor).value } });
      save.disabled = false;
      if (!answer) return;
      show(answer);
      say(answer.diagnostics?.length ? 'Saved, with notes below.' : 'Saved.');
    }), diagnostics);
  function show(p) {
    control(editor).value = p.body ?? '';
    control(editor).scrollTop = 0;
    meta.textContent = p.exists ? `Last updated ${when(p.lastUpdated)} · ${count(p.turnCount)} turns` : 'No profile yet: saving creates it.';
    const max = Number(p.maxTokens) > 0 ? Number(p.maxTokens) : 1;
    meter.max = max;
    meter.high = max * 0.9;
    meter.value = Number(p.tokens) || 0;
    size.textContent = `${count(p.tokens)} of ${count(p.maxTokens)} tokens`;
    const list = Array.isArray(p.diagnostics) ? p.diagnostics : [];
    diagnostics.replaceChildren(...(list.length === 0 ? [] : [h('section', { 'aria-label': 'Diagnostics' },
      h('h3', {}, 'Diagnostics'),
      h('ul', { class: 'diagnostics' }, list.map((d) => h('li', { class: d.severity === 'error' ? 'error' : 'warning' }, `Line ${d.line ?? '—'} · ${d.severity} · ${d.code}: `, h('span', { class: 'data' }, plain(d.message))))))]));
  }
  const answer = await v.call('GET', `/admin/profiles/${enc(userId)}`);
  if (answer) show(answer);
}

// ---- Dream -------------------------------------------------------------------------------------

/** One line about a Dream report: what it did, or why it did not run. */
const dreamRefusal = (r) => (r?.error ? String(r.error.message ?? r.error.code ?? 'an error') : null);
function dreamSummary(report) {
  const r = report && typeof report === 'object' ? report : {};
  if (r.error) return `Did not run: ${dreamRefusal(r)}`;
  const n = (x) => (Array.isArray(x) ? x.length : Number(x) || 0);
  return `Pruned ${n(r.pruned)} · summarised ${n(r.summarized)} · contradictions ${n(r.contradictions)} · ${n(r.calls)} model calls · ${n(r.durationMs)} ms`;
}

async function viewDream(userId) {
  const v = view(`Dream of ${userId}`, { section: 'users', user: userId, tab: 'dream' });
  const runs = h('div', {});
  const run = button('Run Dream now', async () => {
    run.disabled = true;
    const answer = await v.call('POST', `/admin/dream/${enc(userId)}`);
    run.disabled = false;
    if (!answer) return;
    await load();
    if (dreamRefusal(answer.report)) $('alert').textContent = `Dream did not run: ${dreamRefusal(answer.report)}`;
    else say(`Dream ran: ${dreamSummary(answer.report)}.`);
  }, { class: 'primary' });
  v.add(h('p', { class: 'help' }, 'Dream prunes, summarises and finds contradictions in this user\'s entries; runs of this server process are listed, newest first.'), h('div', { class: 'actions' }, run), runs);
  async function load() {
    const current = v.latest(); // a newer load of this view wins: an older answer is dropped
    const answer = await v.call('GET', '/admin/dream', { query: { userId } });
    if (!answer || !current()) return;
    const list = Array.isArray(answer.runs) ? answer.runs : [];
    runs.replaceChildren(list.length === 0 ? h('p', {}, 'No Dream run recorded for this user.') : h('ol', { class: 'timeline', 'aria-label': 'Dream runs' },
      list.slice(0, PAGE).map((r) => h('li', { class: 'state' }, h('h3', {}, when(r.at)), h('p', { class: 'meta' }, dreamSummary(r.report)),
        h('details', {}, h('summary', {}, 'The report'), clipped(r.report, 4000))))));
  }
  load();
}

// ---- rights: export, restriction, erasure ------------------------------------------------------

async function viewRights(userId) {
  const v = view(`Rights of ${userId}`, { section: 'users', user: userId, tab: 'rights' });
  const base = `/admin/gdpr/${enc(userId)}`;
  const exportButton = button('Download the export (JSON)', async () => {
    const answer = await v.call('GET', `${base}/export`);
    if (!answer) return;
    const json = JSON.stringify(answer, null, 2);
    const url = URL.createObjectURL(new Blob([json], { type: 'application/json' }));
    const link = h('a', { href: url, download: `memcore-export-${userId.replace(/[^\w.-]+/g, '_')}.json`, class: 'hidden' });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    say(`Export of ${plain(userId)} downloaded (${json.length.toLocaleString('en')} characters).`);
  });
  const state = h('p', {});
  const toggle = button('…', async () => {
    const to = toggle.dataset.restricted !== 'true';
    const answer = await v.call('PUT', `${base}/restriction`, { body: { restricted: to } });
    if (!answer) return;
    restriction(answer.restricted);
    say(answer.restricted ? 'Processing is now restricted.' : 'The restriction is lifted.');
  }, { disabled: true });
  function restriction(on) {
    toggle.dataset.restricted = String(on);
    toggle.disabled = false;
    state.textContent = on ? 'Processing of this user\'s data is restricted (Art. 18): memory is kept but not changed.' : 'Processing is not restricted.';
    toggle.textContent = on ? 'Lift the restriction' : 'Restrict processing';
  }
  const confirm = field(`Type the user id to confirm`, { spellcheck: 'false' }, { help: `Erasure removes every entry, version, episode, profile and API key of ${plain(userId)}. It cannot be undone.` });
  const erase = h('button', { type: 'submit', class: 'danger', disabled: true }, 'Erase all data of this user');
  control(confirm).addEventListener('input', () => {
    erase.disabled = control(confirm).value !== userId;
  });
  const report = h('div', {});
  v.add(
    h('section', { class: 'card', 'aria-labelledby': 'export-h' }, h('h3', { id: 'export-h' }, 'Export (Art. 15/20)'), h('p', {}, 'Everything memory holds about this user, as one JSON document.'), h('div', { class: 'actions' }, exportButton)),
    h('section', { class: 'card', 'aria-labelledby': 'restrict-h' }, h('h3', { id: 'restrict-h' }, 'Restriction (Art. 18)'), state, h('div', { class: 'actions' }, toggle)),
    h('section', { class: 'card danger-zone', 'aria-labelledby': 'erase-h' }, h('h3', { id: 'erase-h' }, 'Erasure (Art. 17)'),
      form({ 'aria-label': 'Erase the user' }, [confirm, h('div', { class: 'actions' }, erase)], async () => {
        if (control(confirm).value !== userId) return;
        erase.disabled = true;
        const answer = await v.call('DELETE', base);
        if (!answer) {
          erase.disabled = false;
          return;
        }
        control(confirm).value = '';
        report.replaceChildren(h('h4', {}, 'Erasure report'), clipped(answer, 4000));
        say(`Erased every piece of data of ${plain(userId)}.`);
      }), report));
  const answer = await v.call('GET', `${base}/restriction`);
  if (answer) restriction(answer.restricted === true);
}

// ---- API keys ----------------------------------------------------------------------------------

async function viewKeys(userId) {
  const v = view(userId === undefined ? 'API keys' : `API keys of ${userId}`, { section: userId === undefined ? 'keys' : 'users', user: userId, tab: 'keys' });
  const results = h('div', {});
  const shown = h('section', { class: 'secret card', hidden: true, 'aria-label': 'The new key' });
  const owner = field('User id', { value: userId ?? '', required: true });
  const scopes = SCOPES.map((s) => field(s, { type: 'checkbox', value: s, checked: s.startsWith('memory:') }));
  const agent = field('Agent id (optional)', {});
  const name = field('Name (optional)', {});
  const expires = field('Expires (optional, your local time)', { type: 'datetime-local' });
  const filter = field('Only the keys of user', { type: 'search' });
  let all = [];
  let offset = 0;
  v.add(shown, h('div', { class: 'row' },
    form({ class: 'card', 'aria-label': 'Create an API key' }, [
      h('h3', {}, 'Create a key'), owner,
      h('fieldset', {}, h('legend', {}, 'Scopes'), scopes),
      agent, name, expires,
      h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Create key')),
    ], async () => {
      const body = { userId: control(owner).value, scopes: scopes.map(control).filter((c) => c.checked).map((c) => c.value) };
      if (control(agent).value) body.agentId = control(agent).value;
      if (control(name).value) body.name = control(name).value;
      if (control(expires).value) body.expiresAt = new Date(control(expires).value).toISOString();
      const answer = await v.call('POST', '/admin/keys', { body });
      if (!answer) return;
      await load();
      reveal(answer);
    }),
    userId === undefined ? form({ role: 'search', class: 'card', 'aria-label': 'Filter keys' }, [filter, h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Show keys'))], () => load()) : null),
  results);

  function reveal({ key, record }) {
    const keyField = field('The new API key', { value: key, readonly: true, spellcheck: 'false', class: 'mono' });
    const copy = button('Copy the key', async () => {
      try {
        await navigator.clipboard.writeText(key);
        say('Copied the key to the clipboard.');
      } catch {
        control(keyField).select();
        say('Copying was refused by the browser: the key is selected, press Ctrl+C (⌘C).');
      }
    }, { class: 'primary' });
    const done = button('I have stored it', () => {
      shown.replaceChildren();
      shown.hidden = true;
      say('The key is no longer shown.');
    });
    shown.replaceChildren(h('h3', {}, `Key ${record?.id ?? ''} for ${plain(record?.userId ?? '')}`),
      h('p', { class: 'warn' }, 'Copy it now: it will not be shown again. The server keeps only its hash.'),
      keyField, h('div', { class: 'actions' }, copy, done));
    shown.hidden = false;
    copy.focus();
    say('Key created. Copy it now: it will not be shown again.');
  }

  async function load() {
    const current = v.latest(); // a newer load of this view wins: an older answer is dropped
    const who = userId ?? control(filter).value;
    const answer = await v.call('GET', '/admin/keys', { query: { userId: who } });
    if (!answer || !current()) return;
    all = Array.isArray(answer.keys) ? answer.keys : [];
    offset = 0;
    render();
  }
  function render() {
    const page = all.slice(offset, offset + PAGE);
    results.replaceChildren(all.length === 0 ? h('p', {}, 'No keys.') : table(`Keys ${offset + 1}–${offset + page.length} of ${all.length}`, [
      ['Id', (k) => h('span', { class: 'mono' }, k.id), 'w16'],
      ['User', (k) => h('span', { class: 'data' }, plain(k.userId)), 'w12'],
      ['Scopes', (k) => (k.scopes ?? []).join(', '), 'w16'],
      ['Agent / name', (k) => h('span', { class: 'data' }, plain([k.agentId, k.name].filter(Boolean).join(' · ') || '—')), 'w16'],
      ['Created', (k) => when(k.createdAt), 'w12'],
      ['Expires', (k) => when(k.expiresAt), 'w12'],
      ['State', (k) => revoker(k)],
    ], page), pager({
      label: 'Pages of keys',
      previous: offset > 0 ? () => { offset -= PAGE; render(); } : null,
      next: offset + PAGE < all.length ? () => { offset += PAGE; render(); } : null,
    }));
  }
  function revoker(k) {
    if (k.revokedAt) return `revoked ${when(k.revokedAt)}`;
    const cell = h('div', { class: 'actions' });
    const idle = () => cell.replaceChildren('live', button('Revoke', () => {
      const yes = button('Yes, revoke', async () => {
        const done = await v.call('DELETE', `/admin/keys/${enc(k.id)}`);
        if (!done) return;
        await load();
        say(`Revoked the key ${k.id}: it stops working now.`);
      }, { class: 'danger', 'aria-label': `Yes, revoke ${k.id}` });
      cell.replaceChildren('Revoke it?', yes, button('Cancel', idle, { 'aria-label': `Cancel revoking ${k.id}` }));
      yes.focus();
    }, { class: 'danger', 'aria-label': `Revoke ${k.id}` }));
    idle();
    return cell;
  }
  load();
}

// ---- audit -------------------------------------------------------------------------------------

function viewAudit() {
  const v = view('Audit log', { section: 'audit' });
  const state = memo.audit;
  const user = field('User id', { value: state.userId });
  const since = field('Since (RFC 3339, optional)', { value: state.since, placeholder: '2026-01-01T00:00:00Z' });
  const op = field('Operation (this page)', {}, { kind: 'select', options: [['', 'any'], ...OPERATIONS.map((o) => [o, o])] });
  control(op).value = state.op;
  control(op).addEventListener('change', () => {
    state.op = control(op).value;
    render();
  });
  const results = h('div', {});
  let records = [];
  v.add(form({ class: 'card filters', 'aria-label': 'Filter the audit log' }, [user, since, op, h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Show records'))], () => {
    Object.assign(state, { userId: control(user).value, since: control(since).value, op: control(op).value, seqs: [0] });
    load();
  }), results);
  async function load() {
    const current = v.latest(); // a newer load of this view wins: an older answer is dropped
    const afterSeq = state.seqs[state.seqs.length - 1];
    const answer = await v.call('GET', '/admin/audit', { query: { userId: state.userId, since: state.since, afterSeq: afterSeq || undefined, limit: PAGE } });
    if (!answer || !current()) return;
    records = Array.isArray(answer.records) ? answer.records : [];
    render();
  }
  function render() {
    const rows = state.op ? records.filter((r) => r.operation === state.op) : records;
    const last = records[records.length - 1];
    results.replaceChildren(rows.length === 0 ? h('p', {}, 'No records on this page.') : table(`Audit records (${rows.length} of ${records.length} on this page)`, [
      ['Seq', (r) => String(r.seq), 'w6'],
      ['At', (r) => when(r.at), 'w16'],
      ['Actor', (r) => h('span', { class: 'data' }, plain(r.actor ? `${r.actor.kind} ${r.actor.id ?? ''}` : '—')), 'w12'],
      ['Operation', (r) => r.operation, 'w9'],
      ['User', (r) => (r.userId ? h('a', { href: userPath(r.userId), class: 'data' }, plain(r.userId)) : '—'), 'w16'],
      ['Key', (r) => (r.key == null ? '—' : clipped(r.key, 80))],
      ['Items', (r) => (r.items == null ? '—' : count(r.items))],
    ], rows), pager({
      label: 'Pages of audit records',
      previous: state.seqs.length > 1 ? () => { state.seqs.pop(); load(); } : null,
      next: records.length >= PAGE && last ? () => { state.seqs.push(last.seq); load(); } : null,
    }));
    say(`${rows.length} audit record${rows.length === 1 ? '' : 's'} shown.`, true);
  }
  load();
}

// ---- start -------------------------------------------------------------------------------------

$('sign-out').addEventListener('click', () => signOut());
$('skip').addEventListener('click', (event) => {
  event.preventDefault();
  $('main').focus();
});
window.addEventListener('hashchange', route);
route();
