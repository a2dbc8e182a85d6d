// Typings for `import table from 'memcore/tokenizer/<encoding>.bin'` where a bundler imports a
// `.bin` file as its bytes (wrangler and workerd: a Data module), to pass to `loadTokenizer` of
// `memcore/slim`. With Vite's `?url` or esbuild's file loader it is a URL string instead.
/** The table's bytes. */
declare const bytes: ArrayBuffer;
export default bytes;
