//! memcore — the portable core of a per-user memory system for LLM assistants.
//!
//! Two memory models live here as pure Rust (no I/O, no clock, no randomness of its own):
//! [`profile`] (one Markdown `memory.md` per user) and [`entries`] (key/value facts written by
//! agents through four LLM tools, maintained in the background by [`dream`]). Storage, the
//! language model, time and ids come from the host through the traits in [`host`]. The only
//! code that knows about WebAssembly is the binding crate `memcore-wasm` (`wasm/Cargo.toml`, its
//! sources in `src/wasm/`), compiled for `wasm32` targets only; what it shares with any embedding
//! (wire JSON, UTF-16 positions, handles, the executor, the host-adapter protocol) is
//! [`boundary`], public for that crate but not part of the API.
#![forbid(unsafe_code)]
// No input may make the core panic (behaviour reference: "no trap, no crash"): the library itself
// never unwraps, expects, panics or indexes. Test code may — failing loudly is its job — so these
// apply to the library build only (integration tests are separate crates; unit tests are
// `cfg(test)`).
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

#[macro_use]
mod names;
/// What every embedding needs between a JS value and the core (not part of the API: public for
/// the binding crate, `src/wasm/`).
#[doc(hidden)]
pub mod boundary;
pub mod digest;
pub mod dream;
pub mod entries;
pub mod error;
pub mod host;
/// JSON as the core reads it (the wire decoder; a leaf module). Public for the fuzz targets
/// (`fuzz/`) and the vector tests only: not part of the API.
#[doc(hidden)]
pub mod json;
pub mod learn;
mod lock;
pub mod migrate;
pub(crate) mod order;
pub mod profile;
pub mod rights;
pub mod secrets;
pub mod turn;

pub use error::{Error, ErrorCode};

/// The crate version, as exported to JS by `version()`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
