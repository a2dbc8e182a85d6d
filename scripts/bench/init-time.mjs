// One cold start, in a fresh process: import the library and count one text. Prints milliseconds.
//   node scripts/bench/init-time.mjs memcore|memcore-profile|gpt-tokenizer|tiktoken|js-tiktoken
// `memcore-profile`: memcore/slim started on the profile-only core, the o200k table read from its file.
const which = process.argv[2];
const t0 = performance.now();
let count;
if (which === 'memcore') {
  const m = await import('memcore');
  count = m.countTokens('hello world');
} else if (which === 'memcore-profile') {
  const { readFileSync } = await import('node:fs');
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.url);
  const m = await import('memcore/slim');
  m.initSync(readFileSync(require.resolve('memcore/memcore-profile.wasm')));
  m.loadTokenizer(readFileSync(require.resolve('memcore/tokenizer/o200k_base.bin')));
  count = m.countTokens('hello world');
} else if (which === 'gpt-tokenizer') {
  const g = await import('gpt-tokenizer/encoding/o200k_base');
  count = g.countTokens('hello world');
} else if (which === 'tiktoken') {
  const t = await import('tiktoken');
  count = t.get_encoding('o200k_base').encode('hello world').length;
} else if (which === 'js-tiktoken') {
  const j = await import('js-tiktoken');
  count = j.getEncoding('o200k_base').encode('hello world').length;
} else {
  throw new Error(`unknown library ${which}`);
}
if (count !== 2) throw new Error(`${which} counted ${count}`);
console.log((performance.now() - t0).toFixed(1));
