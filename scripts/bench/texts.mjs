// Deterministic bench inputs (no randomness, no clock).

const IDENTITY = [
  'Works as a credit risk analyst at a Swiss private bank, based in Zurich (CET).',
  'Native German speaker; communicates with the assistant in English.',
  'Leads a team of four analysts; reports to the head of credit risk.',
];
const TOPICS = [
  'expected-credit-loss staging rules', 'the IFRS 9 overlay for commercial real estate', 'Python pandas groupby performance',
  'Grüße an das Team in München — Übergabe der Berichte', 'scenario weighting for the macro forecast', '東京の支店とのレポート共有',
  'probability-of-default calibration', 'a SQL window function for rolling averages', 'migrating VBA macros to Python 🐍',
];

/** A profile of about `bytes` bytes with all six sections, dated topics, some non-ASCII. */
export function profileOfSize(bytes) {
  const head = '---\nuser_id: user_123\nschema_version: 1\nlast_updated: 2026-06-17T12:00:00+00:00\nturn_count: 12\n---\n\n# User Memory\n\n';
  const sections = {
    Identity: IDENTITY.map((l) => `- ${l}`),
    'Communication Preferences': ['- Prefers concise answers with concrete examples.', '- Wants tables for numeric comparisons instead of prose.'],
    'Work Context': [],
    'Skills & Expertise': ['- Expert in Basel III/IV capital rules.', '- Intermediate Python (pandas, numpy); learning polars.'],
    'Recent Topics': [],
    'Follow-ups': ['- Wants to revisit the scenario-weighting approach next week.'],
  };
  let i = 0;
  const render = () => head + Object.entries(sections).map(([h, ls]) => `## ${h}\n${ls.length ? ls.join('\n') : '_(empty)_'}`).join('\n\n') + '\n';
  while (render().length < bytes) {
    const day = String(1 + (i % 28)).padStart(2, '0');
    sections['Recent Topics'].push(`- 2026-05-${day} ${String(8 + (i % 10)).padStart(2, '0')}:${String((i * 7) % 60).padStart(2, '0')} UTC: Discussed ${TOPICS[i % TOPICS.length]} (#${i}).`);
    if (i % 3 === 0) sections['Work Context'].push(`- Project ${i}: quarterly report item ${i * 13} for portfolio ${String.fromCharCode(65 + (i % 26))}.`);
    i++;
  }
  return render();
}

/** About `bytes` of mixed text: prose, code, numbers, German, CJK, emoji. */
export function mixedText(bytes) {
  const parts = [
    'The quick brown fox jumps over the lazy dog. ',
    'function add(a, b) {\n  return a + b; // 42\n}\n',
    'Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich. ',
    '日本語のテキストも含まれています。',
    '👩‍💻 shipped 3 releases in 2026 🎉\n',
    '1234567890 3.14159 2026-11-29T12:00:00Z\n',
    '    indented   with    spaces\t\tand tabs\n\n',
  ];
  let out = '';
  for (let i = 0; out.length < bytes; i++) out += parts[i % parts.length];
  return out;
}

/**
 * `n` texts made of `text` with a number in its first bullet and at its end. memcore remembers
 * the counts of the texts it counted last (up to 256 texts and 2 MiB: a turn counts one profile
 * several times, and a server meets its users' profiles again), and counts a text that shares
 * most of both ends with one it remembers between those ends only — so a bench that counted the
 * same text again, or a text changed in one line, would measure that memo. Counting benches cycle
 * through more variants than it holds (320 by default), each different at both ends from the
 * others, on both sides.
 */
export function variants(text, n = 320) {
  const at = text.indexOf('\n- ');
  const end = text.endsWith('\n') ? text.length - 1 : text.length;
  return Array.from({ length: n }, (_, i) => {
    const marked = `${text.slice(0, end)} (${i})${text.slice(end)}`;
    return at === -1 ? `(${i}) ${marked}` : `${marked.slice(0, at + 3)}(${i}) ${marked.slice(at + 3)}`;
  });
}

/** A function that returns the next of `items` on each call, round robin. */
export function cycle(items) {
  let i = 0;
  return () => items[i++ % items.length];
}
