//! The wasm-bindgen layer: the only code that knows about JavaScript.
//!
//! **One pattern for every export** (see [`boundary`]): texts arrive as `String`, structured
//! values as JSON text that the JS layer wrote with a guarded `JSON.stringify` (cycles, depth,
//! getters that throw, BigInt and non-finite numbers are refused there, in JS), numbers as `f64`,
//! and host callbacks as JS adapter objects of our own (`js/host.js`) — those are the only
//! `JsValue`s. An export decodes its arguments with one [`boundary::Call`] (which names the
//! function and the argument in every error), calls the core and returns a `String` (text or
//! JSON), a number or a boolean; errors cross as JSON text `{ code, message, details }` through
//! `impl From<Error> for JsValue`. No JS object from the user is ever read here, so no getter, no
//! proxy and no cycle can run inside wasm.
//!
//! Long-lived state (the in-memory entry store, `ContextMemory`, the tools of a turn, running
//! tasks) lives in [`handles`] keyed by integers: JS holds numbers, never pointers, so an object
//! of a failed instance can never touch a new one. Async work runs as [`task`]s that JS polls
//! inside its own `try`, so even a trap in async code is caught by JS and never escapes as an
//! uncaught exception.

mod boundary;
mod context_memory;
mod dream;
mod embeddings;
mod entries;
mod entry_store;
mod fit;
mod host;
mod index_columns;
mod mcp;
mod memories;
mod meta;
mod op;
mod privacy;
mod profile;
mod rights;
mod task;
mod tokens;
mod tools;
mod turn;

pub use context_memory::*;
pub use dream::*;
pub use entries::*;
pub use entry_store::*;
pub use fit::*;
pub use index_columns::*;
pub use mcp::*;
pub use memories::*;
pub use meta::*;
pub use privacy::*;
pub use profile::*;
pub use rights::*;
pub use task::*;
pub use tokens::*;
pub use tools::*;
pub use turn::*;
