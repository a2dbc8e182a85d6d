// memcore/editor's typings (compiled by the test command with tsconfig.json, `tsc --strict`).
import type { ContextMemory } from 'memcore';
import {
  STATES,
  MAX_BODY_BYTES,
  mountContextMemoryEditor,
  contextMemoryCallbacks,
  type ContextMemoryEditor,
  type EditorState,
  type EditorSaveAnswer,
} from 'memcore/editor';

const limit: 1048576 = MAX_BODY_BYTES;
const first: 'loading' = STATES[0];

// The endpoint, with the host app's credentials.
const byEndpoint: ContextMemoryEditor = mountContextMemoryEditor(document.createElement('section'), {
  endpoint: '/contextmemory/me',
  requestInit: { credentials: 'include', headers: { authorization: 'Bearer t' } },
  timeoutMs: 5000,
});
const state: EditorState = byEndpoint.state;

// The host's own callbacks.
mountContextMemoryEditor(document.createElement('section'), {
  load: async ({ signal }) => {
    signal.throwIfAborted();
    return { exists: false, body: '', lastUpdated: null, turnCount: null };
  },
  save: async (body): Promise<EditorSaveAnswer> => ({ exists: true, body, lastUpdated: '2026-06-17T12:00:00+00:00', turnCount: 0, diagnostics: [], redactedSecrets: 0 }),
});

// Over a ContextMemory in the page.
declare const memory: ContextMemory;
mountContextMemoryEditor(document.createElement('section'), contextMemoryCallbacks(memory, 'user_123'));

// @ts-expect-error only one of load and save
mountContextMemoryEditor(document.createElement('section'), { load: async () => ({ exists: false, body: '', lastUpdated: null, turnCount: null }) });

export const used = [limit, first, state];
