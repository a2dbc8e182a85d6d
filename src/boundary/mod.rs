//! The boundary: what every embedding needs between a JS value and the core, and none of it a
//! behaviour rule — the wire JSON ([`json`]: typed decoding with field paths, ASCII-only output,
//! the scalar shapes JS sends), UTF-16 positions for JS strings ([`utf16`]), long-lived objects
//! behind integer handles ([`handles`]), the executor the embedder drives ([`executor`]), and the
//! protocol of memcore's own JS host adapters over a [`adapter::Transport`] ([`adapter`]).
//!
//! Crate-private: the core is `profile`, `entries`, `turn`, `dream`, `migrate`, `rights` and the
//! host traits in [`crate::host`]; `src/wasm/` is the only caller of most of this module.
// Natively (and in `cargo test` of the integration tests) the wasm layer that calls the executor,
// the handles and the adapters is not compiled; the wasm32 clippy run still checks them for dead
// code.
#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]

pub mod adapter;
pub mod executor;
pub mod handles;
pub mod json;
pub mod utf16;

/// Errors cross to JS as the JSON text `{ code, message, details? }`; `js/wire.js` turns it into
/// a `MemcoreError`. Here, not in the binding crate (`src/wasm/`), because Rust lets only the
/// crate of `Error` (or of `JsValue`) implement the conversion the exports' `Result` needs.
#[cfg(target_arch = "wasm32")]
impl From<crate::error::Error> for wasm_bindgen::JsValue {
    fn from(error: crate::error::Error) -> wasm_bindgen::JsValue {
        wasm_bindgen::JsValue::from_str(&error.to_json().to_string())
    }
}
