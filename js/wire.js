// The boundary between JavaScript values and the wasm core (not exported publicly).
//
// Everything that can only be checked on JS values happens here, inside `try`: that a text is a
// string, that a structured value can be written as JSON (no cycle, no getter that throws, no
// BigInt, function or non-finite number; depth and size bounded), that a callback is a function.
// The core receives strings, numbers and our own adapter objects only, so no user value is ever
// read inside wasm. Every call into wasm goes through `invoke`, which turns the core's errors
// into MemcoreError and treats anything else thrown from inside wasm as a failed instance: it is
// reported as E_INTERNAL and the instance is replaced before the next call (see README, "Errors").
//
// One file per part (js/wire/*.js): the instance (and start.js, which gives it its hooks), the tokenizer tables, the
// arguments, tasks, host calls, handles and the profile transport.

export { fromWire, instanceInfo, invoke, isStarted, loadTable } from './wire/instance.js';
export { started } from './wire/start.js';
export { preload, provideTable, tableSources, whenTables, whenTableSources } from './wire/tables.js';
export { argumentError, callback, fields, json, jsonWithout, MAX_TEXT_LENGTH, optionalText, reason, text } from './wire/arguments.js';
export { runTask } from './wire/tasks.js';
export { onCancel, settle } from './wire/host-calls.js';
export { currentGeneration, handle, live, release, remakeable } from './wire/handles.js';
export { piecesFromWire, profileFromWire, profileToWire, transportCounters } from './wire/profile-transport.js';
