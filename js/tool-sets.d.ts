// Typings shared by memcore/ai-sdk, memcore/openai-agents and memcore/langchain (not a subpath).
import type { Json, MemoryTools } from './index.js';

export type { MemoryTools };

/** The arguments `rememberFact`'s schema describes (the core checks them and answers each problem). */
export interface RememberFactInput { key: string; value: Json; category: string; visibility?: 'self' | 'group' | 'global' }
/** `recallMemories` takes no arguments. */
export type RecallMemoriesInput = Record<string, never>;
/** The arguments of `searchMemory`. */
export interface SearchMemoryInput { query: string }
/** The arguments of `forgetFact`. */
export interface ForgetFactInput { key: string }
/** The arguments of `memoryHistory` (offered when the config's history is on, the default). */
export interface MemoryHistoryInput { key: string }
