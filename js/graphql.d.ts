// Typings for `memcore/graphql` (no GraphQL library is imported, by the module or by these types).
import type { Diagnostic, MemoryView } from './index.js';

/** The SDL for a schema of its own: the types plus `type Query` and `type Mutation`. */
export declare const contextMemoryTypeDefs: string;
/** The SDL to add to a schema with its own `Query` and `Mutation` (`extend type …`). */
export declare const contextMemoryTypeExtensions: string;

/** What `updateMyContextMemory` resolves to (`ContextMemoryUpdateResult`). */
export interface ContextMemoryUpdateResult { memory: MemoryView; diagnostics: Diagnostic[] }

/** The part of a `ContextMemory` the resolvers use. */
export interface ContextMemorySettings {
  getMyContextMemory(userId: string): Promise<MemoryView>;
  updateMyContextMemory(userId: string, body: string): Promise<{ text: string; diagnostics: Diagnostic[] }>;
}

/** Options of `createContextMemoryResolvers`. */
export interface ContextMemoryResolverOptions<TContext> {
  contextMemory: ContextMemorySettings;
  /** The authenticated user's id from the GraphQL context; `null`, `undefined` or `''` → `UNAUTHENTICATED`. */
  userIdFrom(context: TContext): string | null | undefined | Promise<string | null | undefined>;
}

/** Resolvers in the `{ Query, Mutation }` shape of graphql-tools, Apollo Server, Yoga, Mercurius. */
export interface ContextMemoryResolvers<TContext> {
  Query: { getMyContextMemory(parent: unknown, args: Record<string, never>, context: TContext, info?: unknown): Promise<MemoryView> };
  Mutation: { updateMyContextMemory(parent: unknown, args: { document: string }, context: TContext, info?: unknown): Promise<ContextMemoryUpdateResult> };
}

/** The same resolvers as a graphql-js `rootValue`. */
export interface ContextMemoryRootValue<TContext> {
  getMyContextMemory(args: Record<string, never>, context: TContext, info?: unknown): Promise<MemoryView>;
  updateMyContextMemory(args: { document: string }, context: TContext, info?: unknown): Promise<ContextMemoryUpdateResult>;
}

/**
 * Resolvers bound to a `ContextMemory`. Failures are GraphQL errors with `extensions.code`:
 * `UNAUTHENTICATED` (no user in the context), or the memcore code (`E_TOO_LARGE` with `bytes`
 * and `limit`, `E_INVALID_USER_ID`, `E_HOST`, …). Throws `E_ARGUMENT` for bad options.
 * @example
 * const resolvers = createContextMemoryResolvers({ contextMemory, userIdFrom: (ctx: { user?: { id: string } }) => ctx.user?.id });
 * new ApolloServer({ typeDefs: contextMemoryTypeDefs, resolvers });
 */
export function createContextMemoryResolvers<TContext = any>(options: ContextMemoryResolverOptions<TContext>): ContextMemoryResolvers<TContext>;

/**
 * `rootValue` for graphql-js alone.
 * @example await graphql({ schema: buildSchema(contextMemoryTypeDefs), source, rootValue: contextMemoryRootValue(resolvers), contextValue });
 */
export function contextMemoryRootValue<TContext>(resolvers: ContextMemoryResolvers<TContext>): ContextMemoryRootValue<TContext>;
