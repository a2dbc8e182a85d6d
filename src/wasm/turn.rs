//! Bindings for the turn prompts and the reading of their answers (behaviour §1.7 steps 4–5).

use super::boundary::{json_out, Call, Time};
use memcore::error::Result;
use memcore::profile::fit::{budget, build_condense_prompt_at};
use memcore::turn::{
    build_consolidation_prompt_at, build_gate_prompt, parse_consolidation, parse_gate_decision,
};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct GateArgs {
    #[serde(default)]
    reasoning_model: Option<bool>,
}

/// `buildGatePrompt(profileBody, userMessage, assistantMessage, { reasoningModel? })` (JSON).
#[wasm_bindgen(js_name = buildGatePrompt)]
pub fn gate_prompt(
    profile_body: String,
    user_message: String,
    assistant_message: String,
    options: Option<String>,
) -> Result<String> {
    let args: GateArgs = Call("buildGatePrompt").options("options", options)?;
    json_out(&build_gate_prompt(
        &profile_body,
        &user_message,
        &assistant_message,
        args.reasoning_model.unwrap_or(false),
    ))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ConsolidationArgs {
    now: Time,
    #[serde(default)]
    max_tokens: Option<serde_json::Value>,
}

/// `buildConsolidationPrompt(currentBody, userMessage, assistantMessage, { now, maxTokens? })`.
#[wasm_bindgen(js_name = buildConsolidationPrompt)]
pub fn consolidation_prompt(
    current_body: String,
    user_message: String,
    assistant_message: String,
    options: String,
) -> Result<String> {
    let args: ConsolidationArgs = Call("buildConsolidationPrompt").json("options", &options)?;
    json_out(&build_consolidation_prompt_at(
        &current_body,
        &user_message,
        &assistant_message,
        args.now.0,
        budget(args.max_tokens.as_ref())?,
    ))
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct CondenseArgs {
    #[serde(default)]
    max_tokens: Option<serde_json::Value>,
    #[serde(default)]
    now: Option<Time>,
}

/// `buildCondensePrompt(body, { maxTokens?, now? })` — toward `floor(0.9 × maxTokens)`.
#[wasm_bindgen(js_name = buildCondensePrompt)]
pub fn condense_prompt(body: String, options: Option<String>) -> Result<String> {
    let args: CondenseArgs = Call("buildCondensePrompt").options("options", options)?;
    let max = budget(args.max_tokens.as_ref())?;
    json_out(&build_condense_prompt_at(&body, max, args.now.map(|t| t.0)))
}

/// `parseGateDecision(raw)` → `"update"` or `"noop"` (JSON).
#[wasm_bindgen(js_name = parseGateDecision)]
pub fn gate_decision(raw: String) -> Result<String> {
    json_out(&parse_gate_decision(&raw))
}

/// `parseConsolidation(raw)` → `{ kind: "noop" }`, `{ kind: "body", body }` or
/// `{ kind: "invalid", reason }` (JSON).
#[wasm_bindgen(js_name = parseConsolidation)]
pub fn consolidation(raw: String) -> Result<String> {
    json_out(&parse_consolidation(&raw))
}
