//! What `load` and `after_turn` resolve to (behaviour §1.7): outcomes as data, never errors for
//! expected failures.

use super::answers::GateDecision;
use crate::host::Usage;
use crate::profile::fit::FitReport;
use serde::Serialize;

crate::names::stable_names! {
    /// How a load ended. JSON: `"loaded" | "no-profile" | "disabled" | "no-memory"`.
    pub enum LoadOutcome {
        /// A profile was read (and fitted).
        Loaded = "loaded",
        /// The user has no profile yet.
        NoProfile = "no-profile",
        /// Memory is off for this turn; nothing was read.
        Disabled = "disabled",
        /// Memory could not be used (invalid id, storage error); the turn continues without it.
        NoMemory = "no-memory",
    }
}

/// The result of `load`. JSON:
/// `{ "profile": "…" | null, "systemPromptSection": "…", "fit": {…} | null, "version": "…" | null,
///    "outcome": "loaded", "reason": null }`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadResult {
    /// The fitted profile text (frontmatter included), `None` without a profile.
    pub profile: Option<String>,
    /// The system-prompt section to inject (empty → omit it).
    pub system_prompt_section: String,
    /// What fitting did, when a profile was read.
    pub fit: Option<FitReport>,
    /// The version token of the stored profile, when the host has versions.
    pub version: Option<String>,
    /// How the load ended.
    pub outcome: LoadOutcome,
    /// Why memory is not used (`no-memory`, `disabled`), with the error code when there is one.
    pub reason: Option<String>,
    /// The relevant entries, when `load` was asked for them (behaviour §8.2); their section is part
    /// of `system_prompt_section`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relevant: Option<crate::entries::relevant::Relevant>,
}

crate::names::stable_names! {
    /// How a turn ended (behaviour §1.7). JSON: `"disabled" | "no-memory" | "gate-noop" | "model-noop" |
    /// "unchanged" | "invalid-output" | "updated" | "write-failed" | "model-failed" | "restricted"`.
    pub enum TurnOutcome {
        /// Memory is off for this turn.
        Disabled = "disabled",
        /// Memory could not be used (invalid id, storage read error, token counter error).
        NoMemory = "no-memory",
        /// The gate said nothing is worth remembering.
        GateNoop = "gate-noop",
        /// The consolidation answered NOOP.
        ModelNoop = "model-noop",
        /// Nothing to write: a blank turn, a body equal to the current one, or a fit that gives
        /// back the stored text.
        Unchanged = "unchanged",
        /// The consolidation's answer was not a well-formed body.
        InvalidOutput = "invalid-output",
        /// The profile was rewritten.
        Updated = "updated",
        /// The write failed (storage error, or version conflicts beyond the retries); the old
        /// profile stays.
        WriteFailed = "write-failed",
        /// The consolidation call failed.
        ModelFailed = "model-failed",
        /// The user's processing is restricted (GDPR Art. 18, behaviour §4.3), or the flag could
        /// not be read: nothing was sent to the model or stored.
        Restricted = "restricted",
    }
}

/// Token usage per model call of a turn (consolidation usage summed over conflict retries).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnUsage {
    /// The gate call.
    pub gate: Option<Usage>,
    /// The consolidation call(s).
    pub consolidate: Option<Usage>,
    /// The condensing call while fitting, if one was made.
    pub condense: Option<Usage>,
}

/// Milliseconds measured with the host clock.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnTimings {
    /// The whole turn, lock wait included.
    pub total_ms: u64,
    /// The gate call.
    pub gate_ms: u64,
    /// The consolidation call(s).
    pub consolidate_ms: u64,
    /// The write(s).
    pub write_ms: u64,
}

/// The result of `after_turn`. JSON (camelCase):
/// `{ "outcome": "updated", "reason": null, "gate": "update", "gateError": null,
///    "usage": { "gate": {…}, "consolidate": {…}, "condense": null },
///    "timings": { "totalMs": 0, "gateMs": 0, "consolidateMs": 0, "writeMs": 0 },
///    "attempts": 1, "turnCount": 13, "tokens": 512, "redactedSecrets": 0 }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnReport {
    /// How the turn ended.
    pub outcome: TurnOutcome,
    /// Details: an error code and message, `blank-turn`, `version-conflict`, … Never content.
    pub reason: Option<String>,
    /// The gate's decision, when the gate ran (`update` also after failing open).
    pub gate: Option<GateDecision>,
    /// The gate's error when it failed open.
    pub gate_error: Option<String>,
    /// Usage of each model call.
    pub usage: TurnUsage,
    /// Timings.
    pub timings: TurnTimings,
    /// Consolidation calls made (more than one after version conflicts).
    pub attempts: u32,
    /// The profile's `turn_count` after the turn (incremented only by a real rewrite), when a
    /// profile was read or written.
    pub turn_count: Option<u64>,
    /// Tokens of the written profile (`updated`) or of the fitted candidate.
    pub tokens: Option<usize>,
    /// Credentials the `redact` policy replaced by `[redacted]` in the consolidation's answer
    /// (behaviour §8.1); 0 when there were none.
    pub redacted_secrets: usize,
    /// What the turn learned into entry memory (behaviour §8.6), when `ContextMemory` has `learn`
    /// and the gate let the turn through; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub learned: Option<crate::learn::LearnReport>,
}

impl TurnReport {
    /// A report with this outcome and nothing measured yet.
    pub(crate) fn new(outcome: TurnOutcome) -> Self {
        TurnReport {
            outcome,
            reason: None,
            gate: None,
            gate_error: None,
            usage: TurnUsage::default(),
            timings: TurnTimings::default(),
            attempts: 0,
            turn_count: None,
            tokens: None,
            redacted_secrets: 0,
            learned: None,
        }
    }
}
