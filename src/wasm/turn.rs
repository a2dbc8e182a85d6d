//! Bindings for the turn prompts and the reading of their answers (SPEC §1.7 steps 4–5).

use super::args;
use super::errors::{to_js, JsResult};
use crate::error::{Error, Result};
use crate::profile::fit::{
    build_condense_prompt, condense_target, validate_max_tokens, DEFAULT_MAX_TOKENS,
};
use crate::turn::{
    build_consolidation_prompt, build_gate_prompt, parse_consolidation, parse_gate_decision,
};
use wasm_bindgen::prelude::*;

/// `options.maxTokens` (default 2000, 500–8000 else `E_CONFIG`).
fn max_tokens(options: &JsValue) -> Result<usize> {
    let value = args::field(options, "maxTokens");
    if value.is_undefined() || value.is_null() {
        return Ok(DEFAULT_MAX_TOKENS);
    }
    let n = value
        .as_f64()
        .filter(|n| n.is_finite() && n.fract() == 0.0 && *n >= 0.0 && *n <= 1e12)
        .ok_or_else(|| Error::config("maxTokens", "must be an integer between 500 and 8000"))?;
    validate_max_tokens(n as usize)
}

/// `options.now` as `YYYY-MM-DD HH:MM UTC` (required by the consolidation prompt).
fn now_text(function: &str, options: &JsValue) -> Result<String> {
    let now = args::time(function, "options.now", &args::field(options, "now"))?;
    Ok(crate::turn::pipeline::prompt_time(now))
}

/// `buildGatePrompt(profileBody, userMessage, assistantMessage, { reasoningModel? })`.
#[wasm_bindgen(js_name = buildGatePrompt)]
pub fn gate_prompt(
    profile_body: JsValue,
    user_message: JsValue,
    assistant_message: JsValue,
    options: JsValue,
) -> JsResult<JsValue> {
    const F: &str = "buildGatePrompt";
    let run = || -> Result<JsValue> {
        let body = args::string(F, "profileBody", &profile_body)?;
        let user = args::string(F, "userMessage", &user_message)?;
        let assistant = args::string(F, "assistantMessage", &assistant_message)?;
        let reasoning = args::optional_bool(
            F,
            "options.reasoningModel",
            &args::field(&options, "reasoningModel"),
        )?;
        args::to_js(&build_gate_prompt(
            &body,
            &user,
            &assistant,
            reasoning.unwrap_or(false),
        ))
    };
    run().map_err(to_js)
}

/// `buildConsolidationPrompt(currentBody, userMessage, assistantMessage, { now, maxTokens? })`.
#[wasm_bindgen(js_name = buildConsolidationPrompt)]
pub fn consolidation_prompt(
    current_body: JsValue,
    user_message: JsValue,
    assistant_message: JsValue,
    options: JsValue,
) -> JsResult<JsValue> {
    const F: &str = "buildConsolidationPrompt";
    let run = || -> Result<JsValue> {
        let body = args::string(F, "currentBody", &current_body)?;
        let user = args::string(F, "userMessage", &user_message)?;
        let assistant = args::string(F, "assistantMessage", &assistant_message)?;
        args::options_object(F, "options", &options)?;
        let now = now_text(F, &options)?;
        let max = max_tokens(&options)?;
        args::to_js(&build_consolidation_prompt(
            &body, &user, &assistant, &now, max,
        ))
    };
    run().map_err(to_js)
}

/// `buildCondensePrompt(body, { maxTokens?, now? })` — toward `floor(0.9 × maxTokens)`.
#[wasm_bindgen(js_name = buildCondensePrompt)]
pub fn condense_prompt(body: JsValue, options: JsValue) -> JsResult<JsValue> {
    const F: &str = "buildCondensePrompt";
    let run = || -> Result<JsValue> {
        let body = args::string(F, "body", &body)?;
        let max = max_tokens(&options)?;
        let now = match args::field(&options, "now") {
            v if v.is_undefined() || v.is_null() => None,
            _ => Some(now_text(F, &options)?),
        };
        args::to_js(&build_condense_prompt(
            &body,
            condense_target(max),
            max,
            now.as_deref(),
        ))
    };
    run().map_err(to_js)
}

/// `parseGateDecision(raw)` → `"update"` or `"noop"`.
#[wasm_bindgen(js_name = parseGateDecision)]
pub fn gate_decision(raw: JsValue) -> JsResult<JsValue> {
    let raw = args::string("parseGateDecision", "raw", &raw).map_err(to_js)?;
    args::to_js(&parse_gate_decision(&raw)).map_err(to_js)
}

/// `parseConsolidation(raw)` → `{ kind: "noop" }`, `{ kind: "body", body }` or `{ kind: "invalid", reason }`.
#[wasm_bindgen(js_name = parseConsolidation)]
pub fn consolidation(raw: JsValue) -> JsResult<JsValue> {
    let raw = args::string("parseConsolidation", "raw", &raw).map_err(to_js)?;
    args::to_js(&parse_consolidation(&raw)).map_err(to_js)
}
