// How the browser and edge entries fetch a tokenizer table: on first use, from the file next to
// this module (one literal `new URL` per table, so bundlers emit each one as an asset).
const urls = {
  o200k_base: () => new URL('./tokenizer/o200k_base.bin', import.meta.url),
  cl100k_base: () => new URL('./tokenizer/cl100k_base.bin', import.meta.url),
};

/** The bytes of a table, fetched. */
export async function fetchTable(name) {
  const url = urls[name]?.();
  if (!url) throw new Error(`no table file for ${name}`);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not load tokenizer/${name}.bin (HTTP ${response.status})`);
  return new Uint8Array(await response.arrayBuffer());
}
