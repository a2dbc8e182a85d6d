// One cold start, in a fresh process: import the library and count one text. Prints milliseconds.
//   node scripts/bench/init-time.mjs memcore|gpt-tokenizer|tiktoken|js-tiktoken
const which = process.argv[2];
const t0 = performance.now();
let count;
if (which === 'memcore') {
  const m = await import('memcore');
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
