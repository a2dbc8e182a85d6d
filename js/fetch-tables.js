// How the browser and edge entries fetch a tokenizer table: on first use, from the file next to
// this module. Each table is one literal `new URL`, so a bundler emits exactly the tables whose
// URL it sees: `o200k_base` (the default encoding) here; `cl100k_base` is added by the browser
// entry and, in an edge function, by `import 'memcore/tokenizer/cl100k_base'` — so a Next.js
// edge function ships one table unless it asks for the second.
const urls = {
  o200k_base: () => new URL('./tokenizer/o200k_base.bin', import.meta.url),
};

/** Makes a table fetchable: `url()` gives where its `.bin` file is (called on first use). */
export function addTableUrl(name, url) {
  urls[name] = url;
}

/** The bytes of a table, fetched. */
export async function fetchTable(name) {
  const url = urls[name]?.();
  if (!url) {
    throw new Error(`the ${name} table is not bundled here: add \`import 'memcore/tokenizer/${name}'\` to the module that counts with it`);
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not load tokenizer/${name}.bin (HTTP ${response.status})`);
  return new Uint8Array(await response.arrayBuffer());
}
