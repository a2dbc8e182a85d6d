//! The `ContextMemory` configuration (behaviour §1.4, §1.7, issue 4): every field optional,
//! validated with an `E_CONFIG` error that names the field path. Unknown keys are refused (a typo
//! such as `maxtokens` would otherwise silently keep the default).

use crate::error::{Error, Result};
use crate::profile::fit::{validate_max_tokens, DEFAULT_MAX_TOKENS};
use crate::profile::paths::{validate_root_folder, DEFAULT_ROOT_FOLDER};
use crate::profile::tokens::Encoding;
use crate::secrets::SecretPolicy;
use serde::{Deserialize, Serialize};

/// The default number of re-consolidations after a version conflict.
pub const DEFAULT_MAX_CONFLICT_RETRIES: u32 = 5;
/// The default smallest base of the conflict backoff, in ms.
pub const DEFAULT_CONFLICT_BACKOFF_MS: u64 = 100;
/// The largest accepted `conflictBackoffMs`.
pub const MAX_CONFLICT_BACKOFF_MS: u64 = 10_000;
/// The longest single backoff wait, in ms.
pub const MAX_BACKOFF_WAIT_MS: u64 = 30_000;

/// The largest accepted `maxConflictRetries`: each retry is a model call.
pub const MAX_CONFLICT_RETRIES_LIMIT: u32 = 20;
/// The longest accepted timeout of a host call: one hour.
pub const MAX_TIMEOUT_MS: u64 = 3_600_000;

/// Deadlines of the host calls of a turn (behaviour §1.7), in milliseconds, each 1–3,600,000. JSON:
/// `{ "modelMs": 60000, "storageMs": 10000, "noticeMs": 2000 }`, every field optional.
///
/// A call that misses its deadline is dropped (a model request is aborted through its
/// `AbortSignal`) and counts as a failure of that call: the gate fails open, a consolidation is
/// `model-failed`, a read is `no-memory`, a write is `write-failed`, a notice is logged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Timeouts {
    /// Each model call (gate, consolidation, condensing). Default 60 s.
    pub model_ms: u64,
    /// Each storage call (read, write, remove, ensureRoot). Default 10 s.
    pub storage_ms: u64,
    /// Each `onNotice` call. Default 2 s.
    pub notice_ms: u64,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            model_ms: 60_000,
            storage_ms: 10_000,
            notice_ms: 2_000,
        }
    }
}

/// Configuration of [`super::ContextMemory`]. JSON (all optional):
/// `{ "maxTokens": 2000, "gateEnabled": true, "rootFolder": "user-memory",
///    "encoding": "o200k_base", "reasoningModel": false, "maxConflictRetries": 5,
///    "conflictBackoffMs": 100,
///    "timeouts": { "modelMs": 60000, "storageMs": 10000, "noticeMs": 2000 },
///    "secrets": "redact", "learn": { "facts": true, "episodes": true, "agentId": "assistant" } }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ContextMemoryConfig {
    /// The profile budget in tokens, whole file counted (500–8000).
    pub max_tokens: usize,
    /// Whether the cheap UPDATE/NOOP gate runs before a consolidation.
    pub gate_enabled: bool,
    /// The storage root folder (not empty, no `..` segment).
    pub root_folder: String,
    /// The built-in encoding the host's counter is expected to match (`o200k_base` or
    /// `cl100k_base`); the counter itself is passed to [`super::ContextMemory::new`].
    pub encoding: String,
    /// The model thinks before answering: the gate gets 64 output tokens instead of 4.
    pub reasoning_model: bool,
    /// How often a turn re-reads and re-consolidates after losing a conditional write (0–20).
    pub max_conflict_retries: u32,
    /// The smallest base of the backoff before each such retry, in ms (0–10,000; 0 switches the
    /// backoff off and retries at once): retry `k` waits a random time in
    /// `[0, base × 2^(k−1)]` ("full jitter"), where `base` is this or, when longer, four times how long
    /// the attempt that lost took — writers whose turns take seconds (a model call) spread over
    /// seconds — at most 30 s, so writers that collided do not collide again in lockstep.
    pub conflict_backoff_ms: u64,
    /// Deadlines of the host calls.
    pub timeouts: Timeouts,
    /// What a profile body that holds a credential does (behaviour §8.1) — a consolidation's answer
    /// and a Settings edit: `redact` (default: each secret becomes `[redacted]`), `refuse` or
    /// `allow`.
    pub secrets: SecretPolicy,
    /// Learn entries from each turn whose gate answered UPDATE (behaviour §8.6); `None`: off.
    pub learn: Option<TurnLearning>,
}

/// `ContextMemory`'s `learn` option (behaviour §8.6): what a turn that passed the gate also learns
/// into the entry store (`hosts.entries`). JSON: `{ "facts": true, "episodes": true,
/// "agentId": "assistant", "config": { …userMemoryConfig } }`, every field optional.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct TurnLearning {
    /// Extract facts (default `true`).
    pub facts: bool,
    /// Keep the turn as episodes (default `true`).
    pub episodes: bool,
    /// The agent learned entries are written as (default `assistant`).
    pub agent_id: String,
    /// The `userMemoryConfig` of the learned entries (guardrails, caps, secrets, search, history,
    /// `learn`); default: every default.
    pub config: Option<serde_json::Value>,
}

/// The agent id of learned entries when `learn.agentId` names none.
pub const DEFAULT_LEARN_AGENT_ID: &str = "assistant";

impl Default for TurnLearning {
    fn default() -> Self {
        TurnLearning {
            facts: true,
            episodes: true,
            agent_id: DEFAULT_LEARN_AGENT_ID.to_string(),
            config: None,
        }
    }
}

impl Default for ContextMemoryConfig {
    fn default() -> Self {
        ContextMemoryConfig {
            max_tokens: DEFAULT_MAX_TOKENS,
            gate_enabled: true,
            root_folder: DEFAULT_ROOT_FOLDER.to_string(),
            encoding: Encoding::default().name().to_string(),
            reasoning_model: false,
            max_conflict_retries: DEFAULT_MAX_CONFLICT_RETRIES,
            conflict_backoff_ms: DEFAULT_CONFLICT_BACKOFF_MS,
            timeouts: Timeouts::default(),
            secrets: SecretPolicy::Redact,
            learn: None,
        }
    }
}

/// The wait before conflict retry `attempt` (1-based): uniform in `[0, min(base × 2^(attempt−1),
/// MAX_BACKOFF_WAIT_MS)]` for a `random` value in `[0, 2^64)`; `base` is the configured
/// `conflictBackoffMs` or the lost attempt's duration, whichever is longer (the caller's choice).
pub fn backoff_ms(base: u64, attempt: u32, random: u64) -> u64 {
    let ceiling = base
        .saturating_mul(1u64 << attempt.saturating_sub(1).min(20))
        .min(MAX_BACKOFF_WAIT_MS);
    random % ceiling.saturating_add(1)
}

impl ContextMemoryConfig {
    /// The `userMemoryConfig` of learned entries (`learn.config`, with `learn.facts` and
    /// `learn.episodes` of the option applied); `None` when learning is off. `E_CONFIG` names
    /// the field under `learn.config`.
    pub fn learn_config(&self) -> Result<Option<crate::entries::UserMemoryConfig>> {
        let Some(learn) = &self.learn else {
            return Ok(None);
        };
        // The profile-only core has no entry memory to learn into (`ContextMemory::new`
        // refuses `learn` there): it does not carry the configuration's parser either.
        #[cfg(not(feature = "entry-memory"))]
        if cfg!(not(feature = "entry-memory")) {
            let _ = learn;
            return Ok(Some(crate::entries::UserMemoryConfig::default()));
        }
        let mut config = match &learn.config {
            None => crate::entries::UserMemoryConfig::default(),
            Some(value) => {
                crate::entries::config::parse_user_memory_config(value).map_err(|e| {
                    let path = e
                        .details
                        .as_ref()
                        .and_then(|d| d.get("path")?.as_str().map(str::to_string))
                        .unwrap_or_default();
                    Error::config(&format!("learn.config.{path}"), e.message.clone())
                })?
            }
        };
        config.learn.facts = learn.facts;
        config.learn.episodes = learn.episodes;
        Ok(Some(config))
    }

    /// Check every field; the first problem is an `E_CONFIG` error naming its field path.
    pub fn validate(&self) -> Result<()> {
        validate_max_tokens(self.max_tokens)?;
        validate_root_folder(&self.root_folder)?;
        if Encoding::parse(&self.encoding).is_err() {
            return Err(Error::config(
                "encoding",
                format!(
                    "must be `o200k_base` or `cl100k_base`; got `{}`",
                    self.encoding
                ),
            ));
        }
        if self.max_conflict_retries > MAX_CONFLICT_RETRIES_LIMIT {
            return Err(Error::config(
                "maxConflictRetries",
                format!(
                    "must be between 0 and {MAX_CONFLICT_RETRIES_LIMIT} (default \
                     {DEFAULT_MAX_CONFLICT_RETRIES}); got {}",
                    self.max_conflict_retries
                ),
            ));
        }
        if self.conflict_backoff_ms > MAX_CONFLICT_BACKOFF_MS {
            return Err(Error::config(
                "conflictBackoffMs",
                format!(
                    "must be between 0 and {MAX_CONFLICT_BACKOFF_MS} (default \
                     {DEFAULT_CONFLICT_BACKOFF_MS}); got {}",
                    self.conflict_backoff_ms
                ),
            ));
        }
        if let Some(learn) = &self.learn {
            if learn.agent_id.trim().is_empty() {
                return Err(Error::config(
                    "learn.agentId",
                    "must be a non-empty agent id",
                ));
            }
            self.learn_config()?;
        }
        let t = &self.timeouts;
        for (path, ms) in [
            ("timeouts.modelMs", t.model_ms),
            ("timeouts.storageMs", t.storage_ms),
            ("timeouts.noticeMs", t.notice_ms),
        ] {
            if !(1..=MAX_TIMEOUT_MS).contains(&ms) {
                return Err(Error::config(
                    path,
                    format!("must be between 1 and {MAX_TIMEOUT_MS} milliseconds; got {ms}"),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_waits_grow_per_retry_within_the_cap() {
        let randoms = [0, 1, 7, u64::MAX / 3, u64::MAX];
        for attempt in 1..=25u32 {
            let ceiling = (100u64 << (attempt - 1).min(20)).min(MAX_BACKOFF_WAIT_MS);
            for random in randoms {
                assert!(
                    backoff_ms(100, attempt, random) <= ceiling,
                    "{attempt} {random}"
                );
            }
        }
        assert_eq!(backoff_ms(0, 3, 12345), 0);
        assert_eq!(backoff_ms(100, 1, 101), 0);
        assert_eq!(backoff_ms(100, 1, 100), 100);
        assert_eq!(
            backoff_ms(u64::MAX, 40, u64::MAX),
            u64::MAX % (MAX_BACKOFF_WAIT_MS + 1)
        );
    }
}
