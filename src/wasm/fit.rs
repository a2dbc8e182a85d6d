//! Bindings for budget fitting (behaviour §1.4, §1.5).

use super::boundary::{json_out, Call, Count, Time};
use super::host::Adapter;
use super::task::spawn;
use super::tokens::{counter, TokenizerArgs};
use memcore::boundary::adapter::Remote;
use memcore::error::Result;
use memcore::profile::fit;
use serde::Deserialize;
use wasm_bindgen::prelude::*;

/// `enforceTokenCap(text, maxTokens, tokenizer?)`: the hard cut of behaviour §1.5 (JSON).
#[wasm_bindgen(js_name = enforceTokenCap)]
pub fn enforce_token_cap(
    text: String,
    max_tokens: String,
    tokenizer: Option<String>,
    host_counter: Option<JsValue>,
) -> Result<String> {
    let call = Call("enforceTokenCap");
    let max: Count = call.json("maxTokens", &max_tokens)?;
    let args: TokenizerArgs = call.options("tokenizer", tokenizer)?;
    let counter = counter(&call, args.encoding.as_deref(), host_counter)?;
    json_out(&fit::enforce_token_cap(&text, to_usize(max), &counter)?)
}

/// `condenseProfile(text, maxTokens, tokenizer?)`: deterministic condensing toward
/// `floor(0.9 × maxTokens)` (JSON).
#[wasm_bindgen(js_name = condenseProfile)]
pub fn condense_profile(
    text: String,
    max_tokens: String,
    tokenizer: Option<String>,
    host_counter: Option<JsValue>,
) -> Result<String> {
    let call = Call("condenseProfile");
    let max: Count = call.json("maxTokens", &max_tokens)?;
    let args: TokenizerArgs = call.options("tokenizer", tokenizer)?;
    let counter = counter(&call, args.encoding.as_deref(), host_counter)?;
    json_out(&fit::condense_profile(&text, to_usize(max), &counter)?)
}

fn to_usize(count: Count) -> usize {
    usize::try_from(count.0).unwrap_or(usize::MAX)
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FitArgs {
    #[serde(default)]
    max_tokens: Option<serde_json::Value>,
    #[serde(default)]
    now: Option<Time>,
    #[serde(default)]
    encoding: Option<String>,
}

/// `fitProfile(text, { maxTokens?, condense?, now?, encoding?, countTokens? })` → task of the
/// report (JSON).
#[wasm_bindgen(js_name = fitProfile)]
pub fn fit_profile(
    text: String,
    options: Option<String>,
    host_counter: Option<JsValue>,
    condense: Option<JsValue>,
) -> Result<u32> {
    let call = Call("fitProfile");
    let args: FitArgs = call.options("options", options)?;
    let counter = counter(&call, args.encoding.as_deref(), host_counter)?;
    let options = fit::FitOptions::at(
        fit::budget(args.max_tokens.as_ref())?,
        condense.is_some(),
        args.now.map(|t| t.0),
    );
    let model = condense.map(|adapter| Remote(Adapter::new(adapter)));
    spawn(async move {
        let report = fit::fit_profile(&text, &options, &counter, model.as_ref()).await?;
        json_out(&report)
    })
}
