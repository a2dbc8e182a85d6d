// Compiled with `tsc --noEmit --strict` against the installed package: the typings describe the
// API a user writes against (a wrong shape here fails the test command).
import {
  MemcoreError, version, parseProfile, renderProfile, emptyProfile, assembleProfile, countTokens,
  memorySystemPromptSection, resolveEnablement, applyUserEdit, memoryView, memoryPath,
  type ParsedProfile, type Enablement, type MemcoreErrorCode,
} from 'memcore';
import { init, initSync } from 'memcore/slim';

const v: string = version();
const parsed: ParsedProfile = parseProfile('## Identity\n');
const text: string = renderProfile(parsed);
const n: number = countTokens(text, { encoding: 'cl100k_base' }) + countTokens(text, { countTokens: (t) => t.length });
const e: Enablement = resolveEnablement({ companyId: 'c', featureFlag: 'true', webSearchEnabled: true });
const edit = applyUserEdit(null, 'x', { userId: 'u', now: new Date() });
const section: string = memorySystemPromptSection(edit.text);
const view = memoryView(null);
const created = assembleProfile('', { userId: 'u', turnCount: 0, now: Date.now() });
renderProfile(emptyProfile('u', '2026-01-01T00:00:00Z'));
try {
  memoryPath('..');
} catch (err) {
  if (err instanceof MemcoreError) {
    const code: MemcoreErrorCode = err.code;
    console.log(code, err.details);
  }
}
async function slim(bytes: Uint8Array) {
  await init(bytes);
  initSync(bytes);
}
console.log(v, n, e.reason, section, view.exists, created, slim);
