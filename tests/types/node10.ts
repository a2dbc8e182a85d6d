// `moduleResolution: node` (node10) ignores `exports`: every subpath resolves through
// `typesVersions` (compiled by the test command with tsconfig.node10.json).
import { countTokens } from 'memcore';
import { init } from 'memcore/slim';
import { InMemoryProfileStorage } from 'memcore/adapters/memory';
import { FileSystemProfileStorage } from 'memcore/adapters/fs';
import { openAIChatModel, openAIEmbeddings } from 'memcore/adapters/openai';
import { workersAIEmbeddings } from 'memcore/adapters/workers-ai';
import { forceTrap } from 'memcore/testing';
import 'memcore/tokenizer/cl100k_base';
import { createMemoryHandler } from 'memcore/server';
import { MAX_EDIT_BODY_BYTES } from 'memcore/constants';
import { mountContextMemoryEditor } from 'memcore/editor';
// The asset subpaths too.
import fullCore from 'memcore/memcore.wasm';
import profileCore from 'memcore/memcore-profile.wasm';
import o200kBytes from 'memcore/tokenizer/o200k_base.bin';
import cl100kBytes from 'memcore/tokenizer/cl100k_base.bin';

export const used = [countTokens, init, InMemoryProfileStorage, FileSystemProfileStorage, openAIChatModel, openAIEmbeddings, workersAIEmbeddings, forceTrap, createMemoryHandler, MAX_EDIT_BODY_BYTES, mountContextMemoryEditor, fullCore, profileCore, o200kBytes, cl100kBytes];
