// `memcore/graphql`: Settings → Context Memory (behaviour §1.10) as GraphQL — the SDL of
// `getMyContextMemory` and `updateMyContextMemory(document)` and resolvers bound to a
// `ContextMemory`.
//
// This module never imports `graphql`: the SDL is a string and the resolvers are plain functions,
// so it works with whichever graphql-js (16 or 17) the host's server brings (Apollo Server, Yoga,
// Mercurius, `graphql()` itself), and a host that only wants the SDL loads no GraphQL library. Errors
// are thrown as `Error`s with an `extensions` object, which graphql-js copies into the GraphQL
// error it reports (`errors[].extensions.code`).
import { MemcoreError } from './errors.js';
import { memoryView } from './api.js';

const types = `"""
Settings → Context Memory: what the signed-in user sees of their profile memory. The frontmatter
is never shown.
"""
type ContextMemoryView {
  "Whether the user has a profile. Without one the body is empty and nothing was created."
  exists: Boolean!
  "The Markdown body (the six sections), without the frontmatter."
  body: String!
  "When the profile was last written (RFC 3339), null without a profile."
  lastUpdated: String
  "How many turns have been consolidated into the profile, null without a profile."
  turnCount: Int
}

"A finding about a saved document, e.g. a heading that was renamed or removed. The save still happened."
type ContextMemoryDiagnostic {
  "Stable code, e.g. unknown-section, missing-section, heading-variant, frontmatter-in-body."
  code: String!
  "1-based line in the saved document."
  line: Int!
  message: String!
  "info or warning."
  severity: String!
}

"What updateMyContextMemory saved."
type ContextMemoryUpdateResult {
  "The saved memory as getMyContextMemory shows it."
  memory: ContextMemoryView!
  "Empty when the document was regular."
  diagnostics: [ContextMemoryDiagnostic!]!
}
`;

const query = `  "The signed-in user's profile memory (read-only: creates nothing)."
  getMyContextMemory: ContextMemoryView!`;
const mutation = `  """
  Save the signed-in user's edited body: at most 1 MiB (1,048,576 bytes) of UTF-8, else the error
  code E_TOO_LARGE and nothing is written. The stored frontmatter is kept.
  """
  updateMyContextMemory(document: String!): ContextMemoryUpdateResult!`;

/**
 * The SDL for a schema of its own: the types plus `type Query` and `type Mutation`.
 * @example const schema = buildSchema(contextMemoryTypeDefs);
 */
export const contextMemoryTypeDefs = `${types}
type Query {
${query}
}

type Mutation {
${mutation}
}
`;

/**
 * The SDL to add to a host schema that has its own `Query` and `Mutation`: the types plus
 * `extend type Query` and `extend type Mutation`.
 * @example const schema = buildSchema(hostTypeDefs + contextMemoryTypeExtensions);
 */
export const contextMemoryTypeExtensions = `${types}
extend type Query {
${query}
}

extend type Mutation {
${mutation}
}
`;

function argumentError(argument, message) {
  const fn = 'createContextMemoryResolvers';
  return new MemcoreError('E_ARGUMENT', `${fn}: \`${argument}\` ${message}`, { function: fn, argument });
}

/** An `Error` graphql-js reports with `extensions` (it copies an original error's `extensions`). */
function graphQLFailure(message, extensions) {
  const error = new Error(message);
  error.extensions = extensions;
  return error;
}

// A memcore error keeps its code; the size limit also says how large the document was. Anything
// else (a host callback's own error) is passed on unchanged for the server's error handling.
function reported(error) {
  if (!(error instanceof MemcoreError)) return error;
  const extensions = { code: error.code };
  if (error.code === 'E_TOO_LARGE' && error.details) {
    extensions.bytes = error.details.bytes;
    extensions.limit = error.details.limit;
  }
  return graphQLFailure(error.message, extensions);
}

/**
 * Resolvers for `contextMemoryTypeDefs` in the `{ Query, Mutation }` shape of graphql-tools'
 * `makeExecutableSchema`, Apollo Server, GraphQL Yoga and Mercurius; with graphql-js alone pass
 * `contextMemoryRootValue(resolvers)` as `rootValue`. `userIdFrom(context)` (may be async) gives
 * the authenticated user's id from the GraphQL context; a missing one (`null`, `undefined`, `''`)
 * fails the field with `extensions.code: 'UNAUTHENTICATED'`. memcore errors keep their code
 * (`E_TOO_LARGE` with `bytes` and `limit`, `E_INVALID_USER_ID`, `E_HOST`, …).
 * @example
 * const resolvers = createContextMemoryResolvers({ contextMemory, userIdFrom: (ctx) => ctx.user?.id });
 * new ApolloServer({ typeDefs: contextMemoryTypeDefs, resolvers });
 */
export function createContextMemoryResolvers(options) {
  if (options === null || typeof options !== 'object') throw argumentError('options', 'must be an object like { contextMemory, userIdFrom }');
  const { contextMemory, userIdFrom } = options;
  if (contextMemory === null || typeof contextMemory !== 'object' || typeof contextMemory.getMyContextMemory !== 'function' || typeof contextMemory.updateMyContextMemory !== 'function') {
    throw argumentError('options.contextMemory', 'must be a ContextMemory (new ContextMemory({ storage }))');
  }
  if (typeof userIdFrom !== 'function') throw argumentError('options.userIdFrom', 'must be a function (context) => the authenticated user id');

  const signedIn = async (context) => {
    const userId = await userIdFrom(context);
    if (userId === null || userId === undefined || userId === '') {
      throw graphQLFailure('Not signed in: context memory belongs to an authenticated user', { code: 'UNAUTHENTICATED' });
    }
    return userId;
  };
  const settle = async (work) => {
    try {
      return await work();
    } catch (error) {
      throw reported(error);
    }
  };
  return {
    Query: {
      getMyContextMemory: async (_parent, _args, context) => {
        const userId = await signedIn(context);
        return settle(() => contextMemory.getMyContextMemory(userId));
      },
    },
    Mutation: {
      updateMyContextMemory: async (_parent, args, context) => {
        const userId = await signedIn(context);
        return settle(async () => {
          const { text, diagnostics } = await contextMemory.updateMyContextMemory(userId, args.document);
          return { memory: memoryView(text), diagnostics };
        });
      },
    },
  };
}

/**
 * The same resolvers as a graphql-js `rootValue` (root fields receive `(args, context, info)`).
 * @example await graphql({ schema: buildSchema(contextMemoryTypeDefs), source, rootValue: contextMemoryRootValue(resolvers), contextValue });
 */
export function contextMemoryRootValue(resolvers) {
  const { Query, Mutation } = resolvers;
  return {
    getMyContextMemory: (args, context, info) => Query.getMyContextMemory(undefined, args, context, info),
    updateMyContextMemory: (args, context, info) => Mutation.updateMyContextMemory(undefined, args, context, info),
  };
}
