//! The core compiled to wasm32 and run in Node by wasm-bindgen-test: the bindings reject bad
//! arguments with E_ARGUMENT instead of trapping, and keep working afterwards.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

fn code_of(error: &JsValue) -> String {
    js_sys::Reflect::get(error, &"code".into())
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

#[wasm_bindgen_test]
fn version_matches_the_crate() {
    assert_eq!(memcore::wasm::version(), env!("CARGO_PKG_VERSION"));
}
