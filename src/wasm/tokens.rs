//! Bindings for exact token counting (SPEC §1.4). Loaded tables live in a per-instance registry
//! (wasm is single-threaded); a host `countTokens` callback can stand in for them.

use super::args;
use super::errors::{to_js, JsResult};
use crate::error::{Error, ErrorCode, Result};
use crate::host::TokenCounter;
use crate::profile::tokens::{Encoding, Tokenizer};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

thread_local! {
    static TABLES: RefCell<Vec<Rc<Tokenizer>>> = const { RefCell::new(Vec::new()) };
}

/// The tokenizer for an encoding, when its table is loaded.
pub(crate) fn loaded(encoding: Encoding) -> Option<Rc<Tokenizer>> {
    TABLES.with(|t| {
        t.try_borrow()
            .ok()?
            .iter()
            .find(|tk| tk.encoding() == encoding)
            .cloned()
    })
}

/// A host `countTokens(text) → number` callback. It must be synchronous: counting is CPU-bound
/// and the budget functions call it line by line.
pub(crate) struct HostCounter(pub js_sys::Function);

impl TokenCounter for HostCounter {
    fn count(&self, text: &str) -> Result<usize> {
        let value = self
            .0
            .call1(&JsValue::NULL, &JsValue::from_str(text))
            .map_err(|e| {
                let message = e
                    .dyn_ref::<js_sys::Error>()
                    .map(|e| String::from(e.message()))
                    .or_else(|| e.as_string())
                    .unwrap_or_else(|| "it threw".into());
                Error::new(ErrorCode::Host, format!("countTokens failed: {message}"))
            })?;
        if value.has_type::<js_sys::Promise>() {
            return Err(Error::new(
                ErrorCode::Host,
                "countTokens returned a Promise; the token counter must be synchronous",
            ));
        }
        value
            .as_f64()
            .filter(|n| n.is_finite() && *n >= 0.0 && n.fract() == 0.0)
            .map(|n| n as usize)
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::Host,
                    "countTokens must return a non-negative integer",
                )
            })
    }
}

/// Either a built-in table or a host callback.
pub(crate) enum Counter {
    /// A loaded table.
    Builtin(Rc<Tokenizer>),
    /// The host's callback.
    Host(HostCounter),
}

impl TokenCounter for Counter {
    fn count(&self, text: &str) -> Result<usize> {
        match self {
            Counter::Builtin(t) => Ok(t.count(text)),
            Counter::Host(h) => h.count(text),
        }
    }
}

/// Resolve the counter from an options object `{ encoding?, countTokens? }`, a bare counting
/// function, or `undefined` (the default encoding's table).
pub(crate) fn counter_from_options(function: &str, options: &JsValue) -> Result<Counter> {
    if let Some(callback) = options.dyn_ref::<js_sys::Function>() {
        return Ok(Counter::Host(HostCounter(callback.clone())));
    }
    if !(options.is_undefined() || options.is_null()) {
        args::options_object(function, "options", options)?;
    }
    let callback = args::field(options, "countTokens");
    if !(callback.is_undefined() || callback.is_null()) {
        return match callback.dyn_into::<js_sys::Function>() {
            Ok(f) => Ok(Counter::Host(HostCounter(f))),
            Err(_) => Err(Error::argument(
                function,
                "options.countTokens",
                "a function",
            )),
        };
    }
    let name = args::optional_string(
        function,
        "options.encoding",
        &args::field(options, "encoding"),
    )?;
    let encoding = match name {
        Some(name) => Encoding::parse(&name).map_err(|e| {
            Error::new(
                ErrorCode::Argument,
                format!("{function}: options.encoding: {}", e.message),
            )
            .with_details(
                serde_json::json!({ "function": function, "argument": "options.encoding" }),
            )
        })?,
        None => Encoding::default(),
    };
    loaded(encoding).map(Counter::Builtin).ok_or_else(|| {
        Error::new(
            ErrorCode::NoTokenizer,
            format!(
                "{function}: no `{}` table is loaded and no countTokens callback was given; \
                 call loadTokenizer(bytes) (the default entries do it at start) or pass options.countTokens",
                encoding.name()
            ),
        )
    })
}

/// Load a rank table (`tokenizer/<encoding>.bin` of the package); returns its encoding name.
#[wasm_bindgen(js_name = loadTokenizer)]
pub fn load_tokenizer(bytes: JsValue) -> JsResult<String> {
    let bytes = if let Some(array) = bytes.dyn_ref::<js_sys::Uint8Array>() {
        array.to_vec()
    } else if let Some(buffer) = bytes.dyn_ref::<js_sys::ArrayBuffer>() {
        js_sys::Uint8Array::new(buffer).to_vec()
    } else {
        return Err(to_js(Error::argument(
            "loadTokenizer",
            "bytes",
            "a Uint8Array or ArrayBuffer with a tokenizer table",
        )));
    };
    let tokenizer =
        Tokenizer::from_table(bytes).map_err(|e| to_js(e.in_argument("loadTokenizer", "bytes")))?;
    let encoding = tokenizer.encoding();
    TABLES
        .with(|t| {
            let mut tables = t.try_borrow_mut().ok()?;
            tables.retain(|tk| tk.encoding() != encoding);
            tables.push(Rc::new(tokenizer));
            Some(())
        })
        .ok_or_else(|| to_js(Error::new(ErrorCode::Internal, "tokenizer registry busy")))?;
    Ok(encoding.name().to_string())
}

/// Whether the table for an encoding is loaded.
#[wasm_bindgen(js_name = hasTokenizer)]
pub fn has_tokenizer(encoding: JsValue) -> JsResult<bool> {
    let name = args::string("hasTokenizer", "encoding", &encoding).map_err(to_js)?;
    let encoding =
        Encoding::parse(&name).map_err(|e| to_js(e.in_argument("hasTokenizer", "encoding")))?;
    Ok(loaded(encoding).is_some())
}

/// Exact token count: `countTokens(text, { encoding?, countTokens? })`.
#[wasm_bindgen(js_name = countTokens)]
pub fn count_tokens(text: JsValue, options: JsValue) -> JsResult<u32> {
    let text = args::string("countTokens", "text", &text).map_err(to_js)?;
    let counter = counter_from_options("countTokens", &options).map_err(to_js)?;
    counter.count(&text).map(|n| n as u32).map_err(to_js)
}

/// Token ids (built-in tables only): `encodeTokens(text, { encoding? })`.
#[wasm_bindgen(js_name = encodeTokens)]
pub fn encode_tokens(text: JsValue, options: JsValue) -> JsResult<Vec<u32>> {
    let text = args::string("encodeTokens", "text", &text).map_err(to_js)?;
    match counter_from_options("encodeTokens", &options).map_err(to_js)? {
        Counter::Builtin(t) => Ok(t.encode(&text)),
        Counter::Host(_) => Err(to_js(Error::argument(
            "encodeTokens",
            "options.countTokens",
            "absent: token ids need a built-in table",
        ))),
    }
}
