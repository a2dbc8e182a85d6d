// memcore/server for this runtime: the runtime's memcore entry starts the core first.
import '../bun.js';

export * from './index.js';
