// memcore typings: Tokens (behaviour §1.4).

/** Built-in encodings. */
export type Encoding = 'o200k_base' | 'cl100k_base';

/** A synchronous host token counter. */
export type CountTokensFn = (text: string) => number;

/** Which counter to use: a host callback wins over the built-in tables. */
export interface TokenizerOptions { encoding?: Encoding; countTokens?: CountTokensFn }

/** A counter for the budget functions: options naming an encoding or a host callback, or the callback itself. */
export type Tokenizer = TokenizerOptions | CountTokensFn;

/**
 * Exact token count. Without a loaded table for the encoding and without `countTokens`:
 * `E_NO_TOKENIZER` (never an estimate).
 * @example countTokens(profileText); countTokens(text, { encoding: 'cl100k_base' }); countTokens(text, (t) => myCount(t));
 */
export function countTokens(text: string, options?: Tokenizer): number;

/**
 * Token ids (built-in tables only), equal to tiktoken's `encode(text, [], [])`.
 * @example encodeTokens('hello world'); // [24912, 2375]
 */
export function encodeTokens(text: string, options?: { encoding?: Encoding }): number[];

/**
 * Load a rank table (the package's `tokenizer/<encoding>.bin`, exported as
 * `memcore/tokenizer/<encoding>.bin`); returns its encoding. The default entries load tables on
 * first use; `memcore/slim` hosts load what they need (or pass `countTokens`).
 * @example loadTokenizer(await (await fetch('/tokenizer/o200k_base.bin')).arrayBuffer());
 */
export function loadTokenizer(bytes: Uint8Array | ArrayBuffer): Encoding;

/**
 * Whether the table of an encoding is loaded — or can be now: the Node entry reads it at this
 * call; in browsers and edge runtimes this starts its download and answers `false` until it is in.
 * @example hasTokenizer('cl100k_base');
 */
export function hasTokenizer(encoding: Encoding): boolean;

/**
 * Wait until the tables of `encodings` (default: {@link DEFAULT_ENCODING}) are loaded. Tables load
 * on first use: the Node entry reads them synchronously; browsers and edge runtimes fetch them, so
 * call this before counting synchronously there (`countTokens`, `enforceTokenCap`, …; async
 * functions — `ContextMemory`, `fitProfile` — wait themselves). In Workers import
 * `memcore/tokenizer/<encoding>` first. `E_NO_TOKENIZER` when this entry cannot load it.
 * @example await ready(); countTokens('hi');
 */
export function ready(encodings?: Encoding | Encoding[]): Promise<void>;

/** The encoding used when none is named: `'o200k_base'`. */
export const DEFAULT_ENCODING: Encoding;
