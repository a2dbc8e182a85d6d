// The profile playground: a memory.md in, and live (debounced) everything memcore makes of it —
// parsed sections with diagnostics at their line, exact tokens per part, the fit to a budget with
// what condensing drops and where the hard cut falls, the injected section, the canonical diff.
// Every number and text comes from the package's own functions; this file only lays them out.
import {
  DEFAULT_MAX_TOKENS, MAX_MAX_TOKENS, MIN_MAX_TOKENS, TRUNCATION_MARKER, condenseProfile, countTokens, fitProfile,
  memorySystemPromptSection, parseProfile, ready, renderProfile, version,
} from 'memcore';
// The package's one line diff (the console's history view uses it too).
import { diffLines } from 'memcore/line-diff';
import { showLoadedBytes } from './loaded-bytes.js';

const $ = (id) => document.querySelector(`[data-testid="${id}"]`);
const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
};
const fmt = (n) => (n === null || n === undefined ? '—' : n.toLocaleString('en'));
const DEBOUNCE_MS = 200;
const MAX_LISTED_LINES = 3000;
const DATED_TOPIC = /^\s*- \d{4}-\d\d-\d\d \d\d:\d\d UTC:/;

const withinBounds = (n) => n >= MIN_MAX_TOKENS && n <= MAX_MAX_TOKENS;

/**
 * Each section's canonical text, cut out of the core's rendering (renderProfile writes the title,
 * then the sections in order, a blank line apart): from its heading line to the next one. A
 * section's own lines stand verbatim after its heading, so the search for the next heading starts
 * past them (a fenced `## …` line inside a section is not taken for the next heading).
 */
function sectionTexts(parsed, canonical) {
  const starts = [];
  let from = 0;
  for (const s of parsed.sections) {
    const at = canonical.indexOf(`\n## ${s.heading}\n`, from) + 1;
    starts.push(at);
    from = at + `## ${s.heading}\n${s.lines.join('\n')}`.length - 1;
  }
  return new Map(parsed.sections.map((s, i) => [s, canonical.slice(starts[i], i + 1 < starts.length ? starts[i + 1] - 1 : canonical.length)]));
}

let inputRev = 0;
let timer = 0;
const body = document.body;

function changed({ now = false } = {}) {
  inputRev += 1;
  body.dataset.inputRev = String(inputRev);
  clearTimeout(timer);
  const rev = inputRev;
  timer = setTimeout(() => update(rev), now ? 0 : DEBOUNCE_MS);
}

function budget() {
  return Number($('budget-number').value);
}

async function update(rev) {
  const text = $('source').value;
  const encoding = $('encoding').value;
  const maxTokens = budget();
  const status = $('status');
  try {
    status.className = 'status';
    if (!(withinBounds(maxTokens) && Number.isInteger(maxTokens))) {
      status.className = 'status error';
      status.textContent = `The budget must be a whole number between ${MIN_MAX_TOKENS} and ${MAX_MAX_TOKENS}.`;
      body.dataset.renderedRev = String(rev);
      return;
    }
    status.textContent = `counting with ${encoding}…`;
    await ready(encoding); // downloads the table the first time this encoding is used
    const options = { encoding };
    const parsed = parseProfile(text);
    const canonical = renderProfile(parsed);
    const total = countTokens(text, options);
    const condensed = condenseProfile(text, maxTokens, options);
    const fit = await fitProfile(text, { maxTokens, encoding });
    const injected = memorySystemPromptSection(fit.text);
    if (rev !== inputRev) return; // a newer edit is on its way
    showMeter(parsed, canonical, total, maxTokens, encoding);
    showFit(text, condensed, fit, maxTokens, total);
    showParsed(text, parsed, canonical, encoding);
    $('injected').textContent = injected;
    $('injected-tokens').textContent = injected ? `${fmt(countTokens(injected, options))} tokens` : 'nothing is injected';
    if (!injected) $('injected').textContent = '(empty: no profile, or every section is empty — the section is omitted)';
    showCanonical(text, canonical);
    const warnings = parsed.diagnostics.filter((d) => d.severity === 'warning').length;
    status.textContent = `${parsed.sections.length} sections · ${parsed.diagnostics.length} diagnostics (${warnings} warnings) · ${fmt(total)} tokens (${encoding})`;
  } catch (error) {
    status.className = 'status error';
    status.textContent = error?.code ? `${error.code}: ${error.message}` : String(error);
  }
  if (rev === inputRev) body.dataset.renderedRev = String(rev);
}

function bar(tokens, max, { over = false, floor = null } = {}) {
  const b = el('div', { className: over ? 'bar over' : 'bar' }, el('span'));
  b.firstChild.style.width = `${Math.min(100, (tokens / max) * 100)}%`;
  if (floor !== null) {
    const f = el('i', { className: 'floor' });
    f.style.left = `${Math.min(100, (floor / max) * 100)}%`;
    b.append(f);
  }
  return b;
}

function showMeter(parsed, canonical, total, maxTokens, encoding) {
  const over = total > maxTokens;
  $('token-total').textContent = fmt(total);
  $('token-total').dataset.tokens = String(total);
  $('token-of').textContent = `of ${fmt(maxTokens)} tokens`;
  $('meter-encoding').textContent = encoding;
  $('token-verdict').textContent = over ? `${fmt(total - maxTokens)} over` : `${fmt(maxTokens - total)} left`;
  $('token-verdict').className = `verdict ${over ? 'over' : 'within'}`;
  const meter = bar(total, maxTokens, { over, floor: Math.floor(0.9 * maxTokens) });
  meter.dataset.testid = 'token-bar';
  $('token-bar').replaceWith(meter);
  const first = parsed.sections[0];
  const headEnd = first ? canonical.indexOf(`\n## ${first.heading}\n`) + 1 : canonical.length;
  const texts = sectionTexts(parsed, canonical);
  const parts = [['Frontmatter & title', canonical.slice(0, headEnd)], ...parsed.sections.map((s) => [s.heading, texts.get(s)])];
  $('token-parts').replaceChildren(
    ...parts.flatMap(([name, partText]) => {
      const n = countTokens(partText, { encoding });
      const label = el('span', { className: 'name', textContent: name });
      const count = el('span', { className: 'n', textContent: fmt(n) });
      count.dataset.part = name;
      count.dataset.tokens = String(n);
      return [label, bar(n, maxTokens), count];
    }),
  );
}

function row(lineNo, text, className = '', why = '') {
  const r = el('div', { className: `row ${className}`.trim() }, el('span', { className: 'ln', textContent: lineNo ?? '' }), el('span', { className: 'tx' }));
  if (why) r.lastChild.append(el('span', { className: 'why', textContent: why }));
  r.lastChild.append(text);
  return r;
}

function showFit(text, condensed, fit, maxTokens, total) {
  const floor = Math.floor(0.9 * maxTokens);
  $('fit-budget').textContent = `maxTokens ${fmt(maxTokens)} · condensing target ${fmt(floor)}`;
  const result = $('fit-result');
  result.textContent = fit.text;
  result.dataset.condensed = String(fit.condensed);
  result.dataset.truncated = String(fit.truncated);
  result.dataset.tokensAfter = String(fit.tokensAfter);
  const summary = $('fit-summary');
  if (!fit.condensed && !fit.truncated) {
    summary.replaceChildren(`Within budget: `, el('b', { textContent: fmt(fit.tokensBefore) }), ` of ${fmt(maxTokens)} tokens — loaded as it is, nothing is merged, dropped or cut.`);
    $('fit-listing').replaceChildren(el('p', { className: 'note', textContent: 'Nothing to show: fitting changes nothing at this budget. Lower the budget to see what would go.' }));
    return;
  }
  // tokensBefore is null for a text longer than fitting ever reads (its cost is bounded by the
  // budget); the meter's count is the same number when present.
  const parts = [`Over budget: `, el('b', { textContent: fmt(fit.tokensBefore ?? total) }), ` > ${fmt(maxTokens)} tokens. `];
  if (fit.condensed) {
    parts.push(`Condensing merged ${fmt(fit.removedDuplicates)} duplicate ${fit.removedDuplicates === 1 ? 'bullet' : 'bullets'} and dropped the ${fmt(fit.removedTopics)} oldest Recent ${fit.removedTopics === 1 ? 'Topic' : 'Topics'}`);
    parts.push(fit.truncated ? ', and it was still over: ' : ` → `);
  } else {
    parts.push('There is nothing to condense (no duplicate bullets, no dated Recent Topics): ');
  }
  if (fit.truncated) parts.push(`the hard cut keeps whole lines from the top and appends the marker → `);
  parts.push(el('b', { textContent: fmt(fit.tokensAfter) }), ' tokens.');
  summary.replaceChildren(...parts);

  // Which input lines condensing removed (a line diff input → condensed), and where the cut falls
  // in the condensed text (the kept prefix of fit.text, without its marker).
  const base = fit.condensed ? condensed.text : text;
  const inputLines = text.split('\n');
  const ops = fit.condensed ? diffLines(inputLines, base.split('\n')) : inputLines.map((t, i) => ({ op: 'same', text: t, a: i + 1, b: i + 1 }));
  let cutLine = Infinity;
  let cutInside = false;
  if (fit.truncated) {
    const kept = fit.text.endsWith(TRUNCATION_MARKER) ? fit.text.slice(0, -TRUNCATION_MARKER.length) : fit.text;
    const keptLines = kept.split('\n');
    const last = keptLines.length; // 1-based line of base where the kept text ends
    cutInside = keptLines[last - 1] !== base.split('\n')[last - 1];
    cutLine = cutInside ? last : last + 1; // first line (partly) dropped
  }
  // Classify every input line, then list what changes with two lines of context around it;
  // unchanged runs fold.
  const items = [];
  let section = '';
  for (const op of ops ?? []) {
    if (op.op === 'add') continue; // condensing only removes lines
    if (/^##\s/.test(op.text)) section = op.text.toLowerCase();
    if (op.op === 'del') {
      const topic = section.includes('recent topics') && DATED_TOPIC.test(op.text);
      items.push({ op, kind: topic ? 'topic' : 'dup' });
    } else {
      items.push({ op, kind: op.b >= cutLine ? 'cut' : 'kept' });
    }
  }
  const firstCut = items.findIndex((i) => i.kind === 'cut');
  const near = new Set();
  items.forEach((item, i) => {
    if (item.kind === 'dup' || item.kind === 'topic' || i === firstCut) for (let j = i - 2; j <= i + 2; j += 1) near.add(j);
  });
  const listing = [];
  let folded = 0;
  let foldedCut = false;
  const fold = () => {
    if (folded) listing.push(el('p', { className: 'note', textContent: `  ⋯ ${fmt(folded)} ${foldedCut ? 'more lines below the cut' : `unchanged ${folded === 1 ? 'line' : 'lines'}`}` }));
    folded = 0;
  };
  items.forEach((item, i) => {
    if (i === firstCut) {
      fold();
      const line = el('div', { className: 'cutline', textContent: `✂ hard cut${cutInside ? ' inside this line' : ''}: what follows is dropped and the marker appended` });
      // The last input line kept whole (the one before the cut).
      line.dataset.afterLine = String(cutInside ? item.op.a - 1 : items.slice(0, i).findLast((x) => x.kind === 'kept')?.op.a ?? 0);
      listing.push(line);
    }
    if (!near.has(i)) {
      foldedCut = item.kind === 'cut';
      folded += 1;
      return;
    }
    fold();
    const why = { dup: 'duplicate merged', topic: 'oldest topic dropped' }[item.kind] ?? '';
    listing.push(row(item.op.a, item.op.text, item.kind === 'kept' ? '' : item.kind, why));
  });
  fold();
  if (!ops) listing.push(el('p', { className: 'note', textContent: 'Too many changes to list line by line.' }));
  if (fit.truncated) listing.push(row('', TRUNCATION_MARKER.trim(), 'marker', 'appended'));
  $('fit-listing').replaceChildren(...listing);
}

function showParsed(text, parsed, canonical, encoding) {
  const texts = sectionTexts(parsed, canonical);
  const fm = parsed.frontmatter;
  const entries = [['user_id', fm.userId ?? '—'], ['schema_version', fm.schemaVersion ?? '—'], ['last_updated', fm.lastUpdated ?? '—'], ['turn_count', fm.turnCount], ...fm.extra.map((x) => [x.key, x.value])];
  $('frontmatter').replaceChildren(...entries.flatMap(([k, v]) => [el('dt', { textContent: k }), el('dd', { textContent: String(v) })]));
  const bySection = new Map(parsed.sections.map((s) => [s.heading.toLowerCase(), s]));
  const diagnostics = new Map();
  for (const d of parsed.diagnostics) {
    const line = Math.max(1, d.line);
    if (!diagnostics.has(line)) diagnostics.set(line, []);
    diagnostics.get(line).push(d);
  }
  const lines = text.split('\n');
  if (lines.at(-1) === '' && lines.length > 1) lines.pop();
  const rows = [];
  const diagRow = (d) => {
    const r = el('div', { className: `diag ${d.severity}` }, el('span'), el('span', { textContent: `${d.severity} · ${d.code}: ${d.message}` }));
    r.dataset.line = String(d.line);
    r.dataset.code = d.code;
    return r;
  };
  lines.slice(0, MAX_LISTED_LINES).forEach((line, i) => {
    const n = i + 1;
    const heading = /^##\s+(.*?)\s*$/.exec(line.replace(/\r$/, ''));
    const r = row(n, line, heading ? 'heading' : '');
    const section = heading && bySection.get(heading[1].toLowerCase());
    if (section) r.lastChild.prepend(el('span', { className: 'tokens', textContent: `${fmt(countTokens(texts.get(section), { encoding }))} tokens` }));
    rows.push(r, ...(diagnostics.get(n) ?? []).map(diagRow));
    diagnostics.delete(n);
  });
  if (lines.length > MAX_LISTED_LINES) rows.push(el('p', { className: 'note', textContent: `… ${fmt(lines.length - MAX_LISTED_LINES)} more lines not listed` }));
  // Diagnostics past the last listed line (a missing section at the end of the file).
  for (const list of diagnostics.values()) rows.push(...list.map(diagRow));
  $('sections-listing').replaceChildren(...rows);
  $('parse-summary').textContent = `${parsed.diagnostics.length} diagnostics`;
}

function showCanonical(text, canonical) {
  $('canonical').textContent = canonical;
  if (canonical === text) {
    $('canonical-summary').textContent = 'identical to the input';
    $('canonical-diff').replaceChildren(el('p', { className: 'note', textContent: 'The input is already in canonical form: rendering it gives back the same bytes.' }));
    return;
  }
  const ops = diffLines(text.split('\n'), canonical.split('\n'));
  if (!ops) {
    $('canonical-summary').textContent = 'too different to diff';
    $('canonical-diff').replaceChildren();
    return;
  }
  const changes = ops.filter((o) => o.op !== 'same').length;
  $('canonical-summary').textContent = `${changes} changed ${changes === 1 ? 'line' : 'lines'}`;
  // Changed lines with two lines of context; long unchanged runs fold.
  const near = new Set();
  ops.forEach((o, i) => {
    if (o.op !== 'same') for (let j = i - 2; j <= i + 2; j += 1) near.add(j);
  });
  const rows = [];
  let folded = 0;
  ops.forEach((o, i) => {
    if (!near.has(i)) {
      folded += 1;
      return;
    }
    if (folded) rows.push(el('p', { className: 'note', textContent: `  ⋯ ${folded} unchanged ${folded === 1 ? 'line' : 'lines'}` }));
    folded = 0;
    const r = row(o.op === 'add' ? o.b : o.a, o.text, o.op === 'same' ? '' : o.op);
    r.dataset.op = o.op;
    rows.push(r);
  });
  if (folded) rows.push(el('p', { className: 'note', textContent: `  ⋯ ${folded} unchanged ${folded === 1 ? 'line' : 'lines'}` }));
  $('canonical-diff').replaceChildren(...rows.slice(0, MAX_LISTED_LINES));
}

// Wiring
showLoadedBytes($('loaded'));
$('version').textContent = version();
for (const input of [$('budget'), $('budget-number')]) Object.assign(input, { min: MIN_MAX_TOKENS, max: MAX_MAX_TOKENS, value: DEFAULT_MAX_TOKENS });
$('budget-min').textContent = String(MIN_MAX_TOKENS);
$('budget-max').textContent = String(MAX_MAX_TOKENS);
$('budget-default').textContent = String(DEFAULT_MAX_TOKENS);
$('source').addEventListener('input', () => changed());
$('encoding').addEventListener('change', () => changed({ now: true }));
$('budget').addEventListener('input', () => {
  $('budget-number').value = $('budget').value;
  changed();
});
$('budget-number').addEventListener('input', () => {
  if (withinBounds(budget())) $('budget').value = String(budget());
  changed();
});
$('budget-number').addEventListener('change', () => {
  const clamped = Math.min(MAX_MAX_TOKENS, Math.max(MIN_MAX_TOKENS, Math.round(budget()) || DEFAULT_MAX_TOKENS));
  $('budget-number').value = String(clamped);
  $('budget').value = String(clamped);
  changed({ now: true });
});
const params = new URLSearchParams(location.search);
$('source').value = params.has('empty') ? '' : await (await fetch('sample-memory.md')).text();
changed({ now: true });
