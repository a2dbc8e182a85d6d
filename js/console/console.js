// The memcore operator console (issue 43), served by `memcore serve` at /console/ under a CSP of
// `script-src 'self'; style-src 'self'; connect-src 'self'`: vanilla JS, no framework, no inline
// code or style. Every value the server answers is shown as text (textContent and text nodes,
// never innerHTML); the credential lives in this tab's sessionStorage only; every list is paged.
// This module is the entry: the routes and sign-in; the views live in views.js and
// admin-views.js, the shell in app.js, the DOM helpers in dom.js.
import { $, button, control, field, form, h } from './dom.js';
import { api, ApiError, describe, onRoute, say, signedInAs, signOut, TOKEN, token, view } from './app.js';
import { viewEntries, viewEpisodes, viewHistory, viewProfile, viewUsers } from './views.js';
import { viewAudit, viewDream, viewKeys, viewRights } from './admin-views.js';

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

// ---- start -------------------------------------------------------------------------------------

$('sign-out').addEventListener('click', () => signOut());
$('skip').addEventListener('click', (event) => {
  event.preventDefault();
  $('main').focus();
});
onRoute(route);
window.addEventListener('hashchange', route);
route();
