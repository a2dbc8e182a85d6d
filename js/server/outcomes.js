// How REST and MCP answer the core's outcomes: one table, so the two surfaces cannot drift apart.
// A row is either `{ body, status? }` (REST answers `body` with `status`, default 200; MCP answers
// `body` as the tool's result) or `{ error: { status, code, message, extra? } }` (REST answers
// `{ error: { code, message, ...extra } }` with `status`; MCP the same object as a tool error).
// Where REST says it differently, a row carries `rest` with the REST form of the same error.

/** The principal may not touch the user's memory (REST 403 and the MCP tool error). */
export const FORBIDDEN_MESSAGE = "the principal may not act on another user's memory";

const RESERVED_MESSAGE = "entries with keys starting with '_gdpr_' are reserved and cannot be deleted here";

const error = (status, code, message, extra) => ({ error: extra ? { status, code, message, extra } : { status, code, message } });

/** `kind` → the core's outcome name → its answer. */
export const OUTCOMES = Object.freeze({
  /** `upsertUserMemory` (PUT /usermemorystore/memories, upsert_user_memory). */
  upsert: {
    stored: (o) => ({ body: { entry: o.entry, created: o.created, evicted: o.evicted }, status: o.created ? 201 : 200 }),
    unchanged: (o) => ({ body: { entry: o.entry, created: false, unchanged: true, evicted: [] } }),
    invalid: (o) => error(400, 'E_BAD_REQUEST', 'the request breaks the write rules', { violations: o.violations }),
    full: (o) => error(409, 'E_CAPACITY', o.message),
    restricted: (o) => error(409, 'E_RESTRICTED', o.message),
    secret: (o) => error(400, 'E_SECRET', o.message, { field: o.field, kind: o.kind }),
    // The request's id is another user's (an entry id names one user's entry).
    conflict: (o) => error(409, 'E_CONFLICT', o.message),
  },
  /** `deleteUserMemory` (DELETE /usermemorystore/memories/entry/{id}, delete_user_memory). */
  deleteEntry: {
    deleted: (o) => ({ body: { deleted: true, entry: o.entry } }),
    notFound: () => error(404, 'E_NOT_FOUND', 'no memory with this id'),
    foreign: () => error(403, 'E_FORBIDDEN', FORBIDDEN_MESSAGE),
    // REST names the field as a write-rule violation; MCP says it in the message.
    reserved: () => ({
      ...error(400, 'E_BAD_REQUEST', RESERVED_MESSAGE),
      rest: error(400, 'E_BAD_REQUEST', 'the request breaks the write rules', { violations: [{ field: 'entryId', message: RESERVED_MESSAGE }] }),
    }),
  },
  /** `getVisibleMemories`: `{ entries }` or `{ violations }` for a bad query. */
  visible: {
    found: (o) => ({ body: { entries: o.entries } }),
    violations: (o) => error(400, 'E_BAD_REQUEST', 'the query is not valid', { violations: o.violations }),
  },
  /** `restoreVersion` (POST /usermemorystore/memories/{userId}/versions/{versionId}/restore). */
  restore: {
    restored: (o) => ({ body: { entry: o.entry, restored: true } }),
    unchanged: (o) => ({ body: { entry: o.entry, restored: false } }),
    notFound: () => error(404, 'E_NOT_FOUND', 'no version with this id for this user'),
    // The user's own entry holding the identity is named; another user's entry never is.
    conflict: (o) => error(409, 'E_CONFLICT', o.message, o.entry ? { entry: o.entry } : undefined),
    full: (o) => error(409, 'E_CAPACITY', o.message),
    restricted: (o) => error(409, 'E_RESTRICTED', o.message),
  },
  /** `getMemoryByKey`: the entry or `null`. */
  byKey: {
    found: (o) => ({ body: { entry: o.entry } }),
    missing: (o) => error(404, 'E_NOT_FOUND', `no memory with key '${o.key}'`),
  },
});

const UNEXPECTED = {
  upsert: () => error(500, 'E_INTERNAL', 'unexpected upsert outcome'),
  deleteEntry: () => error(500, 'E_INTERNAL', 'unexpected delete outcome'),
  restore: () => error(500, 'E_INTERNAL', 'unexpected restore outcome'),
};

/** The answer of one outcome for `surface` ('rest' | 'mcp'): `{ body, status }` or `{ error }`. */
export function answerOf(kind, name, outcome, surface) {
  const row = Object.hasOwn(OUTCOMES[kind], name) ? OUTCOMES[kind][name] : UNEXPECTED[kind];
  const answer = row(outcome);
  return surface === 'rest' && answer.rest ? answer.rest : answer;
}

/** The HTTP status of an error the core or a host threw, by its code. */
export function statusOfCode(code) {
  if (code === 'E_CONFLICT') return 409;
  return code === 'E_TOO_LARGE' ? 413 : code === 'E_ARGUMENT' || code === 'E_INVALID_USER_ID' || code === 'E_SECRET' ? 400 : 500;
}
