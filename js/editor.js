// memcore/editor — Settings → Context Memory (behaviour §1.10): the user's profile body in a textarea,
// saved explicitly. No framework: one function mounts the editor into an element and talks either
// to `GET`/`PUT <endpoint>` (memcore/server's `/contextmemory/me`, JSON contract in docs/reference/browser.md)
// or to the host's own `load`/`save` callbacks. The core wasm is imported only once the user edits
// (for the inline heading diagnostics); no tokenizer table is ever loaded. Importing this module
// touches no DOM (it can be imported during server-side rendering); the styles are the separate
// file `memcore/editor.css`.
//
//   import { mountContextMemoryEditor } from 'memcore/editor';
//   import 'memcore/editor.css';
//   mountContextMemoryEditor(document.querySelector('#memory'), { endpoint: '/contextmemory/me' });

// The limit and the empty profile come from the package's wasm-free constants (memcore/constants),
// so the page has them before — and without — loading the core.
import { EMPTY_PROFILE_BODY, MAX_EDIT_BODY_BYTES } from './constants.js';
import { MemcoreError } from './errors.js';

/** behaviour §1.10: the largest body a save accepts, in UTF-8 bytes (memcore's MAX_EDIT_BODY_BYTES). */
export const MAX_BODY_BYTES = MAX_EDIT_BODY_BYTES;

/** The nine states; `data-state` on the root carries the current one. */
export const STATES = ['loading', 'empty', 'unavailable', 'error', 'ready', 'unsaved', 'saving', 'saved', 'save-error'];


const template = (id) => `
  <header class="cm-header">
    <h2 class="cm-title" id="${id}-title">Context memory</h2>
    <p class="cm-meta" data-testid="editor-meta"></p>
  </header>
  <p class="cm-status" data-testid="editor-status" role="status" aria-live="polite"></p>
  <div class="cm-message" hidden>
    <p class="cm-message-text" data-testid="editor-message"></p>
    <button type="button" class="cm-retry" data-testid="editor-retry" hidden>Retry</button>
    <button type="button" class="cm-start" data-testid="editor-start" hidden>Write it yourself</button>
  </div>
  <div class="cm-form" hidden>
    <label class="cm-label" for="${id}-body">What the assistant knows about you (Markdown)</label>
    <p class="cm-help" id="${id}-help">Keep the six <code>##</code> headings; bullets start with <code>- </code>.
      Nothing changes until you press Save (<kbd>Ctrl</kbd>+<kbd>S</kbd>).</p>
    <textarea id="${id}-body" class="cm-body" data-testid="editor-body" spellcheck="true"
      aria-describedby="${id}-help ${id}-size ${id}-diagnostics"></textarea>
    <ul class="cm-diagnostics" id="${id}-diagnostics" data-testid="editor-diagnostics" aria-live="polite" aria-label="Problems with the headings"></ul>
    <div class="cm-actions">
      <button type="button" class="cm-save" data-testid="editor-save">Save</button>
      <button type="button" class="cm-discard" data-testid="editor-discard">Discard changes</button>
      <span class="cm-size" id="${id}-size" data-testid="editor-size"></span>
    </div>
  </div>`;

let mounted = 0;
const bytes = (n) => `${n.toLocaleString('en')} bytes`;
const when = (iso) => {
  const d = iso ? new Date(iso) : null;
  return d && !Number.isNaN(d.getTime()) ? d.toISOString().replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, ' UTC') : null;
};

/** Thrown for an answer the page can show: the server's message, its code and HTTP status. */
class RequestFailed extends Error {
  constructor(message, { status = 0, code = null, details = null } = {}) {
    super(message);
    Object.assign(this, { status, code, details });
  }
}

/** A load or save answer made safe to show: anything else than a profile view is a failure. */
function checkedView(answer) {
  if (answer === null || typeof answer !== 'object' || typeof answer.exists !== 'boolean' || (answer.body !== undefined && answer.body !== null && typeof answer.body !== 'string')) {
    throw new RequestFailed('the answer is not a profile view ({ exists, body, lastUpdated, turnCount })', { code: 'bad_answer' });
  }
  const diagnostics = Array.isArray(answer.diagnostics)
    ? answer.diagnostics
      .filter((d) => d !== null && typeof d === 'object' && Number.isInteger(d.line) && d.line > 0 && typeof d.message === 'string')
      .map((d) => ({ code: String(d.code ?? ''), line: d.line, message: d.message, severity: String(d.severity ?? 'warning') }))
    : [];
  return {
    exists: answer.exists,
    body: answer.body ?? '',
    lastUpdated: typeof answer.lastUpdated === 'string' ? answer.lastUpdated : null,
    turnCount: Number.isInteger(answer.turnCount) && answer.turnCount >= 0 ? answer.turnCount : null,
    diagnostics,
    redactedSecrets: Number.isInteger(answer.redactedSecrets) && answer.redactedSecrets > 0 ? answer.redactedSecrets : 0,
  };
}

/**
 * The editor's `load` and `save` over a `ContextMemory` (or anything with its two Settings
 * methods) for one user — a page that runs memcore itself (a preview, an offline app) needs no
 * server. `save` answers what `PUT /contextmemory/me` answers: the stored view, the heading
 * diagnostics and the number of credentials redacted.
 * @param {{ getMyContextMemory(userId: string): Promise<object>, updateMyContextMemory(userId: string, body: string): Promise<object> }} contextMemory
 * @param {string} userId
 */
export function contextMemoryCallbacks(contextMemory, userId) {
  if (contextMemory === null || typeof contextMemory !== 'object' || typeof contextMemory.getMyContextMemory !== 'function' || typeof contextMemory.updateMyContextMemory !== 'function') {
    throw new MemcoreError('E_ARGUMENT', 'contextMemoryCallbacks: pass a ContextMemory (getMyContextMemory and updateMyContextMemory)', { function: 'contextMemoryCallbacks' });
  }
  if (typeof userId !== 'string' || userId === '') throw new MemcoreError('E_ARGUMENT', 'contextMemoryCallbacks: userId must be a non-empty string', { function: 'contextMemoryCallbacks' });
  return {
    load: () => contextMemory.getMyContextMemory(userId),
    save: async (body) => {
      const saved = await contextMemory.updateMyContextMemory(userId, body);
      const view = await contextMemory.getMyContextMemory(userId);
      return { saved: true, ...view, diagnostics: saved?.diagnostics ?? [], redactedSecrets: saved?.redactedSecrets ?? 0 };
    },
  };
}

/**
 * Mount the editor into `root` (its children are replaced) and start loading.
 *
 * Where the profile comes from: `endpoint` (default `/contextmemory/me`: `GET` answers a
 * `MemoryView`, `PUT` with the body as text/markdown answers the view plus `diagnostics` and
 * `redactedSecrets`), or the host's own `load` and `save` callbacks (both, or neither) — e.g.
 * {@link contextMemoryCallbacks} over a `ContextMemory` in the page. A callback that throws an error
 * whose `code` is `E_MEMORY_DISABLED` shows the unavailable state (its `message`, and
 * `details.reason` on the message's `data-reason`); any other failure is the error or save-error
 * state with its message. `timeoutMs` bounds every load and save either way (the callbacks get its
 * `signal`).
 *
 * @param {HTMLElement} root
 * @param {{ endpoint?: string, timeoutMs?: number, fetch?: typeof fetch, requestInit?: RequestInit,
 *           load?: (init: { signal: AbortSignal }) => Promise<object>,
 *           save?: (body: string, init: { signal: AbortSignal }) => Promise<object>,
 *           loadCore?: () => Promise<{ applyUserEdit: Function }> }} [options]
 *   `requestInit` is merged into both requests (credentials, auth headers of the host app);
 *   `loadCore` imports memcore (default `import('memcore')`).
 * @returns {{ readonly state: string, reload(): Promise<void>, save(): Promise<void>, destroy(): void }}
 */
export function mountContextMemoryEditor(root, options = {}) {
  if (!root || typeof root.querySelector !== 'function') {
    throw new MemcoreError('E_ARGUMENT', 'mountContextMemoryEditor: root must be an element', { function: 'mountContextMemoryEditor' });
  }
  if (options === null || typeof options !== 'object') throw new MemcoreError('E_ARGUMENT', 'mountContextMemoryEditor: options must be an object', { function: 'mountContextMemoryEditor' });
  const {
    endpoint = '/contextmemory/me',
    timeoutMs = 10000,
    fetch: fetchFn = globalThis.fetch?.bind(globalThis),
    requestInit = {},
    loadCore = () => import('memcore'),
  } = options;
  const callbacks = options.load !== undefined || options.save !== undefined;
  if (callbacks && (typeof options.load !== 'function' || typeof options.save !== 'function')) {
    throw new MemcoreError('E_ARGUMENT', 'mountContextMemoryEditor: pass both load and save (functions), or neither to use the endpoint', { function: 'mountContextMemoryEditor' });
  }
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) throw new MemcoreError('E_ARGUMENT', 'mountContextMemoryEditor: timeoutMs must be a positive number of milliseconds', { function: 'mountContextMemoryEditor' });
  if (!callbacks && typeof fetchFn !== 'function') throw new MemcoreError('E_ARGUMENT', 'mountContextMemoryEditor: no fetch in this environment; pass fetch, or load and save', { function: 'mountContextMemoryEditor' });
  // Ids unique per mount, so two editors on one page keep their labels apart.
  const id = `cm${(mounted += 1)}`;
  root.classList.add('cm-editor');
  root.setAttribute('aria-labelledby', `${id}-title`);
  root.innerHTML = template(id);
  const $ = (selector) => root.querySelector(selector);
  const ui = {
    meta: $('.cm-meta'), status: $('.cm-status'), message: $('.cm-message'), messageText: $('.cm-message-text'),
    retry: $('.cm-retry'), start: $('.cm-start'), form: $('.cm-form'), body: $('.cm-body'),
    diagnostics: $('.cm-diagnostics'), save: $('.cm-save'), discard: $('.cm-discard'), size: $('.cm-size'),
  };

  let state = 'loading';
  let stored = { exists: false, body: '', lastUpdated: null, turnCount: null };
  let statusText = '';
  let diagnosticsOf = null; // (body) => Diagnostic[] once the core is loaded
  let coreLoading = null;
  let diagnosticsTimer = 0;
  let destroyed = false;

  const dirty = () => ui.body.value !== stored.body;
  const size = () => new TextEncoder().encode(ui.body.value).length;
  const tooLarge = () => size() > MAX_BODY_BYTES;

  function render() {
    root.dataset.state = state;
    root.setAttribute('aria-busy', String(state === 'loading' || state === 'saving'));
    const editing = ['ready', 'unsaved', 'saving', 'saved', 'save-error'].includes(state);
    ui.form.hidden = !editing;
    ui.message.hidden = editing || state === 'loading';
    ui.retry.hidden = state !== 'error';
    ui.start.hidden = state !== 'empty';
    ui.body.readOnly = state === 'saving';
    const canSave = (state === 'unsaved' || state === 'save-error') && !tooLarge();
    ui.save.disabled = !canSave;
    ui.save.textContent = state === 'saving' ? 'Saving…' : 'Save';
    ui.discard.disabled = !(state === 'unsaved' || state === 'save-error');
    ui.status.textContent = statusText;
    const updated = when(stored.lastUpdated);
    ui.meta.textContent = stored.exists && updated
      ? `Last updated ${updated} · ${stored.turnCount ?? 0} automatic ${stored.turnCount === 1 ? 'rewrite' : 'rewrites'}`
      : '';
    const n = size();
    ui.size.textContent = n > MAX_BODY_BYTES
      ? `${bytes(n)} — over the ${bytes(MAX_BODY_BYTES)} (1 MiB) limit; shorten it to save`
      : `${bytes(n)} of ${bytes(MAX_BODY_BYTES)}`;
    ui.size.classList.toggle('cm-over', n > MAX_BODY_BYTES);
  }

  function enter(next, text, message) {
    if (destroyed) return; // an answer after destroy() changes nothing
    state = next;
    statusText = text;
    if (message !== undefined) ui.messageText.textContent = message;
    render();
  }

  async function request(method, body, signal) {
    let response;
    try {
      response = await fetchFn(endpoint, {
        ...requestInit,
        method,
        // The body goes as it is (text/markdown): its 1 MiB limit is then the request's, byte for
        // byte, where JSON escaping would make a body near the limit a larger request.
        headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'text/markdown; charset=utf-8' } : {}), ...requestInit.headers },
        body,
        cache: 'no-store',
        signal,
      });
    } catch (error) {
      if (signal.aborted) throw error;
      throw new RequestFailed('the server could not be reached', { code: 'network' });
    }
    let payload = null;
    try {
      payload = await response.json();
    } catch {
      // not JSON: described by the status below
    }
    if (!response.ok) {
      // `{ error: { code, message, details } }`, or `{ code, message }`, or `{ error: code, message }`.
      const nested = payload?.error && typeof payload.error === 'object' ? payload.error : null;
      const error = nested ?? payload ?? {};
      const code = error.code ?? (typeof payload?.error === 'string' ? payload.error : null);
      throw new RequestFailed(typeof error.message === 'string' && error.message ? error.message : `the server answered HTTP ${response.status}`, {
        status: response.status, code, details: error.details ?? null,
      });
    }
    return payload;
  }

  /**
   * One load (`body` undefined) or save, by the endpoint or the callbacks, bounded by timeoutMs;
   * resolves to a checked view, rejects with a RequestFailed.
   */
  async function exchange(body) {
    const controller = new AbortController();
    let timer;
    const timedOut = new Promise((_, reject) => {
      timer = setTimeout(() => {
        const failure = new RequestFailed(`${callbacks ? 'no answer' : 'the server did not answer'} within ${timeoutMs / 1000} s`, { code: 'timeout' });
        reject(failure);
        controller.abort(failure);
      }, timeoutMs);
    });
    try {
      const call = callbacks
        ? Promise.resolve().then(() => (body === undefined ? options.load({ signal: controller.signal }) : options.save(body, { signal: controller.signal })))
        : request(body === undefined ? 'GET' : 'PUT', body, controller.signal);
      const answer = await Promise.race([call, timedOut]);
      return checkedView(answer);
    } catch (error) {
      if (error instanceof RequestFailed) throw error;
      // A callback's own failure: its message and code (E_MEMORY_DISABLED → unavailable).
      const message = typeof error?.message === 'string' && error.message ? error.message : String(error ?? 'failed');
      throw new RequestFailed(message, { code: typeof error?.code === 'string' ? error.code : null, details: error?.details ?? null });
    } finally {
      clearTimeout(timer);
    }
  }

  function showStored(view) {
    stored = view;
    ui.body.value = stored.body;
    ui.diagnostics.replaceChildren();
  }

  async function reload() {
    enter('loading', 'Loading your context memory…');
    try {
      const view = await exchange();
      showStored(view);
      if (!stored.exists) {
        enter('empty', 'No context memory yet.',
          'Memory builds up from your conversations: after a chat, the assistant keeps durable facts about you ' +
          '(your role, how you like answers, what you are working on) here. Nothing has been created by opening this page.');
      } else {
        enter('ready', 'Up to date.');
      }
    } catch (error) {
      if (error.code === 'E_MEMORY_DISABLED') {
        enter('unavailable', 'Context memory is unavailable.', error.message);
        if (error.details?.reason) ui.messageText.dataset.reason = error.details.reason;
      } else {
        enter('error', 'Could not load your context memory.', `${capital(error.message)}. Your memory is unchanged.`);
        ui.retry.focus();
      }
    }
  }

  async function save() {
    if (!(state === 'unsaved' || state === 'save-error') || tooLarge()) return;
    const body = ui.body.value;
    enter('saving', 'Saving…');
    try {
      const answer = await exchange(body);
      // The textarea was read-only while saving, so `body` is still what it shows.
      showStored(answer);
      showDiagnostics(answer.diagnostics ?? [], 'Saved with these notes:');
      const redacted = Number(answer.redactedSecrets) || 0;
      const secrets = redacted === 0 ? '' : ` ${redacted === 1 ? 'A password or key was' : `${redacted} passwords or keys were`} replaced by [redacted]: memory never keeps credentials.`;
      enter('saved', `${answer.diagnostics?.some((d) => d.severity === 'warning') ? 'Saved — see the notes below.' : 'Saved.'}${secrets}`);
    } catch (error) {
      enter('save-error', `Could not save: ${error.message}. Your edit is still here; try again.`);
    }
  }

  function capital(text) {
    return text.charAt(0).toUpperCase() + text.slice(1);
  }

  function showDiagnostics(list, heading) {
    const shown = list.filter((d) => d.severity === 'warning');
    ui.diagnostics.replaceChildren(
      ...(shown.length ? [Object.assign(document.createElement('li'), { className: 'cm-diagnostics-heading', textContent: heading })] : []),
      ...shown.map((d) => {
        const li = document.createElement('li');
        li.className = `cm-diagnostic cm-${d.severity}`;
        li.dataset.code = d.code;
        const go = document.createElement('button');
        go.type = 'button';
        go.className = 'cm-line';
        go.textContent = `line ${d.line}`;
        go.setAttribute('aria-label', `Go to line ${d.line}`);
        go.addEventListener('click', () => selectLine(d.line));
        li.append(go, ` ${d.message}`);
        return li;
      }),
    );
  }

  function selectLine(line) {
    const lines = ui.body.value.split('\n');
    const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
    ui.body.focus();
    ui.body.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
  }

  /** Heading diagnostics of the current body, with the core's own rules (applyUserEdit). */
  function scheduleDiagnostics() {
    clearTimeout(diagnosticsTimer);
    diagnosticsTimer = setTimeout(async () => {
      if (!diagnosticsOf) {
        coreLoading ??= loadCore().then((core) => {
          diagnosticsOf = (body) => core.applyUserEdit(null, body, { userId: 'preview', now: 0 }).diagnostics;
        });
        try {
          await coreLoading;
        } catch {
          coreLoading = null; // the save still works; the server reports the same diagnostics
          return;
        }
      }
      if (destroyed || (state !== 'unsaved' && state !== 'save-error')) return;
      let list = [];
      try {
        if (!tooLarge()) list = diagnosticsOf(ui.body.value);
      } catch {
        // the core refused the body (it cannot for one under the limit); the save reports it
      }
      showDiagnostics(list, 'Before you save:');
      root.dataset.diagnosed = String(list.filter((d) => d.severity === 'warning').length);
    }, 150);
  }

  function edited() {
    if (state === 'saving') return;
    delete root.dataset.diagnosed;
    if (dirty()) {
      enter('unsaved', 'Unsaved changes.');
      scheduleDiagnostics();
    } else {
      ui.diagnostics.replaceChildren();
      enter(stored.exists ? 'ready' : 'empty', stored.exists ? 'Up to date.' : 'No context memory yet.');
    }
  }

  const onBeforeUnload = (event) => {
    if (state === 'unsaved' || state === 'save-error' || state === 'saving') {
      event.preventDefault();
      event.returnValue = 'You have unsaved changes.'; // Chromium asks only when this is set (its text is not shown)
    }
  };
  const onKeyDown = (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 's') {
      event.preventDefault();
      save();
    }
  };

  ui.body.addEventListener('input', edited);
  ui.save.addEventListener('click', save);
  ui.discard.addEventListener('click', () => {
    ui.body.value = stored.body;
    edited();
    ui.body.focus();
  });
  ui.retry.addEventListener('click', reload);
  ui.start.addEventListener('click', () => {
    ui.body.value = EMPTY_PROFILE_BODY;
    enter('unsaved', 'Unsaved changes.');
    scheduleDiagnostics();
    ui.body.focus();
  });
  root.addEventListener('keydown', onKeyDown);
  window.addEventListener('beforeunload', onBeforeUnload);

  render();
  reload();

  return {
    get state() {
      return state;
    },
    reload,
    save,
    destroy() {
      destroyed = true;
      window.removeEventListener('beforeunload', onBeforeUnload);
      clearTimeout(diagnosticsTimer);
      root.replaceChildren();
    },
  };
}
