// The core's exports the SQL modules in sql/ use (the derived columns, the search prefilter),
// imported here next to the adapters: a Worker bundle resolves `memcore` from this folder as it
// does for the adapters' own imports.
export { indexColumns, InMemoryEntryStore, searchPrefilter } from 'memcore';
