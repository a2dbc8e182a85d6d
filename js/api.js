// The public API: each function encodes its JavaScript arguments for the core (js/wire.js), calls
// the wasm export, and decodes the result. Every rule lives in the Rust core; these files only
// convert. One file per section of the behaviour reference (js/api/*.js); what they share and never export is in
// js/api/arguments.js. The runtime entry points re-export this barrel.

export { MemcoreError } from './errors.js';

// The core's constants (the tooltip, the six headings, the edit limit, the truncation marker, the
// updating notice, the budget's bounds and default, the empty body), written into constants.js
// from the core itself when the package is built
// (scripts/package.mjs), so they exist once: in Rust.
export {
  DEFAULT_ENCODING,
  WEB_SEARCH_TOOLTIP,
  SECTION_HEADINGS,
  MAX_EDIT_BODY_BYTES,
  TRUNCATION_MARKER,
  UPDATING_NOTICE,
  DEFAULT_MAX_TOKENS,
  MIN_MAX_TOKENS,
  MAX_MAX_TOKENS,
  EMPTY_PROFILE_BODY,
} from './constants.js';

export * from './api/version.js';
export * from './api/profile.js';
export * from './api/editing.js';
export * from './api/tokens.js';
export * from './api/fitting.js';
export * from './api/entries.js';
export * from './api/tools.js';
export * from './api/properties.js';
export * from './api/rights.js';
export * from './api/operations.js';
export * from './api/migration.js';
export * from './api/dream.js';
export * from './api/context-memory.js';
export * from './api/prompts.js';
export * from './api/search.js';
export * from './api/learn.js';
