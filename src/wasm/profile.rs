//! Bindings for the profile format, injection, paths, enablement and editing (SPEC §1).

use super::boundary::{json_out, Call, Count, Time};
use crate::error::Result;
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

/// Lenient, total parse of a `memory.md` text (JSON).
#[wasm_bindgen(js_name = parseProfile)]
pub fn parse_profile(text: String) -> Result<String> {
    let parsed = profile::parse_profile(&text);
    json_out(&ParsedOut {
        profile: &parsed.profile,
        diagnostics: &parsed.diagnostics,
    })
}

/// The canonical rendering of a profile object.
#[wasm_bindgen(js_name = renderProfile)]
pub fn render_profile(profile: String) -> Result<String> {
    let profile: Profile = Call("renderProfile").json("profile", &profile)?;
    Ok(profile::render_profile(&profile))
}

/// A new, empty profile for a user (JSON).
#[wasm_bindgen(js_name = emptyProfile)]
pub fn empty_profile(user_id: String, now: String) -> Result<String> {
    let now: Time = Call("emptyProfile").json("now", &now)?;
    json_out(&profile::empty_profile(&user_id, now.0)?)
}

/// The text without its frontmatter.
#[wasm_bindgen(js_name = profileBody)]
pub fn profile_body(text: String) -> String {
    profile::profile_body(&text)
}

/// SPEC §1.6 normalisation of a model answer.
#[wasm_bindgen(js_name = normaliseModelBody)]
pub fn normalise_model_body(text: String) -> String {
    profile::normalise_model_body(&text)
}

/// The strict well-formedness check for model output (after normalisation).
#[wasm_bindgen(js_name = isWellFormedBody)]
pub fn is_well_formed_body(text: String) -> bool {
    profile::is_well_formed_body(&text)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct AssembleArgs {
    user_id: String,
    turn_count: Count,
    now: Time,
    #[serde(default)]
    extra: Option<Vec<FrontmatterField>>,
}

/// `assembleProfile(body, { userId, turnCount, now, extra? })`.
#[wasm_bindgen(js_name = assembleProfile)]
pub fn assemble_profile(body: String, options: String) -> Result<String> {
    let options: AssembleArgs = Call("assembleProfile").json("options", &options)?;
    profile::assemble_profile(
        &body,
        &profile::AssembleOptions {
            user_id: options.user_id,
            turn_count: options.turn_count.0,
            now: options.now.0,
            extra: options.extra.unwrap_or_default(),
        },
    )
}

/// The system-prompt section (`# What I know about you` …), or `""`.
#[wasm_bindgen(js_name = memorySystemPromptSection)]
pub fn memory_system_prompt_section(text: Option<String>) -> String {
    text.map(|t| profile::memory_system_prompt_section(&t))
        .unwrap_or_default()
}

/// `<rootFolder>/<userId>/memory.md` for a validated id.
#[wasm_bindgen(js_name = memoryPath)]
pub fn memory_path(user_id: String, root_folder: Option<String>) -> Result<String> {
    profile::memory_path(&user_id, root_folder.as_deref())
}

/// Duplicate active roots → a warning; otherwise `null`.
#[wasm_bindgen(js_name = checkMemoryRoots)]
pub fn check_memory_roots(
    roots: String,
    configured_name: Option<String>,
) -> Result<Option<String>> {
    let roots: Vec<RootInfo> = Call("checkMemoryRoots").json("roots", &roots)?;
    let name = configured_name.as_deref();
    Ok(profile::check_memory_roots(
        &roots,
        name.unwrap_or(profile::paths::DEFAULT_ROOT_FOLDER),
    ))
}

/// SPEC §1.8 effective enablement (JSON).
#[wasm_bindgen(js_name = resolveEnablement)]
pub fn resolve_enablement(inputs: String) -> Result<String> {
    let inputs: profile::EnablementInputs = Call("resolveEnablement").json("inputs", &inputs)?;
    json_out(&profile::resolve_enablement(&inputs))
}

/// The orchestrator rule: an absent `allowUserMemory` means disabled.
#[wasm_bindgen(js_name = orchestratorMemoryEnabled)]
pub fn orchestrator_memory_enabled(payload_value: Option<String>) -> Result<bool> {
    let value: Option<bool> =
        Call("orchestratorMemoryEnabled").optional("payloadValue", payload_value)?;
    Ok(profile::orchestrator_memory_enabled(value))
}

/// The body the Settings editor shows (frontmatter hidden).
#[wasm_bindgen(js_name = editableBody)]
pub fn editable_body(text: String) -> String {
    profile::editable_body(&text)
}

/// `getMyContextMemory`'s view of a stored text (`null` → no profile), JSON.
#[wasm_bindgen(js_name = memoryView)]
pub fn memory_view(stored: Option<String>) -> Result<String> {
    json_out(&profile::memory_view(stored.as_deref()))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct EditArgs {
    user_id: String,
    now: Time,
}

/// Apply a user's edit: `{ text, diagnostics }` (JSON).
#[wasm_bindgen(js_name = applyUserEdit)]
pub fn apply_user_edit(existing: Option<String>, body: String, options: String) -> Result<String> {
    let options: EditArgs = Call("applyUserEdit").json("options", &options)?;
    json_out(&profile::apply_user_edit(
        existing.as_deref(),
        &body,
        &profile::EditOptions {
            user_id: options.user_id,
            now: options.now.0,
        },
    )?)
}
