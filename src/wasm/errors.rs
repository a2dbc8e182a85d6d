//! Core errors → JS errors. The thrown value is a JS `Error` carrying `code` (and `details`);
//! the JS wrapper (`js/errors.js`) turns it into a `MemcoreError`.

use crate::error::Error;
use wasm_bindgen::JsValue;

/// Convert a core error into a thrown JS value.
pub(crate) fn to_js(error: Error) -> JsValue {
    let js_error = js_sys::Error::new(&error.message);
    let object: &JsValue = js_error.as_ref();
    // Reflect::set only fails on frozen or proxy targets; a fresh Error is neither.
    let _ = js_sys::Reflect::set(object, &"code".into(), &error.code.as_str().into());
    if let Some(details) = &error.details {
        let serializer = serde_wasm_bindgen::Serializer::json_compatible();
        if let Ok(value) = serde::Serialize::serialize(details, &serializer) {
            let _ = js_sys::Reflect::set(object, &"details".into(), &value);
        }
    }
    js_error.into()
}

/// The result type of every binding.
pub(crate) type JsResult<T> = Result<T, JsValue>;
