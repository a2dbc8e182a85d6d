// The console's views of one user's memory: the users, entries (filters, search, paging),
// an entry's history with its differences and restore, episodes and the profile.
import { $, button, clipped, control, count, enc, field, form, h, nextId, plain, table, text, when } from './dom.js';
import { CATEGORIES, memo, MODES, PAGE, pager, say, userPath, view, VISIBILITIES, WRITERS } from './app.js';
import { diffLines } from './line-diff.js';

// ---- users -------------------------------------------------------------------------------------

export function viewUsers() {
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

export function viewEntries(userId) {
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

export async function viewHistory(userId, entryId) {
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

export function viewEpisodes(userId) {
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

export async function viewProfile(userId) {
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
