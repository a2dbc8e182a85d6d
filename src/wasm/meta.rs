//! Package metadata.

use wasm_bindgen::prelude::*;

/// The memcore version.
#[wasm_bindgen(js_name = version)]
pub fn version() -> String {
    crate::VERSION.to_string()
}
