// The shape contract: the installed package's typings, read with the TypeScript compiler, against
// the field and enum names of the serde types they describe (tests/vectors/shapes.json, blessed
// by `BLESS=1 cargo test --test shapes` from the types themselves). Every interface and type
// alias of the core typings is either mapped there or listed here as JS-only with the reason, so
// a new one cannot be forgotten. The server's error codes are held to the same contract.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const ts = require('typescript');
const pkgDir = join(require.resolve('memcore/package.json'), '..');
const root = new URL('../../', import.meta.url);
const shapes = JSON.parse(readFileSync(new URL('tests/vectors/shapes.json', root), 'utf8'));

/** Core typings that describe no serde type, with the reason. */
const JS_ONLY = {
  MemcoreErrorDetails: 'the details of each error code, built at each call site (core: Error::with_details; JS: new MemcoreError); tests/js/error-details.test.mjs holds raised errors to it',
  MemcoreErrorOf: 'the typing of the JS error class (js/errors.js) for one code',
  MemcoreError: 'the typing of the JS error class (js/errors.js): the union of every code\'s error',
  MemcoreErrorConstructor: 'the typing of the JS error class\'s constructor (js/errors.js)',
  EpisodeSearchOptions: 'host objects and the binding\'s private EpisodeSearchOptions (src/wasm/learn.rs)',
  LearnOptions: 'host objects and the binding\'s private LearnOptions (src/wasm/learn.rs)',
  TurnMessage: 'a message as the host\'s chat loop holds it; the core reads role and content (learn::InputMessage)',
  RightsActor: "the rights calls' `principal` and `config` options, read by the binding's private RightsOptions (src/wasm/rights.rs)",
  TimeInput: 'a JS input union (Date | string | number); js/wire.js turns it into RFC 3339 text',
  AssembleOptions: 'the binding\'s private AssembleArgs (src/wasm/profile.rs); its keys are checked by the argument probe below',
  CountTokensFn: 'a host callback',
  TokenizerOptions: 'the binding\'s private TokenizerArgs plus the JS-only callback; probed below',
  Tokenizer: 'TokenizerOptions or a callback',
  ModelAnswer: 'what a host model returns; host/adapter.rs reads it (text or { text, usage })',
  LanguageModel: 'a host object or callback (the deprecated name of MemoryModel)',
  MemoryModel: 'a host object or callback',
  FitOptions: 'the binding\'s private FitArgs plus host objects; probed below',
  Json: 'any JSON value',
  EntryStore: 'a host interface (methods)',
  ToolDefinitions: 'three JSON arrays of tool schemas, built by the core per provider',
  MemoryToolName: 'the four tool names of SPEC §2.5 and memoryHistory (tests/js/entries.test.mjs pins them)',
  ToolNameArgument: 'a compile-time filter on MemoryTools.call/run names (a MemoryToolName literal or any string); no runtime shape',
  MemoryToolsOptions: 'host objects and the binding\'s private ToolsArgs; probed below',
  MemoryTools: 'a JS object (methods)',
  UserDataStores: 'host objects',
  ApiKeyHolder: 'a host interface (methods): a key store an erasure deletes the user\'s keys from',
  InvalidUserId: 'built by js/api/rights.js (findInvalidUserIds) from storedUserIds() and the core\'s checkUserId',
  InvalidUserErasure: 'built by js/api/rights.js (eraseInvalidUserData) from the core ErasureReport and the keys it deleted',
  RightsStoreReport: 'built by js/api.js per store given (option, class name)',
  ErasureReport: 'built by js/api.js from one core ErasureReport per store (see ErasureStoreReport)',
  ImportStoreReport: 'built by js/api.js per store given',
  ImportUndoDetails: 'built by js/api.js when it undoes an import',
  MemoryOperationOptions: 'the binding\'s private MemoryOptions; probed below',
  VisibleMemoriesQuery: 'read by the core\'s visible-query check from JSON (tests/js/server-rest.test.mjs)',
  CredentialDetection: 'the core\'s Detection, written as found/path/kind (tests/js/privacy.test.mjs)',
  ProfileStorage: 'a host interface (methods)',
  LogEvent: 'built by the binding\'s log adapter from the core\'s events',
  ContextMemoryHosts: 'host objects',
  IndexedEntry: 'the binding\'s private IndexedEntry (src/wasm/index_columns.rs); probed below',
  EmbedPurpose: 'a host call\'s argument (the Embedder contract, docs/reference/embeddings.md)',
  EmbedRequest: 'what the core passes to a host embedder (tests/js/adapters-embeddings.test.mjs)',
  EmbedResult: 'what a host embedder returns; the core validates it',
  Embedder: 'a host object (methods)',
  LoadEntriesInput: 'read by the core\'s LoadEntries (deserialize-only, deny_unknown_fields): tests/js/search-modes.test.mjs loads with it',
  SearchLanguage: 'the codes of the core\'s Language (tests/search_ranking.rs pins every one)',
  StoredVector: 'a host store\'s answer with a Uint8Array; js/host.js writes it as base64 for the core',
  VectorWrite: 'what a host store receives, the vector as a Uint8Array (js/host.js decodes the core\'s base64)',
  VectorStore: 'a host interface (methods)',
  EmbeddingOptions: 'host objects (the embedder, the log) and embedTimeoutMs, which js/host.js folds into the embedder\'s spec',
  RelevantMemoriesOptions: 'host objects and the binding\'s private RelevantOptions; probed below',
};

/** Fields a mapped typing has and its Rust type has not (or the reverse), with the reason. */
const FIELD_EXCEPTIONS = {
  ModelRequest: { signal: 'JS only: the AbortSignal js/host.js adds to each model call' },
  DreamOptions: {
    store: 'a host object, passed as an adapter', model: 'a host object, passed as an adapter',
    newId: 'a host callback', log: 'a host callback', metrics: 'a JS object (DreamMetrics)',
    telemetry: 'a JS object (memcore/telemetry), used in js/api/dream.js',
  },
  ErasureStoreReport: {
    option: 'added by js/api.js (which option gave the store)', kind: 'added by js/api.js (its class name)',
    keys: 'added by js/api.js (the API keys it deleted from that store)',
    userId: 'Rust only: js/api.js reports it once, in ErasureReport',
  },
  ImportReport: { stores: 'added by js/api.js (what went to each store given)' },
};

const files = [];
const walk = (dir) => {
  for (const f of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, f.name);
    if (f.isDirectory()) walk(path);
    else if (f.name.endsWith('.d.ts')) files.push(path);
  }
};
walk(pkgDir);
const program = ts.createProgram(files, {
  strict: true, noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'], types: [],
});
const checker = program.getTypeChecker();
const moduleExports = (file) => checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(join(pkgDir, file))));
const indexExports = new Map(moduleExports('index.d.ts').map((s) => [s.name, s]));

/** The declarations (interfaces and type aliases) of the section files, by file. */
const sectionFiles = readdirSync(join(pkgDir, 'types')).filter((f) => f.endsWith('.d.ts')).map((f) => `types/${f}`);
const declared = new Map();
for (const file of sectionFiles) {
  for (const st of program.getSourceFile(join(pkgDir, file)).statements) {
    if (st.name && (ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st))) declared.set(st.name.text, file);
  }
}

const isNullish = (t) => (t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined)) !== 0;
const members = (t) => (t.isUnion() ? t.types : [t]).filter((m) => !isNullish(m));
/** The type a shapes.json key names: `A`, `A.b` (property b), `A.b[]` (its element). */
function typeAt(key) {
  const [name, ...path] = key.split('.');
  const symbol = indexExports.get(name);
  assert.ok(symbol, `index.d.ts exports no \`${name}\``);
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  let type = checker.getDeclaredTypeOfSymbol(target);
  for (const step of path) {
    const array = step.endsWith('[]');
    const prop = array ? step.slice(0, -2) : step;
    const objects = members(type).filter((m) => checker.getPropertyOfType(m, prop));
    assert.equal(objects.length, 1, `${key}: one object type with \`${prop}\``);
    type = checker.getNonNullableType(checker.getTypeOfSymbol(checker.getPropertyOfType(objects[0], prop)));
    if (array) type = checker.getElementTypeOfArrayType?.(type) ?? checker.getTypeArguments(type)[0];
  }
  return type;
}
const propertyNames = (type) => {
  const objects = members(type);
  assert.equal(objects.length, 1, `${checker.typeToString(type)}: one object type`);
  return checker.getPropertiesOfType(objects[0]).map((p) => p.name);
};
/** The string literals of a union; `string & {}` (an open union for autocompletion) is skipped. */
const literals = (type) => members(type).filter((m) => !(m.flags & ts.TypeFlags.Intersection)).map((m) => {
  assert.ok(m.isStringLiteral(), `${checker.typeToString(type)}: a union of string literals`);
  return m.value;
});
const sorted = (list) => [...list].sort();

test('index.d.ts re-exports every declaration of the section files', () => {
  for (const [name, file] of declared) assert.ok(indexExports.has(name), `${name} (${file}) is exported by memcore`);
});

test('every core typing is mapped to its serde type or listed as JS-only', () => {
  const unmapped = [...declared.keys()].filter((name) => !(name in shapes) && !(name in JS_ONLY));
  assert.deepEqual(unmapped, [], 'map these in tests/shapes.rs (then BLESS) or list them in JS_ONLY with the reason');
  for (const name of Object.keys(JS_ONLY)) assert.ok(declared.has(name), `JS_ONLY names \`${name}\`, which no longer exists`);
});

for (const [key, shape] of Object.entries(shapes)) {
  test(`${key} matches ${shape.rust}`, () => {
    const type = typeAt(key);
    if (shape.fields) {
      const except = FIELD_EXCEPTIONS[key] ?? {};
      const typed = propertyNames(type).filter((f) => !(f in except));
      const rust = shape.fields.filter((f) => !(f in except));
      assert.deepEqual(sorted(typed), sorted(rust), `${key}: the typings' fields vs ${shape.rust}`);
    } else if (shape.variants) {
      assert.deepEqual(sorted(literals(type)), sorted(shape.variants), `${key}: the typings' union vs ${shape.rust}`);
    } else {
      const typed = {};
      for (const m of members(type)) {
        const tag = checker.getTypeOfSymbol(checker.getPropertyOfType(m, shape.tag));
        assert.ok(tag.isStringLiteral(), `${key}: every member has a literal \`${shape.tag}\``);
        typed[tag.value] = sorted(checker.getPropertiesOfType(m).map((p) => p.name));
      }
      const rust = Object.fromEntries(Object.entries(shape.members).map(([k, v]) => [k, sorted(v)]));
      assert.deepEqual(typed, rust, `${key}: the typings' variants vs ${shape.rust}`);
    }
  });
}

// The binding's private argument structs (src/wasm/*.rs) are not reachable from `cargo test`; the
// keys serde's `deny_unknown_fields` quotes ("expected one of …") are read from the package itself.
const memcore = await import('memcore');
const quoted = (fn) => {
  try { fn(); } catch (error) {
    const match = /unknown field `[^`]*`, expected (?:one of )?(.*)$/.exec(error.message);
    assert.ok(match, error.message);
    return [...match[1].matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  }
  assert.fail('no error');
};
const quotedAsync = async (fn) => {
  try { await fn(); } catch (error) { return quoted(() => { throw error; }); }
  assert.fail('no error');
};
const probes = {
  AssembleOptions: { js: [], keys: () => quoted(() => memcore.assembleProfile('', { zzUnknown: 1 })) },
  TokenizerOptions: { js: ['countTokens'], keys: () => quoted(() => memcore.countTokens('', { zzUnknown: 1 })) },
  FitOptions: { js: ['condense', 'countTokens'], keys: () => quotedAsync(() => memcore.fitProfile('', { zzUnknown: 1 })) },
  // `surface` is read by the one options decoder all operations share; only upsertUserMemory types it.
  MemoryOperationOptions: { js: ['embedTimeoutMs', 'log'], extra: ['surface', 'mode', 'limit'], keys: () => quotedAsync(() => memcore.countUserMemories(new memcore.InMemoryEntryStore(), 'u', { zzUnknown: 1 })) },
  // `store`, `countTokens`, the embedder's deadline and the log are host objects; the rest is RelevantOptions.
  RelevantMemoriesOptions: {
    js: ['store', 'countTokens', 'embedTimeoutMs', 'log'],
    keys: () => quotedAsync(() => memcore.relevantMemories({ store: new memcore.InMemoryEntryStore(), userId: 'u', agentId: 'a', query: 'q', maxTokens: 1, zzUnknown: 1 })),
  },
  IndexedEntry: { js: [], keys: () => quoted(() => memcore.indexColumns([{ key: 'k', updatedAt: '', valueJson: '1', zzUnknown: 1 }])) },
  MemoryToolsOptions: {
    js: ['store', 'now', 'newId', 'embedTimeoutMs', 'log', 'telemetry'],
    keys: () => quoted(() => memcore.createMemoryTools({ store: new memcore.InMemoryEntryStore(), userId: 'u', agentId: 'a', zzUnknown: 1 })),
  },
};
for (const [name, probe] of Object.entries(probes)) {
  test(`${name} has the keys the binding decodes`, async () => {
    const typed = [...propertyNames(typeAt(name)).filter((f) => !probe.js.includes(f)), ...(probe.extra ?? [])];
    assert.deepEqual(sorted(typed), sorted(await probe.keys()));
  });
}

test('the server\'s error codes: what it answers, its typings and docs/reference/serving.md agree', () => {
  const serverDir = join(pkgDir, 'server');
  const source = readdirSync(serverDir).filter((f) => f.endsWith('.js')).map((f) => readFileSync(join(serverDir, f), 'utf8')).join('\n');
  const answered = new Set([...source.matchAll(/'(E_[A-Z_]+)'/g)].map((m) => m[1]));
  const serverExports = new Map(moduleExports('server.d.ts').map((s) => [s.name, s]));
  const own = literals(checker.getDeclaredTypeOfSymbol(serverExports.get('ServerErrorCode')));
  const core = shapes.MemcoreErrorCode.variants;
  const typed = new Set([...own, ...core]);
  assert.deepEqual(sorted([...answered].filter((c) => !typed.has(c))), [], 'codes the server answers that ServerErrorCode lacks');
  assert.deepEqual(sorted(own.filter((c) => !answered.has(c))), [], 'ServerErrorCode members the server never answers');
  assert.deepEqual(own.filter((c) => core.includes(c)), [], 'ServerErrorCode repeats a core code');
  const documented = new Set([...readFileSync(new URL('docs/reference/serving.md', root), 'utf8').matchAll(/`(E_[A-Z_]+)`/g)].map((m) => m[1]));
  assert.deepEqual(sorted(own.filter((c) => !documented.has(c))), [], 'server codes docs/reference/serving.md does not name');
});
