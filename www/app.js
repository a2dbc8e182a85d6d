// The playground: parse the textarea with memcore and show what it understood.
import { version, parseProfile, renderProfile, countTokens, ready, MemcoreError } from 'memcore';

const SAMPLE = `---
user_id: user_123
schema_version: 1
last_updated: 2026-06-17T12:00:00+00:00
turn_count: 12
---

# User Memory

## Identity
- Works as a credit risk analyst at a Swiss private bank, based in Zurich (CET).
- Native German speaker; communicates with the assistant in English.

## Communication Preferences
- Prefers concise answers with concrete examples.

## Work Context
- Preparing the quarterly IFRS 9 impairment report.

## Skills & Expertise
_(empty)_

## Recent Topics
- 2026-06-17 11:40 UTC: Discussed expected-credit-loss staging rules.

## Follow-ups
- Wants to revisit the scenario-weighting approach next week.
`;

const $ = (id) => document.getElementById(id);

function show() {
  const status = $('status');
  try {
    const parsed = parseProfile($('source').value);
    const fm = parsed.frontmatter;
    $('frontmatter').replaceChildren(
      ...[['user_id', fm.userId ?? '—'], ['turn_count', String(fm.turnCount)], ['last_updated', fm.lastUpdated ?? '—']]
        .flatMap(([k, v]) => [Object.assign(document.createElement('dt'), { textContent: k }), Object.assign(document.createElement('dd'), { textContent: v })]),
    );
    $('sections').replaceChildren(
      ...parsed.sections.map((section) => {
        const li = document.createElement('li');
        li.dataset.heading = section.heading;
        const h = document.createElement('strong');
        h.textContent = section.heading;
        const body = document.createElement('div');
        const lines = section.lines.filter((l) => l.trim() !== '');
        body.textContent = lines.length ? lines.join('\n') : '(empty)';
        body.style.whiteSpace = 'pre-wrap';
        if (!lines.length) body.className = 'empty';
        li.append(h, body);
        return li;
      }),
    );
    $('diagnostics').replaceChildren(
      ...(parsed.diagnostics.length
        ? parsed.diagnostics.map((d) => Object.assign(document.createElement('li'), { className: d.severity, textContent: `line ${d.line}: ${d.code} — ${d.message}` }))
        : [Object.assign(document.createElement('li'), { className: 'none', textContent: 'none — the file is canonical' })]),
    );
    $('canonical').textContent = renderProfile(parsed);
    status.className = '';
    status.textContent = `parsed: ${parsed.sections.length} sections, ${parsed.diagnostics.length} diagnostics, ${countTokens($('source').value)} tokens (o200k_base)`;
  } catch (error) {
    status.className = 'error';
    status.textContent = error instanceof MemcoreError ? `${error.code}: ${error.message}` : String(error);
  }
}

$('version').textContent = version();
$('source').value = SAMPLE;
$('parse').addEventListener('click', show);
// Tables load on first use; the page counts tokens synchronously, so it waits for o200k once.
await ready();
show();
