//! Bindings for the profile format, injection, paths, enablement and editing (SPEC §1).

use super::args;
use super::errors::{to_js, JsResult};
use crate::error::Error;
use crate::profile::{self, Diagnostic, FrontmatterField, Profile, RootInfo};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

/// `parseProfile`'s result: the profile fields and the diagnostics side by side.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ParsedOut<'a> {
    #[serde(flatten)]
    profile: &'a Profile,
    diagnostics: &'a [Diagnostic],
}

fn js<T: Serialize>(value: &T) -> JsResult<JsValue> {
    args::to_js(value).map_err(to_js)
}

/// Lenient, total parse of a `memory.md` text.
#[wasm_bindgen(js_name = parseProfile)]
pub fn parse_profile(text: JsValue) -> JsResult<JsValue> {
    let text = args::string("parseProfile", "text", &text).map_err(to_js)?;
    let parsed = profile::parse_profile(&text);
    js(&ParsedOut {
        profile: &parsed.profile,
        diagnostics: &parsed.diagnostics,
    })
}

/// The canonical rendering of a profile object.
#[wasm_bindgen(js_name = renderProfile)]
pub fn render_profile(profile: JsValue) -> JsResult<String> {
    let profile: Profile = args::object("renderProfile", "profile", &profile).map_err(to_js)?;
    Ok(profile::render_profile(&profile))
}

/// A new, empty profile for a user.
#[wasm_bindgen(js_name = emptyProfile)]
pub fn empty_profile(user_id: JsValue, now: JsValue) -> JsResult<JsValue> {
    let user_id = args::string("emptyProfile", "userId", &user_id).map_err(to_js)?;
    let now = args::time("emptyProfile", "now", &now).map_err(to_js)?;
    profile::validate_user_id(&user_id).map_err(to_js)?;
    js(&profile::empty_profile(&user_id, now))
}

/// The text without its frontmatter.
#[wasm_bindgen(js_name = profileBody)]
pub fn profile_body(text: JsValue) -> JsResult<String> {
    let text = args::string("profileBody", "text", &text).map_err(to_js)?;
    Ok(profile::profile_body(&text))
}

/// SPEC §1.6 normalisation of a model answer.
#[wasm_bindgen(js_name = normaliseModelBody)]
pub fn normalise_model_body(text: JsValue) -> JsResult<String> {
    let text = args::string("normaliseModelBody", "text", &text).map_err(to_js)?;
    Ok(profile::normalise_model_body(&text))
}

/// The strict well-formedness check for model output (after normalisation).
#[wasm_bindgen(js_name = isWellFormedBody)]
pub fn is_well_formed_body(text: JsValue) -> JsResult<bool> {
    let text = args::string("isWellFormedBody", "text", &text).map_err(to_js)?;
    Ok(profile::is_well_formed_body(&text))
}

/// `assembleProfile(body, { userId, turnCount, now, extra? })`.
#[wasm_bindgen(js_name = assembleProfile)]
pub fn assemble_profile(body: JsValue, options: JsValue) -> JsResult<String> {
    const F: &str = "assembleProfile";
    let body = args::string(F, "body", &body).map_err(to_js)?;
    args::options_object(F, "options", &options).map_err(to_js)?;
    let user_id =
        args::string(F, "options.userId", &args::field(&options, "userId")).map_err(to_js)?;
    profile::validate_user_id(&user_id).map_err(to_js)?;
    let turn_count = args::field(&options, "turnCount");
    let turn_count = turn_count
        .as_f64()
        .filter(|n| {
            n.is_finite() && *n >= 0.0 && n.fract() == 0.0 && *n <= 9.007_199_254_740_991e15
        })
        .ok_or_else(|| {
            to_js(Error::argument(
                F,
                "options.turnCount",
                "a non-negative integer",
            ))
        })? as u64;
    let now = args::time(F, "options.now", &args::field(&options, "now")).map_err(to_js)?;
    let extra = args::field(&options, "extra");
    let extra: Vec<FrontmatterField> = if extra.is_undefined() || extra.is_null() {
        Vec::new()
    } else {
        serde_wasm_bindgen::from_value(extra).map_err(|e| {
            to_js(Error::argument(
                F,
                "options.extra",
                &format!("a list of {{ key, value }} ({e})"),
            ))
        })?
    };
    Ok(profile::assemble_profile(
        &body,
        &profile::AssembleOptions {
            user_id,
            turn_count,
            now,
            extra,
        },
    ))
}

/// The system-prompt section (`# What I know about you` …), or `""`.
#[wasm_bindgen(js_name = memorySystemPromptSection)]
pub fn memory_system_prompt_section(text: JsValue) -> JsResult<String> {
    if text.is_null() || text.is_undefined() {
        return Ok(String::new());
    }
    let text = args::string("memorySystemPromptSection", "text", &text).map_err(to_js)?;
    Ok(profile::memory_system_prompt_section(&text))
}

/// `<rootFolder>/<userId>/memory.md` for a validated id.
#[wasm_bindgen(js_name = memoryPath)]
pub fn memory_path(user_id: JsValue, root_folder: JsValue) -> JsResult<String> {
    let user_id = args::string("memoryPath", "userId", &user_id).map_err(to_js)?;
    let root = args::optional_string("memoryPath", "rootFolder", &root_folder).map_err(to_js)?;
    profile::memory_path(&user_id, root.as_deref()).map_err(to_js)
}

/// Duplicate active roots → a warning; otherwise `null`.
#[wasm_bindgen(js_name = checkMemoryRoots)]
pub fn check_memory_roots(roots: JsValue, configured_name: JsValue) -> JsResult<Option<String>> {
    const F: &str = "checkMemoryRoots";
    if !js_sys::Array::is_array(&roots) {
        return Err(to_js(Error::argument(
            F,
            "roots",
            "an array of { name, active, id? }",
        )));
    }
    let roots: Vec<RootInfo> = serde_wasm_bindgen::from_value(roots).map_err(|e| {
        to_js(Error::argument(
            F,
            "roots",
            &format!("an array of {{ name, active, id? }} ({e})"),
        ))
    })?;
    let name = args::optional_string(F, "configuredName", &configured_name).map_err(to_js)?;
    let name = name
        .as_deref()
        .unwrap_or(profile::paths::DEFAULT_ROOT_FOLDER);
    Ok(profile::check_memory_roots(&roots, name))
}

/// SPEC §1.8 effective enablement.
#[wasm_bindgen(js_name = resolveEnablement)]
pub fn resolve_enablement(inputs: JsValue) -> JsResult<JsValue> {
    let inputs: profile::EnablementInputs =
        args::object("resolveEnablement", "inputs", &inputs).map_err(to_js)?;
    js(&profile::resolve_enablement(&inputs))
}

/// The orchestrator rule: an absent `allowUserMemory` means disabled.
#[wasm_bindgen(js_name = orchestratorMemoryEnabled)]
pub fn orchestrator_memory_enabled(payload_value: JsValue) -> JsResult<bool> {
    let value = args::optional_bool("orchestratorMemoryEnabled", "payloadValue", &payload_value)
        .map_err(to_js)?;
    Ok(profile::orchestrator_memory_enabled(value))
}

/// The body the Settings editor shows (frontmatter hidden).
#[wasm_bindgen(js_name = editableBody)]
pub fn editable_body(text: JsValue) -> JsResult<String> {
    let text = args::string("editableBody", "text", &text).map_err(to_js)?;
    Ok(profile::editable_body(&text))
}

/// `getMyContextMemory`'s view of a stored text (`null` → no profile).
#[wasm_bindgen(js_name = memoryView)]
pub fn memory_view(stored: JsValue) -> JsResult<JsValue> {
    let stored = args::optional_string("memoryView", "stored", &stored).map_err(to_js)?;
    js(&profile::memory_view(stored.as_deref()))
}

/// Apply a user's edit: `{ text, diagnostics }`.
#[wasm_bindgen(js_name = applyUserEdit)]
pub fn apply_user_edit(existing: JsValue, body: JsValue, options: JsValue) -> JsResult<JsValue> {
    const F: &str = "applyUserEdit";
    let existing = args::optional_string(F, "existing", &existing).map_err(to_js)?;
    let body = args::string(F, "body", &body).map_err(to_js)?;
    args::options_object(F, "options", &options).map_err(to_js)?;
    let user_id =
        args::string(F, "options.userId", &args::field(&options, "userId")).map_err(to_js)?;
    let now = args::time(F, "options.now", &args::field(&options, "now")).map_err(to_js)?;
    let result = profile::apply_user_edit(
        existing.as_deref(),
        &body,
        &profile::EditOptions { user_id, now },
    )
    .map_err(to_js)?;
    js(&result)
}

/// Constants the JS layer re-exports (checked against the JS copies in the tests).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Constants {
    web_search_tooltip: String,
    memory_section_heading: String,
    section_headings: Vec<String>,
    max_edit_body_bytes: usize,
    updating_notice: String,
    truncation_marker: String,
}

/// Constants of the core, for the JS layer's tests.
#[wasm_bindgen(js_name = coreConstants)]
pub fn core_constants() -> JsResult<JsValue> {
    js(&Constants {
        web_search_tooltip: profile::WEB_SEARCH_TOOLTIP.to_string(),
        memory_section_heading: profile::inject::MEMORY_SECTION_HEADING.to_string(),
        section_headings: profile::SECTION_HEADINGS
            .iter()
            .map(|s| s.to_string())
            .collect(),
        max_edit_body_bytes: profile::MAX_EDIT_BODY_BYTES,
        updating_notice: crate::turn::UPDATING_NOTICE.to_string(),
        truncation_marker: profile::fit::TRUNCATION_MARKER.to_string(),
    })
}
