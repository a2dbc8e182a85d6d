// The console's administrative views: Dream (its runs and "run now"), a data subject's
// rights (export, restriction, erasure), API keys and the audit log.
import { $, button, clipped, control, count, enc, field, form, h, plain, table, when } from './dom.js';
import { memo, OPERATIONS, PAGE, pager, say, SCOPES, userPath, view } from './app.js';

// ---- Dream -------------------------------------------------------------------------------------

/** One line about a Dream report: what it did, or why it did not run. */
const dreamRefusal = (r) => (r?.error ? String(r.error.message ?? r.error.code ?? 'an error') : null);
function dreamSummary(report) {
  const r = report && typeof report === 'object' ? report : {};
  if (r.error) return `Did not run: ${dreamRefusal(r)}`;
  const n = (x) => (Array.isArray(x) ? x.length : Number(x) || 0);
  return `Pruned ${n(r.pruned)} · summarised ${n(r.summarized)} · contradictions ${n(r.contradictions)} · ${n(r.calls)} model calls · ${n(r.durationMs)} ms`;
}

export async function viewDream(userId) {
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

export async function viewRights(userId) {
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

export async function viewKeys(userId) {
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

export function viewAudit() {
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
