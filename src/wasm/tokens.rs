//! Bindings for exact token counting (SPEC §1.4). Loaded tables live in a per-instance registry
//! (wasm is single-threaded); a host `countTokens` (through its JS adapter) can stand in for them.

use super::boundary::Call;
use super::host::{Adapter, Js};
use crate::error::{Error, ErrorCode, Result};
use crate::host::Remote;
use crate::host::TokenCounter;
use crate::profile::tokens::{Encoding, Tokenizer};
use serde::Deserialize;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

thread_local! {
    static TABLES: RefCell<Vec<Rc<Tokenizer>>> = const { RefCell::new(Vec::new()) };
}

/// The tokenizer for an encoding, when its table is loaded.
fn loaded(encoding: Encoding) -> Option<Rc<Tokenizer>> {
    TABLES.with(|t| {
        t.try_borrow()
            .ok()?
            .iter()
            .find(|tk| tk.encoding() == encoding)
            .cloned()
    })
}

/// Either a built-in table or a host callback.
pub(crate) enum Counter {
    /// A loaded table.
    Builtin(Rc<Tokenizer>),
    /// The host's callback.
    Host(Js),
}

impl TokenCounter for Counter {
    fn count(&self, text: &str) -> Result<usize> {
        match self {
            Counter::Builtin(t) => Ok(t.count(text)),
            Counter::Host(h) => h.count(text),
        }
    }
    fn count_within(&self, text: &str, limit: usize) -> Result<Option<usize>> {
        match self {
            Counter::Builtin(t) => Ok(t.count_up_to(text, limit)),
            Counter::Host(h) => h.count_within(text, limit),
        }
    }
}

/// An encoding name (`E_ARGUMENT` naming `argument` for an unknown one).
pub(crate) fn encoding(call: &Call, argument: &str, name: Option<&str>) -> Result<Encoding> {
    match name {
        None => Ok(Encoding::default()),
        Some(name) => Encoding::parse(name).map_err(|e| call.in_argument(argument, e)),
    }
}

/// The counter for a call: the host's `countTokens` adapter when given, else the loaded table of
/// the encoding (`E_NO_TOKENIZER` when it is not loaded).
pub(crate) fn counter(
    call: &Call,
    encoding_name: Option<&str>,
    host: Option<JsValue>,
) -> Result<Counter> {
    if let Some(adapter) = host {
        return Ok(Counter::Host(Remote(Adapter::new(adapter))));
    }
    let encoding = encoding(call, "options.encoding", encoding_name)?;
    loaded(encoding).map(Counter::Builtin).ok_or_else(|| {
        Error::new(
            ErrorCode::NoTokenizer,
            format!(
                "{}: no `{}` table is loaded and no countTokens callback was given; \
                 call loadTokenizer(bytes) (the default entries do it at start) or pass options.countTokens",
                call.0,
                encoding.name()
            ),
        )
    })
}

/// Load a rank table (`tokenizer/<encoding>.bin` of the package); returns its encoding name.
#[wasm_bindgen(js_name = loadTokenizer)]
pub fn load_tokenizer(bytes: Vec<u8>) -> Result<String> {
    let tokenizer =
        Tokenizer::from_table(bytes).map_err(|e| e.in_argument("loadTokenizer", "bytes"))?;
    let encoding = tokenizer.encoding();
    TABLES
        .with(|t| {
            let mut tables = t.try_borrow_mut().ok()?;
            tables.retain(|tk| tk.encoding() != encoding);
            tables.push(Rc::new(tokenizer));
            Some(())
        })
        .ok_or_else(|| Error::internal("tokenizer registry busy"))?;
    Ok(encoding.name().to_string())
}

/// Whether the table for an encoding is loaded.
#[wasm_bindgen(js_name = hasTokenizer)]
pub fn has_tokenizer(encoding_name: String) -> Result<bool> {
    let encoding = encoding(&Call("hasTokenizer"), "encoding", Some(&encoding_name))?;
    Ok(loaded(encoding).is_some())
}

/// The data part of a tokenizer option (`countTokens` itself arrives as an adapter).
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct TokenizerArgs {
    #[serde(default)]
    pub(crate) encoding: Option<String>,
}

/// Exact token count: `countTokens(text, { encoding?, countTokens? })`.
#[wasm_bindgen(js_name = countTokens)]
pub fn count_tokens(text: String, options: Option<String>, host: Option<JsValue>) -> Result<f64> {
    let call = Call("countTokens");
    let args: TokenizerArgs = call.options("options", options)?;
    let counter = counter(&call, args.encoding.as_deref(), host)?;
    Ok(counter.count(&text)? as f64)
}

/// Token ids (built-in tables only): `encodeTokens(text, { encoding? })`.
#[wasm_bindgen(js_name = encodeTokens)]
pub fn encode_tokens(text: String, options: Option<String>) -> Result<Vec<u32>> {
    let call = Call("encodeTokens");
    let args: TokenizerArgs = call.options("options", options)?;
    match counter(&call, args.encoding.as_deref(), None)? {
        Counter::Builtin(t) => Ok(t.encode(&text)),
        Counter::Host(_) => Err(Error::internal("encodeTokens got a host counter")),
    }
}
