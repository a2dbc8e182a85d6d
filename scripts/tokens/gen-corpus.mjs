// Generates tests/vectors/tokens/corpus.json: texts with their exact token counts (and ids for a
// subset) under o200k_base and cl100k_base, computed by the oracle js-tiktoken with
// `encode(text, [], [])` so special-token strings count as plain text like in memcore.
// Deterministic: a seeded PRNG, no clock. `node scripts/tokens/gen-corpus.mjs`
import { writeFileSync } from 'node:fs';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import cl100k from 'js-tiktoken/ranks/cl100k_base';

const encoders = { o200k_base: new Tiktoken(o200k), cl100k_base: new Tiktoken(cl100k) };

let seed = 0x9e3779b9;
function rand() {
  // mulberry32
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (n) => Math.floor(rand() * n);
const pick = (xs) => xs[int(xs.length)];
const repeat = (n, f) => Array.from({ length: n }, f).join('');

const WORDS = {
  en: 'the user prefers concise answers and works as a backend engineer in Berlin they like hiking coffee TypeScript Rust PostgreSQL'.split(' '),
  de: 'Der Nutzer bevorzugt kurze Antworten und arbeitet als Entwickler in München Grüße Straße Äpfel Öl über schön Fußgängerübergänge'.split(' '),
  fr: "L'utilisateur préfère des réponses concises il habite à Paris élève garçon où déjà Noël cœur naïve aujourd'hui".split(' '),
  cjk: '用户 喜欢 简洁 的 回答 東京 に 住んで います 한국어 사용자 입니다 ひらがな カタカナ 漢字'.split(' '),
  misc: 'Ελληνικά Привет мир مرحبا بالعالم नमस्ते दुनिया שלום עולם ภาษาไทย Tiếng Việt ქართული Հայերեն'.split(' '),
  emoji: ['😀', '👍🏽', '👨‍👩‍👧‍👦', '🇩🇪', '🇯🇵', '🏳️‍🌈', '❤️', '🧑🏿‍💻', '✈️', '🤷‍♀️', '1️⃣'],
};
const SPECIAL = ['<|endoftext|>', '<|endofprompt|>', '<|fim_prefix|>', '<|im_start|>', '<|fim_suffix|>'];
const CONTRACTIONS = ["'s", "'S", "'t", "'T", "'re", "'rE", "'Re", "'RE", "'ve", "'VE", "'m", "'M", "'ll", "'lL", "'LL", "'d", "'D", '’s', '’ll', "'x", "''", "'"];
const CODE = [
  'fn main() {\n    let x: Vec<u32> = (0..10).map(|i| i * 2).collect();\n    println!("{x:?}");\n}\n',
  'def f(a, b=2):\n\treturn {"a": a, \'b\': b} # comment\n',
  'const f = async (x) => { await fetch(`/api/${x}`); return x?.y ?? 0; };\r\n',
  '#include <stdio.h>\nint main(void){printf("%d\\n", 42);return 0;}\n',
  'SELECT id, name FROM users WHERE email LIKE \'%@example.com\' ORDER BY 1 DESC;\n',
  '<div class="a"><a href="https://x.org/a/b?c=d&e=f">link</a></div>\n',
  '    if (a != b && c <= d || !e) { x += 1; } // done\n',
];
const SPACES = [' ', '  ', '\t', '\n', '\r\n', '\r', '\u00a0', '\u3000', '\u2003', '\v', '\f', '\ufeff', '\u0085', '\u2028'];
const MARKS = ['\u0301', '\u0308', '\u0327', '\u20dd', '\u0903', '\u093f', '\u064b', '\ufe0f', '\u200d'];

function randomUnicode() {
  const ranges = [[0x20, 0x7e], [0xa0, 0x24f], [0x300, 0x36f], [0x370, 0x4ff], [0x590, 0x6ff], [0x900, 0x97f], [0x1100, 0x11ff],
    [0x1e00, 0x1fff], [0x2000, 0x2bff], [0x3000, 0x30ff], [0x4e00, 0x4fff], [0xac00, 0xac40], [0xfe00, 0xfe6f], [0xff00, 0xffef],
    [0x1d400, 0x1d7ff], [0x1f300, 0x1faff], [0x10000, 0x10ffff]];
  const [a, b] = pick(ranges);
  let cp = a + int(b - a + 1);
  if (cp >= 0xd800 && cp <= 0xdfff) cp = 0x41;
  return String.fromCodePoint(cp);
}

function sentence(lang, n) {
  return repeat(n, (_, i) => (i ? pick([' ', ' ', ' ', ', ', '. ', '  ', '\n']) : '') + pick(WORDS[lang]));
}

function profile() {
  const sections = ['Identity', 'Communication Preferences', 'Work & Projects', 'Interests', 'Recent Topics', 'Notes'];
  let s = `---\nversion: 1\nupdated_at: 2025-0${1 + int(9)}-1${int(10)}T12:34:56Z\nturn_count: ${int(500)}\n---\n\n# Memory\n`;
  for (const sec of sections) {
    s += `\n## ${sec}\n`;
    const n = 1 + int(6);
    for (let i = 0; i < n; i++) {
      const lang = pick(['en', 'en', 'en', 'de', 'fr', 'cjk', 'misc']);
      s += `- ${sec === 'Recent Topics' ? `(2025-03-${10 + int(20)}) ` : ''}${sentence(lang, 2 + int(12))}${pick(['', '.', ' 🙂', '!', ':'])}\n`;
    }
  }
  return s;
}

const GENERATORS = {
  profile,
  language: () => sentence(pick(Object.keys(WORDS)), 5 + int(40)),
  emoji: () => repeat(5 + int(30), () => pick([...WORDS.emoji, ' ', 'a', '🏻', '\u200d', '\ufe0f', pick(WORDS.en)])),
  code: () => repeat(1 + int(4), () => pick(CODE)),
  whitespace: () => repeat(3 + int(20), () => pick([...SPACES, repeat(1 + int(40), () => pick(SPACES)), pick(WORDS.en), '.', '/'])),
  digits: () => repeat(1 + int(6), () => pick([repeat(1 + int(60), () => String(int(10))), ' ', ',', '.', '٣٤٥', '½', 'Ⅻ', '²', pick(WORDS.en)])),
  contractions: () => repeat(3 + int(15), () => pick([pick(WORDS.en), pick(WORDS.en).toUpperCase(), pick(CONTRACTIONS), ' ', "I'M", "we'Ll", "don’t", "'s'", "CAN'T"])),
  special: () => repeat(2 + int(8), () => pick([...SPECIAL, ' ', '\n', '<|', '|>', pick(WORDS.en)])),
  marks: () => repeat(5 + int(30), () => pick([...MARKS, 'a', 'A', 'é', ' ', '1', '.', 'क', 'ि', 'ß', 'ǅ', 'ʰ', '中', '\n'])),
  casing: () => repeat(3 + int(15), () => pick(['HelloWorld', 'XMLHttpRequest', 'iPhone', 'ABCdef', 'ǅungla', 'ΣΊΣΥΦΟΣ', 'ʰello', 'ĲsselMeer', pick(WORDS.en), ' ', "'S", '_'])),
  longword: () => repeat(1 + int(3), () => pick(['a', 'ab', 'xyz', 'é', '中', 'Z', 'ö']).repeat(50 + int(400)) + ' '),
  random: () => repeat(1 + int(80), randomUnicode),
  punctuation: () => repeat(3 + int(30), () => pick(['//', '/', '...', '---', '**', '#', ' ', '\n', '/\n', '\r\n/', '!?', '«»', '“”', '—', pick(WORDS.en)])),
};

const texts = ['', ' ', '\n', 'a', "'s", '<|endoftext|>', '   \n\n   ', '\r\n\r\n', 'x'.repeat(3000), ' '.repeat(2000) + 'x', '1'.repeat(1000)];
const kinds = Object.keys(GENERATORS);
while (texts.length < 1100) texts.push(GENERATORS[kinds[texts.length % kinds.length]]());

const cases = texts.map((text, i) => {
  const c = { text };
  for (const [name, enc] of Object.entries(encoders)) {
    const ids = enc.encode(text, [], []);
    c[name] = i % 10 === 0 ? { count: ids.length, ids } : { count: ids.length };
  }
  return c;
});

// Lone surrogates cannot be a Rust String (nor a serde_json string), so these texts are stored as
// UTF-16 code units; the JS suite checks the package maps them to U+FFFD like the oracle does.
const jsOnly = ['\ud800', 'a\udc00b', '\ud83d', 'x\ud83d y', '\udfff\ud800'].map((text) => {
  const c = { utf16: Array.from({ length: text.length }, (_, i) => text.charCodeAt(i)) };
  for (const [name, enc] of Object.entries(encoders)) c[name] = { count: enc.encode(text, [], []).length };
  return c;
});

const json = JSON.stringify({ generator: 'scripts/tokens/gen-corpus.mjs', oracle: 'js-tiktoken@1.0.21 encode(text, [], [])', cases, jsOnly });
writeFileSync('tests/vectors/tokens/corpus.json', json + '\n');
console.log(`tests/vectors/tokens/corpus.json: ${cases.length} cases, ${jsOnly.length} jsOnly, ${json.length} bytes`);
