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
//!
//! Entry memory's modules (entries, memories, tools, MCP, Dream, embeddings, privacy, rights,
//! index columns, and `op`, their shared operation plumbing) are compiled only with the
//! `entry-memory` Cargo feature (on by default). Without it this layer exports profile memory, the
//! turn, tokens and the store handles: the profile-only core `scripts/build.sh` ships as
//! `wasm/memcore_profile_bg.wasm`, run by the same JS glue (docs/internals/ARCHITECTURE.md).

// wasm32 only: on other targets the binding crate is empty (the core has no `JsValue` there).
#![cfg(target_arch = "wasm32")]
#![forbid(unsafe_code)]
// As in the core (src/lib.rs): no input may make the binding panic.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]
#![warn(missing_docs)]

mod boundary;
mod context_memory;
#[cfg(feature = "entry-memory")]
mod dream;
#[cfg(feature = "entry-memory")]
mod embeddings;
#[cfg(feature = "entry-memory")]
mod entries;
mod entry_store;
mod fit;
mod host;
#[cfg(feature = "entry-memory")]
mod index_columns;
#[cfg(feature = "entry-memory")]
mod learn;
#[cfg(feature = "entry-memory")]
mod mcp;
#[cfg(feature = "entry-memory")]
mod memories;
mod meta;
#[cfg(feature = "entry-memory")]
mod op;
#[cfg(feature = "entry-memory")]
mod privacy;
mod profile;
#[cfg(feature = "entry-memory")]
mod rights;
mod task;
mod tokens;
#[cfg(feature = "entry-memory")]
mod tools;
mod turn;

pub use context_memory::*;
#[cfg(feature = "entry-memory")]
pub use dream::*;
#[cfg(feature = "entry-memory")]
pub use entries::*;
pub use entry_store::*;
pub use fit::*;
#[cfg(feature = "entry-memory")]
pub use index_columns::*;
#[cfg(feature = "entry-memory")]
pub use learn::*;
#[cfg(feature = "entry-memory")]
pub use mcp::*;
#[cfg(feature = "entry-memory")]
pub use memories::*;
pub use meta::*;
#[cfg(feature = "entry-memory")]
pub use privacy::*;
pub use profile::*;
#[cfg(feature = "entry-memory")]
pub use rights::*;
pub use task::*;
pub use tokens::*;
#[cfg(feature = "entry-memory")]
pub use tools::*;
pub use turn::*;
