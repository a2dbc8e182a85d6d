// Typings for `memcore/editor`: the Settings → Context Memory editor (behaviour §1.10) as a DOM
// element. The styles are `memcore/editor.css` (every rule scoped to `.cm-editor`).
import type { Diagnostic } from './index.js';

/** The nine states, in the order the docs list them; `data-state` on the root carries the current one. */
export declare const STATES: readonly ['loading', 'empty', 'unavailable', 'error', 'ready', 'unsaved', 'saving', 'saved', 'save-error'];

/** One of {@link STATES}. */
export type EditorState = (typeof STATES)[number];

/** The largest body a save accepts, in UTF-8 bytes (1,048,576; memcore's `MAX_EDIT_BODY_BYTES`). */
export declare const MAX_BODY_BYTES: 1048576;

/** What a load answers: `GET /contextmemory/me`, `ContextMemory.getMyContextMemory`. */
export interface EditorProfileView {
  exists: boolean;
  body: string;
  lastUpdated: string | null;
  turnCount: number | null;
}

/** What a save answers: the stored view after the save, with its notes (`PUT /contextmemory/me`). */
export interface EditorSaveAnswer extends EditorProfileView {
  /** Renamed or removed headings (the save happened); warnings are listed under the text. */
  diagnostics?: Diagnostic[];
  /** How many credentials the save replaced by `[redacted]`. */
  redactedSecrets?: number;
}

/** What both ways of mounting take. */
interface CommonEditorOptions {
  /** How long a load or save may take before it is an error state (default 10000 ms). */
  timeoutMs?: number;
  /** Supplies the core for the inline heading diagnostics (default `import('memcore')`, on the first edit). */
  loadCore?: () => Promise<{ applyUserEdit: (existing: string | null, body: string, options: { userId: string; now: number }) => { diagnostics: Diagnostic[] } }>;
}

/** The editor over an HTTP route speaking `memcore/server`'s `/contextmemory/me` contract. */
export interface EndpointEditorOptions extends CommonEditorOptions {
  /** The GET/PUT route (default `/contextmemory/me`). */
  endpoint?: string;
  /** The fetch used for the endpoint (default the global one). */
  fetch?: typeof fetch;
  /** Merged into both requests: credentials, the host app's auth headers. */
  requestInit?: RequestInit;
  load?: never;
  save?: never;
}

/** The editor over the host's own load and save (both). */
export interface CallbackEditorOptions extends CommonEditorOptions {
  /**
   * Load the profile. Throw an error with `code: 'E_MEMORY_DISABLED'` (and `details.reason`) for
   * the unavailable state; any other error is the error state with its message.
   */
  load: (init: { signal: AbortSignal }) => Promise<EditorProfileView>;
  /** Save the body the user wrote; answer the stored view (a throw is the save-error state). */
  save: (body: string, init: { signal: AbortSignal }) => Promise<EditorSaveAnswer>;
}

/** Options of {@link mountContextMemoryEditor}: an endpoint, or `load` and `save`. */
export type ContextMemoryEditorOptions = EndpointEditorOptions | CallbackEditorOptions;

/** A mounted editor. */
export interface ContextMemoryEditor {
  /** The current state. */
  readonly state: EditorState;
  /** Load again (what Retry does). */
  reload(): Promise<void>;
  /** Save the edit (what Save and Ctrl+S do); nothing unless there are unsaved changes under the limit. */
  save(): Promise<void>;
  /** Empty the root and stop listening; answers that arrive later change nothing. */
  destroy(): void;
}

/**
 * Mount the editor into `root` (its children are replaced) and load the profile.
 * Throws `MemcoreError` (`E_ARGUMENT`) for a root that is not an element, only one of
 * `load`/`save`, or a bad `timeoutMs`.
 * @example
 * import { mountContextMemoryEditor } from 'memcore/editor';
 * import 'memcore/editor.css';
 * const editor = mountContextMemoryEditor(document.querySelector('#context-memory')!, {
 *   endpoint: '/contextmemory/me',
 *   requestInit: { credentials: 'include' },
 * });
 */
export function mountContextMemoryEditor(root: HTMLElement, options?: ContextMemoryEditorOptions): ContextMemoryEditor;

/**
 * `load` and `save` over a `ContextMemory` for one user, for a page that runs memcore itself.
 * @example
 * import { ContextMemory } from 'memcore';
 * import { mountContextMemoryEditor, contextMemoryCallbacks } from 'memcore/editor';
 * mountContextMemoryEditor(element, contextMemoryCallbacks(contextMemory, 'user_123'));
 */
export function contextMemoryCallbacks(
  contextMemory: {
    getMyContextMemory(userId: string): Promise<EditorProfileView>;
    updateMyContextMemory(userId: string, body: string): Promise<{ diagnostics: Diagnostic[]; redactedSecrets: number }>;
  },
  userId: string,
): { load: () => Promise<EditorProfileView>; save: (body: string) => Promise<EditorSaveAnswer> };
