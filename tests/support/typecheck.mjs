// The typings checked as a user's editor would: `tsc --strict` on one file written against the
// installed package (NodeNext resolution, the package's own .d.ts files checked too).
import { createRequire } from 'node:module';

const ts = createRequire(import.meta.url)('typescript');

/** The type errors of `file`, as text (empty: it compiles). */
export function typeErrors(file) {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    skipLibCheck: false,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}
