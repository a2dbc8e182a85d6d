//! JS host objects adapted to the core's host traits. Every callback may be sync or async; a
//! throw or a rejected Promise becomes an `E_HOST` error carrying the host's message (or the
//! host's own `code`, when it threw a MemcoreError-like error such as `E_VERSION_CONFLICT`).

use crate::error::{Error, ErrorCode, Result};
use crate::host::{Completion, CompletionRequest, LanguageModel, Usage};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// The message and code of a thrown JS value.
pub(crate) fn host_error(what: &str, thrown: &JsValue) -> Error {
    let message = thrown
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| thrown.as_string())
        .unwrap_or_else(|| "it failed without a message".into());
    let code = js_sys::Reflect::get(thrown, &"code".into())
        .ok()
        .and_then(|c| c.as_string());
    let code = match code.as_deref() {
        Some("E_VERSION_CONFLICT") => ErrorCode::VersionConflict,
        _ => ErrorCode::Host,
    };
    // The message is the host's own (it reaches tool answers as `<reason>`); which callback
    // failed goes into the details.
    let name = js_sys::Reflect::get(thrown, &"name".into())
        .ok()
        .and_then(|n| n.as_string());
    let transient = matches!(name.as_deref(), Some("AbortError" | "TimeoutError"));
    Error::new(code, message).with_details(serde_json::json!({
        "operation": what,
        "name": name,
        "transient": transient,
    }))
}

/// Call `this.method(args…)` or a bare function, awaiting a returned Promise/thenable.
pub(crate) async fn call(
    what: &str,
    function: &js_sys::Function,
    this: &JsValue,
    args: &[JsValue],
) -> Result<JsValue> {
    let array = js_sys::Array::new();
    for arg in args {
        array.push(arg);
    }
    let returned = function
        .apply(this, &array)
        .map_err(|e| host_error(what, &e))?;
    let is_thenable = returned.is_object()
        && js_sys::Reflect::get(&returned, &"then".into())
            .map(|t| t.is_function())
            .unwrap_or(false);
    if !is_thenable {
        return Ok(returned);
    }
    JsFuture::from(js_sys::Promise::resolve(&returned))
        .await
        .map_err(|e| host_error(what, &e))
}

/// A method of a host object, or `None` when absent.
pub(crate) fn method(object: &JsValue, name: &str) -> Option<js_sys::Function> {
    js_sys::Reflect::get(object, &JsValue::from_str(name))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
}

/// A language model given as `{ complete(request) }` or as a bare function `(request) => answer`.
/// The answer is a string or `{ text, usage?: { inputTokens, outputTokens } }`.
pub(crate) struct JsModel {
    this: JsValue,
    complete: js_sys::Function,
}

impl JsModel {
    /// Adapt a host value; `None` when it is neither a function nor an object with `complete`.
    pub(crate) fn from_js(value: &JsValue) -> Option<JsModel> {
        if let Some(function) = value.dyn_ref::<js_sys::Function>() {
            return Some(JsModel {
                this: JsValue::NULL,
                complete: function.clone(),
            });
        }
        if value.is_object() {
            return method(value, "complete").map(|complete| JsModel {
                this: value.clone(),
                complete,
            });
        }
        None
    }
}

fn usage_field(usage: &JsValue, name: &str) -> u64 {
    js_sys::Reflect::get(usage, &JsValue::from_str(name))
        .ok()
        .and_then(|v| v.as_f64())
        .filter(|n| n.is_finite() && *n >= 0.0)
        .map(|n| n as u64)
        .unwrap_or(0)
}

impl LanguageModel for JsModel {
    async fn complete(&self, request: &CompletionRequest) -> Result<Completion> {
        let serializer = serde_wasm_bindgen::Serializer::json_compatible();
        let js_request = serde::Serialize::serialize(request, &serializer)
            .map_err(|e| Error::new(ErrorCode::Internal, format!("model request: {e}")))?;
        let answer = call("model.complete", &self.complete, &self.this, &[js_request]).await?;
        if let Some(text) = answer.as_string() {
            return Ok(Completion { text, usage: None });
        }
        let text = js_sys::Reflect::get(&answer, &"text".into())
            .ok()
            .and_then(|t| t.as_string())
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::Host,
                    "model.complete must return a string or { text, usage? }",
                )
            })?;
        let usage = js_sys::Reflect::get(&answer, &"usage".into())
            .ok()
            .filter(|u| u.is_object())
            .map(|u| Usage {
                input_tokens: usage_field(&u, "inputTokens"),
                output_tokens: usage_field(&u, "outputTokens"),
            });
        Ok(Completion { text, usage })
    }
}

/// The host's clock: an optional `now()` returning a Date, an RFC 3339 string or milliseconds;
/// without one, the JS clock (`Date.now()`).
pub(crate) struct JsClock(pub Option<js_sys::Function>);

impl crate::host::Clock for JsClock {
    fn now(&self) -> chrono::DateTime<chrono::Utc> {
        let from_host = self.0.as_ref().and_then(|f| {
            let value = f.call0(&JsValue::NULL).ok()?;
            super::args::time("now", "now()", &value).ok()
        });
        // A host clock that throws or answers nonsense falls back to the JS clock: time must
        // never stop a write (the entry stays consistent either way).
        from_host.unwrap_or_else(|| {
            chrono::DateTime::from_timestamp_millis(js_sys::Date::now() as i64).unwrap_or_default()
        })
    }
}

/// The host's id source: an optional `newId()` returning a string; without one, 128 random bits
/// from `crypto.getRandomValues` as 32 hex digits.
pub(crate) struct JsIds(pub Option<js_sys::Function>);

impl crate::host::IdSource for JsIds {
    fn new_id(&self) -> String {
        if let Some(id) = self
            .0
            .as_ref()
            .and_then(|f| f.call0(&JsValue::NULL).ok())
            .and_then(|v| v.as_string())
            .filter(|s| !s.is_empty())
        {
            return id;
        }
        let mut bytes = [0u8; 16];
        if getrandom::fill(&mut bytes).is_err() {
            // No CSPRNG (never seen in Node, browsers or workerd): time + a counter stay unique
            // within this instance.
            let n = COUNTER.with(|c| {
                let next = c.get().wrapping_add(1);
                c.set(next);
                next
            });
            let t = js_sys::Date::now() as u64;
            bytes[..8].copy_from_slice(&t.to_be_bytes());
            bytes[8..].copy_from_slice(&n.to_be_bytes());
        }
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
}

thread_local! {
    static COUNTER: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}
