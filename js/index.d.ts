// Typings for the `memcore` package (every runtime entry exports the same API). One file per
// section in types/; scripts/package.mjs copies them into the package.
export * from './types/errors.js';
export * from './types/profile.js';
export * from './types/settings.js';
export * from './types/tokens.js';
export * from './types/fit.js';
export * from './types/entries.js';
export * from './types/embeddings.js';
export * from './types/rights.js';
export * from './types/operations.js';
export * from './types/privacy.js';
export * from './types/dream.js';
export * from './types/context-memory.js';
export * from './types/prompts.js';
export * from './types/search.js';
export * from './types/learn.js';
