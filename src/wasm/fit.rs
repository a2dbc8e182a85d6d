//! Bindings for budget fitting (SPEC §1.4, §1.5).

use super::args;
use super::errors::{to_js, JsResult};
use super::host::JsModel;
use super::tokens::counter_from_options;
use crate::error::Error;
use crate::profile::fit;
use wasm_bindgen::prelude::*;

/// A budget from JS: a non-negative integer.
fn budget(function: &str, name: &str, value: &JsValue) -> Result<usize, Error> {
    value
        .as_f64()
        .filter(|n| n.is_finite() && *n >= 0.0 && n.fract() == 0.0 && *n <= 1e12)
        .map(|n| n as usize)
        .ok_or_else(|| Error::argument(function, name, "a non-negative integer number of tokens"))
}

/// Check `(text, maxTokens, tokenizer?)`, run one budget step, convert its outcome.
fn budget_step<T: serde::Serialize>(
    function: &str,
    text: JsValue,
    max_tokens: JsValue,
    tokenizer: JsValue,
    step: impl FnOnce(&str, usize, &super::tokens::Counter) -> crate::error::Result<T>,
) -> JsResult<JsValue> {
    let text = args::string(function, "text", &text).map_err(to_js)?;
    let max_tokens = budget(function, "maxTokens", &max_tokens).map_err(to_js)?;
    let counter = counter_from_options(function, &tokenizer).map_err(to_js)?;
    let outcome = step(&text, max_tokens, &counter).map_err(to_js)?;
    args::to_js(&outcome).map_err(to_js)
}

/// The hard cut of SPEC §1.5: `enforceTokenCap(text, maxTokens, tokenizer?)`.
#[wasm_bindgen(js_name = enforceTokenCap)]
pub fn enforce_token_cap(
    text: JsValue,
    max_tokens: JsValue,
    tokenizer: JsValue,
) -> JsResult<JsValue> {
    budget_step("enforceTokenCap", text, max_tokens, tokenizer, |t, m, c| {
        fit::enforce_token_cap(t, m, c)
    })
}

/// Deterministic condensing toward `floor(0.9 × maxTokens)`: `condenseProfile(text, maxTokens, tokenizer?)`.
#[wasm_bindgen(js_name = condenseProfile)]
pub fn condense_profile(
    text: JsValue,
    max_tokens: JsValue,
    tokenizer: JsValue,
) -> JsResult<JsValue> {
    budget_step("condenseProfile", text, max_tokens, tokenizer, |t, m, c| {
        fit::condense_profile(t, m, c)
    })
}

/// `fitProfile(text, { maxTokens?, condense?, now?, encoding?, countTokens? })` → Promise of the report.
#[wasm_bindgen(js_name = fitProfile)]
pub async fn fit_profile(text: JsValue, options: JsValue) -> JsResult<JsValue> {
    const F: &str = "fitProfile";
    let text = args::string(F, "text", &text).map_err(to_js)?;
    let counter = counter_from_options(F, &options).map_err(to_js)?;
    let max_tokens = args::field(&options, "maxTokens");
    let max_tokens = if max_tokens.is_undefined() || max_tokens.is_null() {
        fit::DEFAULT_MAX_TOKENS
    } else {
        let n = max_tokens
            .as_f64()
            .filter(|n| n.is_finite() && n.fract() == 0.0 && *n >= 0.0 && *n <= 1e12)
            .ok_or_else(|| {
                to_js(Error::config(
                    "maxTokens",
                    "must be an integer between 500 and 8000",
                ))
            })?;
        n as usize
    };
    fit::validate_max_tokens(max_tokens).map_err(to_js)?;
    let condense = args::field(&options, "condense");
    let model = if condense.is_undefined() || condense.is_null() {
        None
    } else {
        Some(JsModel::from_js(&condense).ok_or_else(|| {
            to_js(Error::argument(
                F,
                "options.condense",
                "a function or an object with complete(request)",
            ))
        })?)
    };
    let now = match args::field(&options, "now") {
        v if v.is_undefined() || v.is_null() => None,
        v => Some(crate::turn::pipeline::prompt_time(
            args::time(F, "options.now", &v).map_err(to_js)?,
        )),
    };
    let fit_options = fit::FitOptions {
        max_tokens,
        use_model: model.is_some(),
        now,
    };
    let report = fit::fit_profile(&text, &fit_options, &counter, model.as_ref())
        .await
        .map_err(to_js)?;
    args::to_js(&report).map_err(to_js)
}
