//! Reading the gate's and the consolidation's answers (behaviour §1.6, §1.7 steps 4 and 5).

use crate::profile::format::SECTION_HEADINGS;
use crate::profile::normalise::{is_well_formed_body, normalise_model_body};
use serde::{Deserialize, Serialize};

/// The gate's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GateDecision {
    /// Run the consolidation.
    Update,
    /// Nothing to remember from this exchange.
    Noop,
}

/// Read a gate answer: trimmed and case-insensitive, anything that **starts with** `NOOP` is
/// [`GateDecision::Noop`] (so `noop.` and `NOOPE` too); everything else — `UPDATE`, empty, junk —
/// is [`GateDecision::Update`], because the gate fails open.
pub fn parse_gate_decision(raw: &str) -> GateDecision {
    let trimmed = raw.trim();
    let starts_with_noop = trimmed
        .get(..4)
        .is_some_and(|head| head.eq_ignore_ascii_case("NOOP"));
    if starts_with_noop {
        GateDecision::Noop
    } else {
        GateDecision::Update
    }
}

/// A read consolidation answer. JSON: `{ "kind": "noop" }`, `{ "kind": "body", "body": "…" }`,
/// `{ "kind": "invalid", "reason": "…" }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Consolidation {
    /// The model says nothing changes.
    Noop,
    /// A well-formed body, normalised (with the `# User Memory` title, one trailing newline).
    Body {
        /// The normalised body.
        body: String,
    },
    /// The answer is not a well-formed profile body; the current profile stays.
    Invalid {
        /// Why it was refused (no profile content in it, so it can be logged).
        reason: String,
    },
}

/// Read a consolidation answer: `NOOP` (trimmed, case-insensitive, optionally ending with one
/// `.`) → [`Consolidation::Noop`]; otherwise the behaviour §1.6 normalisation (code fence and
/// frontmatter dropped, title optional) and the strict well-formedness check.
pub fn parse_consolidation(raw: &str) -> Consolidation {
    let trimmed = raw.trim();
    let word = trimmed.strip_suffix('.').unwrap_or(trimmed);
    if word.eq_ignore_ascii_case("NOOP") {
        return Consolidation::Noop;
    }
    if trimmed.is_empty() {
        return Consolidation::Invalid {
            reason: "empty answer".to_string(),
        };
    }
    let body = normalise_model_body(raw);
    if is_well_formed_body(&body) {
        Consolidation::Body { body }
    } else {
        Consolidation::Invalid {
            reason: malformed_reason(&body),
        }
    }
}

/// A short reason naming which headings were wrong, without quoting any content.
fn malformed_reason(body: &str) -> String {
    let found: Vec<&str> = body
        .lines()
        .filter_map(|line| line.trim_end().strip_prefix("## "))
        .collect();
    let missing: Vec<&str> = SECTION_HEADINGS
        .iter()
        .copied()
        .filter(|heading| !found.contains(heading))
        .collect();
    let extra = found
        .iter()
        .filter(|heading| !SECTION_HEADINGS.contains(heading))
        .count();
    if !missing.is_empty() {
        format!(
            "not a well-formed profile body: missing section(s) {}",
            missing.join(", ")
        )
    } else if extra > 0 {
        format!("not a well-formed profile body: {extra} unexpected `##` heading(s)")
    } else if found.len() > SECTION_HEADINGS.len() {
        "not a well-formed profile body: a section appears more than once".to_string()
    } else {
        "not a well-formed profile body: sections out of order or text before the first section"
            .to_string()
    }
}
