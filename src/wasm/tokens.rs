//! Bindings for exact token counting (behaviour §1.4): the loaded tables live in the core's
//! [`registry`]; a host `countTokens` (through its JS adapter) can stand in for them.

use super::boundary::Call;
use super::host::{Adapter, Js};
use memcore::boundary::adapter::Remote;
use memcore::error::{Error, Result};
use memcore::host::TokenCounter;
use memcore::profile::tokens::{registry, Encoding};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

/// The counter of a call: a loaded table or the host's `countTokens` adapter.
pub(crate) type Counter = registry::Counter<Js>;

/// An encoding name (`E_ARGUMENT` naming `argument` for an unknown one).
pub(crate) fn encoding(call: &Call, argument: &str, name: Option<&str>) -> Result<Encoding> {
    match name {
        None => Ok(Encoding::default()),
        Some(name) => Encoding::parse(name).map_err(|e| call.in_argument(argument, e.into())),
    }
}

/// The counter for a call: the host's `countTokens` adapter when given, else the loaded table of
/// the encoding.
pub(crate) fn counter(
    call: &Call,
    encoding_name: Option<&str>,
    host: Option<JsValue>,
) -> Result<Counter> {
    let encoding = match host {
        Some(_) => Encoding::default(),
        None => encoding(call, "options.encoding", encoding_name)?,
    };
    Ok(Counter::for_call(
        call.0,
        encoding,
        host.map(|a| Remote(Adapter::new(a))),
    ))
}

/// Load a rank table (`tokenizer/<encoding>.bin` of the package); returns its encoding name.
#[wasm_bindgen(js_name = loadTokenizer)]
pub fn load_tokenizer(bytes: Vec<u8>) -> Result<String> {
    let encoding = registry::load(bytes).map_err(|e| e.in_argument("loadTokenizer", "bytes"))?;
    Ok(encoding.name().to_string())
}

/// Whether the table for an encoding is loaded.
#[wasm_bindgen(js_name = hasTokenizer)]
pub fn has_tokenizer(encoding_name: String) -> Result<bool> {
    let encoding = encoding(&Call("hasTokenizer"), "encoding", Some(&encoding_name))?;
    Ok(registry::loaded(encoding).is_some())
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
    match counter(&call, args.encoding.as_deref(), None)?.tokenizer()? {
        Some(t) => Ok(t.encode(&text)),
        None => Err(Error::internal("encodeTokens got a host counter")),
    }
}
