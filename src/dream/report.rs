//! What one Dream run resolves to (behaviour §3 item 4): counts, the contradictions found, the
//! groups that were not consolidated and why, the model calls and their cost — and, when the run
//! was refused or could not finish, the reason as data.

use serde::Serialize;

crate::names::stable_names! {
    /// Why a group of entries was not consolidated. JSON: `"cost-limit" | "model-transient" | …`.
    pub enum SkipReason {
        /// `maxCostPerRun` was reached before this group's call (0 → no call at all).
        CostLimit = "cost-limit",
        /// The model failed transiently (timeout, network, 429, 5xx, overloaded); the next run
        /// tries again.
        ModelTransient = "model-transient",
        /// The model failed permanently (credentials, endpoint, model name): summarisation
        /// stopped for this run and the report carries the error.
        ModelError = "model-error",
        /// Not attempted: summarisation had stopped after a permanent model error.
        Stopped = "stopped",
        /// The answer held no JSON array with a usable `{ key, value }` entry.
        InvalidAnswer = "invalid-answer",
        /// The answer had as many entries as the group, or more: nothing was merged.
        NotSmaller = "not-smaller",
        /// A consolidated key would overwrite a memory outside the group.
        KeyCollision = "key-collision",
        /// A new entry's id already names a stored entry, or another user's kept history (the
        /// host's `newId` repeated itself).
        IdCollision = "id-collision",
        /// The answer only repeated originals verbatim and none of the others duplicated a
        /// kept value: nothing was merged.
        Verbatim = "verbatim",
        /// Writing the consolidated entries failed; what had been written was rolled back and
        /// no original of the group was deleted.
        WriteFailed = "write-failed",
        /// The answer held a credential and the secrets policy (`refuse`, or a key that is a
        /// secret) refused it: nothing of the group was written (behaviour §8.1).
        Secret = "secret",
    }
}

crate::names::stable_names! {
    /// Why a run was refused or did not finish. JSON: `"no-user" | "no-agent" | …`.
    pub enum DreamErrorCode {
        /// No real user id (absent, blank, or the scheduler's placeholder `system:scheduler`).
        NoUser = "no-user",
        /// No firing agent id.
        NoAgent = "no-agent",
        /// The agent's `dream.enabled` is false.
        Disabled = "disabled",
        /// The store could not list the user's entries (the restriction flag is unreadable, so
        /// nothing was done).
        StoreFailed = "store-failed",
        /// The model failed permanently; summarisation stopped, originals kept.
        ModelFailed = "model-failed",
    }
}

/// A refusal or a failure, as data. JSON: `{ "code": "disabled", "message": "…" }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DreamError {
    /// The stable code.
    pub code: DreamErrorCode,
    /// What happened and what to do.
    pub message: String,
}

/// Entries with one key and distinct values (key-based matching). JSON:
/// `{ "key": "language", "agents": ["agent-a", "agent-b"], "entryIds": ["e1", "e7"] }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Contradiction {
    /// The key.
    pub key: String,
    /// The agents that wrote the entries (sorted; entries without an agent name none).
    pub agents: Vec<String>,
    /// Every entry with the key (sorted).
    pub entry_ids: Vec<String>,
    /// `null`: entries that disagree now. An instant: a global entry whose value another agent
    /// changed then, found in the entry's history (behaviour §8.3) — `agents` are the two writers.
    pub overwritten_at: Option<String>,
}

/// One group that was not consolidated. JSON: `{ "group": "fact", "reason": "not-smaller" }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedGroup {
    /// The group's name (`fact`, `all`, `fact:agent-a`, …).
    pub group: String,
    /// Why.
    pub reason: SkipReason,
}

/// An original a consolidation meant to delete that stayed, because its delete failed: its fact
/// is now in the store twice (the original and the summary) until a later run. JSON:
/// `{ "group", "entryId", "code", "message" }` (the store's error, redacted).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeptOriginal {
    /// The group it belonged to.
    pub group: String,
    /// The original's id.
    pub entry_id: String,
    /// The store error's code.
    pub code: String,
    /// The store error's message, credentials redacted.
    pub message: String,
}

/// The report of one run. JSON (camelCase):
/// `{ "userId", "pruned", "contradictions", "summarized", "groupsSkipped", "calls",
///    "estimatedCostUsd", "durationMs", "restricted", "originalsKept", "error"? }` — `error` only
/// when the run was refused or did not finish.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DreamReport {
    /// The user the run was for, as given.
    pub user_id: Option<String>,
    /// Stale entries deleted.
    pub pruned: u64,
    /// Contradictions found (read-only).
    pub contradictions: Vec<Contradiction>,
    /// Net entries removed by consolidation (originals deleted minus new entries inserted).
    pub summarized: u64,
    /// Groups eligible for summarisation that were not consolidated.
    pub groups_skipped: Vec<SkippedGroup>,
    /// Model calls started.
    pub calls: u64,
    /// The cost of those calls in USD (reported usage × price, else the documented estimate).
    pub estimated_cost_usd: f64,
    /// Wall-clock duration of the run.
    pub duration_ms: u64,
    /// `true` when the user is under a processing restriction (behaviour §4.3) — or the flag could
    /// not be read — so nothing was done.
    pub restricted: bool,
    /// Originals whose delete failed after their group's summary was written (each names the
    /// group, the entry and the store's error).
    pub originals_kept: Vec<KeptOriginal>,
    /// Why the run was refused or stopped; absent when it finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<DreamError>,
}

impl DreamReport {
    /// A report for `user_id` that did nothing yet.
    pub fn for_user(user_id: Option<&str>) -> Self {
        DreamReport {
            user_id: user_id.map(str::to_string),
            ..DreamReport::default()
        }
    }

    /// Record a skipped group.
    pub(crate) fn skip(&mut self, group: &str, reason: SkipReason) {
        self.groups_skipped.push(SkippedGroup {
            group: group.to_string(),
            reason,
        });
    }
}
