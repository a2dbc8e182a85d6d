// The console's shell: its settings, the server calls with the tab's credential, the status
// and alert regions, a view's frame with its user tabs, sign-out, and the router hook the entry
// module (console.js) registers.
import { $, button, enc, h, plain } from './dom.js';

export const TOKEN = 'memcore.console.token';
export const PAGE = 50;
const TIMEOUT_MS = 30_000;
export const CATEGORIES = ['preference', 'fact', 'context', 'legacy', 'property'];
export const VISIBILITIES = ['global', 'self', 'group'];
// The entries filter "written by" (the server's `writtenBy`): learned from a turn, or written.
export const WRITERS = [['', 'anyone'], ['learned', 'learned from turns'], ['written', 'written (any writer)'], ['agent', 'an agent\'s tool'], ['rest', 'REST'], ['mcp', 'MCP'], ['dream', 'Dream'], ['migration', 'the migration'], ['unknown', 'unknown (older entries)']];
export const MODES = ['auto', 'terms', 'ranked', 'hybrid'];
export const SCOPES = ['memory:read', 'memory:write', 'profile:read', 'profile:write', 'admin'];
export const OPERATIONS = ['write', 'delete', 'restore', 'erase', 'restrict', 'unrestrict', 'import', 'export', 'learn'];
// The API lives at the console's parent path: /console/ → /, /base/console/ → /base/.
const BASE = new URL('../', location.href);
let generation = 0;
export const memo = { users: { prefix: '', cursors: [''] }, audit: { userId: '', since: '', op: '', seqs: [0] } };
// ---- the server --------------------------------------------------------------------------------

export class ApiError extends Error {
  constructor(status, code, message, details, path) {
    super(message);
    Object.assign(this, { status, code, details, path });
  }
}

export const token = () => sessionStorage.getItem(TOKEN);

/** One call to the server, with the bearer credential; its JSON answer, or an ApiError. */
export async function api(method, path, { query, body } = {}) {
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
export function describe(error) {
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
export function say(message, quiet = false) {
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
export function view(title, { section, user, tab } = {}) {
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
export const userPath = (userId, tab = 'entries') => `#/users/${enc(userId)}/${tab}`;

function userNav(userId, current) {
  return h('nav', { 'aria-label': 'This user', class: 'tabs' }, h('ul', {}, TABS.map(([tab, name]) =>
    h('li', {}, h('a', { href: userPath(userId, tab), 'aria-current': tab === current ? 'page' : null }, name)))));
}

export function signedInAs(credential) {
  const key = /^mk_([0-9a-f]{16})_/.exec(credential);
  return key ? `Signed in with the API key ${key[1]}` : 'Signed in with a bearer token';
}

/** Forget the credential; a refused one (`message`) keeps the place to come back to. */
export function signOut(message) {
  sessionStorage.removeItem(TOKEN);
  if (!message) history.replaceState(null, '', '#/');
  router();
  say(message ?? 'Signed out: the key is no longer kept in this tab.');
}

export function pager({ previous, next, label }) {
  return h('div', { class: 'pager', role: 'group', 'aria-label': label },
    button('Previous page', previous ?? undefined, { disabled: !previous }),
    button('Next page', next ?? undefined, { disabled: !next }));
}

/** The router console.js registers: what a sign-out (and a view that moves) re-renders with. */
let router = () => {};

/** Register the router (console.js). */
export function onRoute(render) {
  router = render;
}
