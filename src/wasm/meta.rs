//! Package metadata, the core's constants, and the hook that proves the JS layer survives a trap.

use super::boundary::json_out;
use crate::error::Result;
use crate::profile;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// The memcore version.
#[wasm_bindgen(js_name = version)]
pub fn version() -> String {
    crate::VERSION.to_string()
}

/// Constants the JS layer re-exports (checked against the JS copies in the tests).
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
}

/// Constants of the core (JSON), for the JS layer's tests.
#[wasm_bindgen(js_name = coreConstants)]
pub fn core_constants() -> Result<String> {
    json_out(&Constants {
        web_search_tooltip: profile::WEB_SEARCH_TOOLTIP,
        memory_section_heading: profile::inject::MEMORY_SECTION_HEADING,
        section_headings: profile::SECTION_HEADINGS,
        max_edit_body_bytes: profile::MAX_EDIT_BODY_BYTES,
        updating_notice: crate::turn::UPDATING_NOTICE,
        truncation_marker: profile::fit::TRUNCATION_MARKER,
        default_encoding: profile::tokens::Encoding::default().name(),
    })
}

/// Executes the WebAssembly `unreachable` instruction: a trap, as a memcore bug would cause one.
/// Exported only so the tests can prove that the JS layer reports `E_INTERNAL`, replaces the
/// failed instance and keeps working (`memcore/testing`).
#[wasm_bindgen(js_name = forceTrap)]
pub fn force_trap() {
    core::arch::wasm32::unreachable()
}
