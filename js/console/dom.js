// The console's DOM helpers: every value is rendered as text (never as HTML), hostile text
// (bidirectional overrides) is shown marked, long values are clipped with a "Show all".

const CLIP = 600; // characters of a value shown before "Show all"
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const HAS_BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
export const $ = (id) => document.getElementById(id);
export const enc = encodeURIComponent;
let uid = 0;
// ---- the DOM, as text --------------------------------------------------------------------------

/** An element: h('p', { class, onclick, … }, 'text', child…). Strings become text nodes. */
export function h(tag, attrs, ...children) {
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

export const nextId = (prefix) => `${prefix}-${(uid += 1)}`;

/** A labelled control in its wrapper (`control(wrapper)` finds it); `kind`: 'input' (default), 'select', 'textarea'. */
export function field(labelText, attrs = {}, { kind = 'input', options, help } = {}) {
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
export const control = (wrap) => wrap.querySelector('input, select, textarea');

export function button(text, onclick, attrs = {}) {
  return h('button', { type: 'button', onclick, ...attrs }, text);
}

/** A form whose submit runs `onsubmit` (Enter in any field submits it). */
export function form(attrs, children, onsubmit) {
  return h('form', { ...attrs, novalidate: true, onsubmit: (event) => { event.preventDefault(); onsubmit(event); } }, children);
}

/** JSON values as the operator reads them: strings as they are, anything else as JSON. */
export function text(value) {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value, null, 2);
}

/** Text with its direction controls (U+202E and kin) shown as ⟦U+202E⟧: they cannot reorder what is read. */
export const plain = (t) => String(t).replace(BIDI, (c) => `⟦U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}⟧`);

/**
 * A value as text, cut to `limit` characters with "Show all"; direction controls marked, with
 * "Show as written" to see the characters themselves.
 */
export function clipped(value, limit = CLIP) {
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
export function table(caption, columns, rows) {
  return h('table', {},
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, columns.map(([name, , width]) => h('th', { scope: 'col', class: width }, name)))),
    h('tbody', {}, rows.map((row) => h('tr', {}, columns.map(([, cell]) => h('td', {}, cell(row)))))));
}

export const when = (t) => (typeof t === 'string' && t ? t.replace('T', ' ').replace(/(\.000)?(Z|[+-]00:?00)$/, ' UTC') : '—');
export const count = (n) => (typeof n === 'number' ? n.toLocaleString('en') : '—');
