//! The wasm-bindgen layer: the only code that knows about JavaScript.
//!
//! Each file binds one core module. Functions take `JsValue` arguments so that a wrong type from
//! JS becomes an `E_ARGUMENT` error naming the argument instead of a trap, convert, call the core,
//! and convert back. No logic lives here.

mod args;
mod context_memory;
mod entries;
mod entry_store;
mod errors;
mod fit;
mod host;
mod meta;
mod profile;
mod profile_store;
mod tokens;
mod tools;
mod turn;

pub use context_memory::ContextMemoryHandle;
pub use entries::*;
pub use entry_store::{EntryStoreRef, InMemoryEntryStoreHandle};
pub use fit::*;
pub use meta::*;
pub use profile::*;
pub use tokens::*;
pub use tools::*;
pub use turn::*;
