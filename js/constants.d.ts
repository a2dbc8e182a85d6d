// Typings for `memcore/constants`: the core's constants without the core (the module imports no
// wasm), for a page that needs a limit or a heading before it loads memcore.
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
} from './index.js';
