//! Effective enablement (behaviour §1.8): whether memory is active for a turn, and why not.
//!
//! Decisions where the behaviour reference is silent:
//! - An absent or empty flag value is off, without a warning.
//! - A flag value is `true`/`false` (case-insensitive, trimmed) or a comma-separated list of
//!   company ids (trimmed). A list item that is empty or contains whitespace or quotes, and the
//!   boolean look-alikes `1 0 yes no on off enabled disabled`, make the value invalid: off, with a
//!   warning.
//! - The web-search override is read from the value the chat runtime (the service that runs
//!   turns) sees. When the admin UI's value is given and means something else for this company, a
//!   warning is reported and the override counts only if both allow it (privacy first).
//! - Inputs carry neutral names (a feature flag, a web-search override as the runtime and the admin
//!   UI see it, the space's and the user's settings); a host maps its own settings onto them. The
//!   override's first names, `nodeChat` and `adminApp`, are accepted as deprecated aliases.

use serde::{Deserialize, Serialize};

/// The admin UI tooltip on the disabled "Context memory" switch when web search is on.
pub const WEB_SEARCH_TOOLTIP: &str =
    "Context memory is unavailable while web search is enabled, to keep user data out of external search queries.";

/// The operator's web-search override (memory allowed together with web search): its value as
/// each service reads it, `true`/`false` or company ids.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AllowWithWebSearch {
    /// The value the chat runtime (the service that runs turns) reads; decides. `nodeChat` is a
    /// deprecated alias.
    #[serde(default, alias = "nodeChat")]
    pub runtime: Option<String>,
    /// The value the admin UI reads, when it reads its own; a disagreement is a warning and
    /// turns the override off. `adminApp` is a deprecated alias.
    #[serde(default, alias = "adminApp")]
    pub admin: Option<String>,
}

/// Everything the decision depends on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EnablementInputs {
    /// The company of the space.
    pub company_id: String,
    /// The feature flag value for the company (`true`/`false` or company ids).
    #[serde(default)]
    pub feature_flag: Option<String>,
    /// The space's "Context memory" setting; absent counts as on.
    #[serde(default)]
    pub space_setting: Option<bool>,
    /// Whether web search is enabled for the space.
    #[serde(default)]
    pub web_search_enabled: bool,
    /// The web-search override.
    #[serde(default)]
    pub allow_with_web_search: AllowWithWebSearch,
    /// The user's `allowUserMemory` preference; absent means allowed.
    #[serde(default)]
    pub user_allows_memory: Option<bool>,
}

crate::names::stable_names! {
    /// Why memory is or is not active for a turn: `enabled`, or the first failed condition.
    pub enum EnablementReason {
        /// Every condition holds.
        Enabled = "enabled",
        /// The `contextMemory` feature flag is off.
        FeatureFlagOff = "feature-flag-off",
        /// The space (or admin setting) disables memory.
        SpaceDisabled = "space-disabled",
        /// Web search is on and not overridden.
        WebSearchEnabled = "web-search-enabled",
        /// The user opted out (`allowUserMemory: false`).
        UserOptedOut = "user-opted-out",
    }
}

/// The decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Enablement {
    /// Memory is active for the turn (what the runtime passes on as the turn's `allowUserMemory`).
    pub enabled: bool,
    /// `enabled`, or the first failed condition.
    pub reason: EnablementReason,
    /// The admin UI switch tooltip ([`WEB_SEARCH_TOOLTIP`]) when web search is on and not
    /// overridden, whatever the other conditions say.
    pub tooltip: Option<String>,
    /// Configuration problems noticed on the way.
    pub warnings: Vec<EnablementWarning>,
}

crate::names::stable_names! {
    /// Which configuration problem an [`EnablementWarning`] reports.
    pub enum EnablementWarningCode {
        /// The feature flag is neither `true`, `false` nor a list of company ids.
        InvalidFeatureFlag = "invalid-feature-flag",
        /// A web-search override is neither `true`, `false` nor a list of company ids.
        InvalidWebSearchOverride = "invalid-web-search-override",
        /// The two services' web-search overrides disagree for the company.
        WebSearchOverrideMismatch = "web-search-override-mismatch",
    }
}

/// A configuration problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EnablementWarning {
    /// Which problem (a stable name).
    pub code: EnablementWarningCode,
    /// What is wrong and what to do.
    pub message: String,
}

/// Read a flag value for a company: `Ok(on)` or `Err(why it is invalid)`.
pub fn flag_enabled_for(value: Option<&str>, company_id: &str) -> Result<bool, String> {
    let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(false);
    };
    if value.eq_ignore_ascii_case("true") {
        return Ok(true);
    }
    if value.eq_ignore_ascii_case("false") {
        return Ok(false);
    }
    const LOOK_ALIKES: [&str; 8] = ["1", "0", "yes", "no", "on", "off", "enabled", "disabled"];
    if LOOK_ALIKES
        .iter()
        .any(|word| value.eq_ignore_ascii_case(word))
    {
        return Err(format!(
            "`{value}` is not `true`, `false` or a list of company ids"
        ));
    }
    let mut member = false;
    for item in value.split(',').map(str::trim) {
        if item.is_empty() || item.contains(|c: char| c.is_whitespace() || c == '"' || c == '\'') {
            return Err(format!(
                "`{value}` is not `true`, `false` or a comma-separated list of company ids"
            ));
        }
        member |= item == company_id;
    }
    Ok(member && !company_id.is_empty())
}

/// Decide whether memory is active, checking behaviour §1.8's conditions in order.
pub fn resolve_enablement(inputs: &EnablementInputs) -> Enablement {
    let mut warnings = Vec::new();
    let company = inputs.company_id.as_str();
    let flag_on = flag_enabled_for(inputs.feature_flag.as_deref(), company).unwrap_or_else(|why| {
        warnings.push(warning(
            EnablementWarningCode::InvalidFeatureFlag,
            format!("the feature flag: {why}; treated as off"),
        ));
        false
    });
    let mut read_override = |service: &str, value: Option<&str>| {
        flag_enabled_for(value, company).unwrap_or_else(|why| {
            warnings.push(warning(
                EnablementWarningCode::InvalidWebSearchOverride,
                format!("the web-search override ({service}'s value): {why}; treated as off"),
            ));
            false
        })
    };
    let runtime = read_override(
        "the runtime",
        inputs.allow_with_web_search.runtime.as_deref(),
    );
    let admin = inputs
        .allow_with_web_search
        .admin
        .as_deref()
        .map(|value| read_override("the admin UI", Some(value)));
    let override_on = match admin {
        Some(admin) if admin != runtime => {
            warnings.push(warning(
                EnablementWarningCode::WebSearchOverrideMismatch,
                format!(
                    "the web-search override means {} for the runtime but {} for the admin UI for \
                     this company; give both the same value (treated as off meanwhile)",
                    on_off(runtime),
                    on_off(admin)
                ),
            ));
            false
        }
        _ => runtime,
    };
    let web_search_blocks = inputs.web_search_enabled && !override_on;
    let reason = if !flag_on {
        EnablementReason::FeatureFlagOff
    } else if inputs.space_setting == Some(false) {
        EnablementReason::SpaceDisabled
    } else if web_search_blocks {
        EnablementReason::WebSearchEnabled
    } else if inputs.user_allows_memory == Some(false) {
        EnablementReason::UserOptedOut
    } else {
        EnablementReason::Enabled
    };
    Enablement {
        enabled: reason == EnablementReason::Enabled,
        reason,
        tooltip: web_search_blocks.then(|| WEB_SEARCH_TOOLTIP.to_string()),
        warnings,
    }
}

/// The orchestrator's reading of `space.allowUserMemory`: a payload without it means disabled.
pub fn orchestrator_memory_enabled(payload_value: Option<bool>) -> bool {
    payload_value.unwrap_or(false)
}

fn on_off(on: bool) -> &'static str {
    if on {
        "on"
    } else {
        "off"
    }
}

fn warning(code: EnablementWarningCode, message: String) -> EnablementWarning {
    EnablementWarning { code, message }
}
