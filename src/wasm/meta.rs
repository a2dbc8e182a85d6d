//! Package metadata, the core's constants, and the hook that proves the JS layer survives a trap.

use super::boundary::json_out;
use memcore::error::Result;
use memcore::profile;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// The memcore version.
#[wasm_bindgen(js_name = version)]
pub fn version() -> String {
    memcore::VERSION.to_string()
}

/// Constants the JS layer re-exports (written into constants.js by scripts/package.mjs).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Constants {
    web_search_tooltip: &'static str,
    memory_section_heading: &'static str,
    section_headings: [&'static str; 6],
    max_edit_body_bytes: usize,
    updating_notice: &'static str,
    truncation_marker: &'static str,
    default_encoding: &'static str,
    default_max_tokens: usize,
    min_max_tokens: usize,
    max_max_tokens: usize,
    empty_profile_body: String,
    /// The JS names of the entry store protocol's methods (`js/host.js` adapts exactly these).
    #[cfg(feature = "entry-memory")]
    entry_store_methods: StoreMethods,
}

/// The store protocol's method names, from its one table (`entries::store::protocol`).
#[cfg(feature = "entry-memory")]
#[derive(Serialize)]
struct StoreMethods {
    required: &'static [&'static str],
    optional: &'static [&'static str],
}

/// Constants of the core (JSON), for scripts/package.mjs and the JS layer's tests.
#[wasm_bindgen(js_name = coreConstants)]
pub fn core_constants() -> Result<String> {
    json_out(&Constants {
        web_search_tooltip: profile::WEB_SEARCH_TOOLTIP,
        memory_section_heading: profile::inject::MEMORY_SECTION_HEADING,
        section_headings: profile::SECTION_HEADINGS,
        max_edit_body_bytes: profile::MAX_EDIT_BODY_BYTES,
        updating_notice: memcore::turn::UPDATING_NOTICE,
        truncation_marker: profile::fit::TRUNCATION_MARKER,
        default_encoding: profile::tokens::Encoding::default().name(),
        default_max_tokens: profile::fit::DEFAULT_MAX_TOKENS,
        min_max_tokens: profile::fit::MIN_MAX_TOKENS,
        max_max_tokens: profile::fit::MAX_MAX_TOKENS,
        empty_profile_body: profile::empty_body(),
        #[cfg(feature = "entry-memory")]
        entry_store_methods: StoreMethods {
            required: memcore::entries::store::REQUIRED_METHODS,
            optional: memcore::entries::store::OPTIONAL_METHODS,
        },
    })
}

/// Executes the WebAssembly `unreachable` instruction: a trap, as a memcore bug would cause one.
/// Exported only so the tests can prove that the JS layer reports `E_INTERNAL`, replaces the
/// failed instance and keeps working (`memcore/testing`).
#[wasm_bindgen(js_name = forceTrap)]
pub fn force_trap() {
    core::arch::wasm32::unreachable()
}
