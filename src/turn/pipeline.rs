//! `ContextMemory` (SPEC §1.7, §1.9, §1.10): the profile pipeline over the host traits — load,
//! the settings functions, and (in [`super::after_turn`]) the post-answer turn.
//!
//! Decisions where SPEC is silent:
//! - **Load never calls the model.** Load sits on the path before the answer, so a profile over
//!   budget is fitted deterministically (duplicates, oldest topics, then hard truncation). The
//!   model condensing step runs only after a rewrite, off the answer's path. The fit is never
//!   written back (SPEC §1.3).
//! - **Settings edits and deletions take the same per-user lock as turns** and retry an edit on a
//!   version conflict (the user's body is re-applied onto the fresh frontmatter), so an edit made
//!   while a turn runs is not lost in this process.
//! - `delete_context_memory` answers whether a profile existed before it was removed.

use super::config::ContextMemoryConfig;
use super::lock::UserLocks;
use super::report::{LoadOutcome, LoadResult};
use crate::error::{Error, ErrorCode, Result};
use crate::host::{
    Clock, LanguageModel, LogEvent, LogLevel, Logger, Notifier, ProfileStore, TokenCounter,
    WriteOptions,
};
use crate::profile::edit::{apply_user_edit, memory_view, EditOptions, EditResult, MemoryView};
use crate::profile::fit::{fit_profile, FitOptions};
use crate::profile::inject::memory_system_prompt_section;
use crate::profile::paths::memory_path;
use crate::profile::MAX_EDIT_BODY_BYTES;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

/// The host side of a [`ContextMemory`]: storage, the model, the token counter (the same one at
/// load and after consolidation, SPEC §1.4), the clock, the notice sink and the log.
pub struct TurnHosts<S, M, T, C, N, L> {
    /// Profile storage.
    pub store: S,
    /// The language model (gate, consolidation, condensing).
    pub model: M,
    /// The token counter for the budget.
    pub counter: T,
    /// The only source of time.
    pub clock: C,
    /// Receives the update notice.
    pub notifier: N,
    /// Receives structured log events.
    pub logger: L,
}

/// Profile memory for one host setup. Generic over the host traits and without `Send` bounds
/// (wasm is single-threaded). One instance serialises turns of the same user; different users
/// run concurrently.
pub struct ContextMemory<S, M, T, C, N, L> {
    pub(crate) config: ContextMemoryConfig,
    pub(crate) hosts: TurnHosts<S, M, T, C, N, L>,
    pub(crate) locks: UserLocks,
}

impl<S, M, T, C, N, L> ContextMemory<S, M, T, C, N, L>
where
    S: ProfileStore,
    M: LanguageModel,
    T: TokenCounter,
    C: Clock,
    N: Notifier,
    L: Logger,
{
    /// A pipeline with a validated configuration (`E_CONFIG` naming the field otherwise).
    pub fn new(config: ContextMemoryConfig, hosts: TurnHosts<S, M, T, C, N, L>) -> Result<Self> {
        config.validate()?;
        Ok(ContextMemory {
            config,
            hosts,
            locks: UserLocks::default(),
        })
    }

    /// The configuration in use.
    pub fn config(&self) -> &ContextMemoryConfig {
        &self.config
    }

    /// The host objects (tests and hosts inspect their fakes and adapters through this).
    pub fn hosts(&self) -> &TurnHosts<S, M, T, C, N, L> {
        &self.hosts
    }

    /// Step 1 of a turn (SPEC §1.7): read the user's profile and fit it to budget for injection.
    /// Never fails: disabled memory reads nothing (`disabled`); an invalid id, a storage error or
    /// a counter error → `no-memory` with the reason; a missing file → `no-profile`. The fitted
    /// text is not written back.
    pub async fn load(&self, user_id: &str, enabled: bool) -> LoadResult {
        let mut result = LoadResult {
            profile: None,
            system_prompt_section: String::new(),
            fit: None,
            version: None,
            outcome: LoadOutcome::Disabled,
            reason: None,
        };
        if !enabled {
            result.reason = Some("memory is disabled for this turn".to_string());
            return result;
        }
        result.outcome = LoadOutcome::NoMemory;
        let path = match memory_path(user_id, Some(&self.config.root_folder)) {
            Ok(path) => path,
            Err(error) => {
                result.reason = Some(error.to_string());
                return result;
            }
        };
        let stored = match self.hosts.store.read(&path).await {
            Ok(Some(stored)) => stored,
            Ok(None) => {
                result.outcome = LoadOutcome::NoProfile;
                return result;
            }
            Err(error) => {
                self.log_error(LogLevel::Warn, "memory.load.failed", user_id, &error);
                result.reason = Some(format!("storage read failed: {error}"));
                return result;
            }
        };
        let options = FitOptions {
            max_tokens: self.config.max_tokens,
            use_model: false,
            now: None,
        };
        match fit_profile(&stored.text, &options, &self.hosts.counter, None::<&M>).await {
            Ok(fit) => {
                result.system_prompt_section = memory_system_prompt_section(&fit.text);
                result.profile = Some(fit.text.clone());
                result.fit = Some(fit);
                result.version = stored.version;
                result.outcome = LoadOutcome::Loaded;
            }
            Err(error) => {
                self.log_error(LogLevel::Warn, "memory.load.failed", user_id, &error);
                result.reason = Some(format!("token counting failed: {error}"));
            }
        }
        result
    }

    /// `getMyContextMemory` (SPEC §1.10): the read-only view; never creates anything.
    /// Errors: `E_INVALID_USER_ID`, the storage's error.
    pub async fn get_my_context_memory(&self, user_id: &str) -> Result<MemoryView> {
        let path = memory_path(user_id, Some(&self.config.root_folder))?;
        let stored = self.hosts.store.read(&path).await?;
        Ok(memory_view(stored.as_ref().map(|s| s.text.as_str())))
    }

    /// `updateMyContextMemory` (SPEC §1.10): save the user's edited body, keeping the stored
    /// frontmatter (a new profile gets `turn_count: 0`). Errors: `E_TOO_LARGE` over 1 MiB
    /// (nothing read or written), `E_INVALID_USER_ID`, the storage's error, `E_VERSION_CONFLICT`
    /// when a concurrent writer won every retry.
    pub async fn update_my_context_memory(&self, user_id: &str, body: &str) -> Result<EditResult> {
        if body.len() > MAX_EDIT_BODY_BYTES {
            let options = EditOptions {
                user_id: user_id.to_string(),
                now: self.hosts.clock.now(),
            };
            return apply_user_edit(None, body, &options);
        }
        let path = memory_path(user_id, Some(&self.config.root_folder))?;
        let _guard = self.locks.lock(user_id).await;
        let mut attempt = 0;
        loop {
            let stored = self.hosts.store.read(&path).await?;
            let options = EditOptions {
                user_id: user_id.to_string(),
                now: self.hosts.clock.now(),
            };
            let edit = apply_user_edit(stored.as_ref().map(|s| s.text.as_str()), body, &options)?;
            self.hosts
                .store
                .ensure_root(&self.config.root_folder)
                .await?;
            let version = stored.and_then(|s| s.version);
            match self
                .hosts
                .store
                .write(&path, &edit.text, &WriteOptions::profile(version))
                .await
            {
                Ok(_) => return Ok(edit),
                Err(error)
                    if error.code == ErrorCode::VersionConflict
                        && attempt < self.config.max_conflict_retries =>
                {
                    attempt += 1;
                    self.log_error(LogLevel::Warn, "memory.edit.conflict", user_id, &error);
                }
                Err(error) => return Err(error),
            }
        }
    }

    /// Delete the user's profile (`memory.md`); `true` when one existed. Opt-out is not
    /// deletion (SPEC §1.9): this is the explicit operation. Errors: `E_INVALID_USER_ID`, the
    /// storage's error.
    pub async fn delete_context_memory(&self, user_id: &str) -> Result<bool> {
        let path = memory_path(user_id, Some(&self.config.root_folder))?;
        let _guard = self.locks.lock(user_id).await;
        let existed = self.hosts.store.read(&path).await?.is_some();
        self.hosts.store.remove(&path).await?;
        Ok(existed)
    }

    /// Log one event with fields.
    pub(crate) fn log(
        &self,
        level: LogLevel,
        event: &str,
        user_id: &str,
        fields: Map<String, Value>,
    ) {
        self.hosts.logger.log(&LogEvent {
            level,
            event: event.to_string(),
            user_id: Some(user_id.to_string()),
            fields,
        });
    }

    /// Log an error's code and message (host error messages carry no profile content).
    pub(crate) fn log_error(&self, level: LogLevel, event: &str, user_id: &str, error: &Error) {
        let mut fields = Map::new();
        fields.insert("code".to_string(), Value::from(error.code.as_str()));
        fields.insert("message".to_string(), Value::from(error.message.as_str()));
        self.log(level, event, user_id, fields);
    }
}

/// Whole milliseconds from `start` to `end` (0 when the host clock went backwards).
pub(crate) fn ms_between(start: DateTime<Utc>, end: DateTime<Utc>) -> u64 {
    u64::try_from((end - start).num_milliseconds()).unwrap_or(0)
}

/// The current time as the prompts show it: `YYYY-MM-DD HH:MM UTC`. Written by hand: chrono's
/// strftime machinery costs ~5 KiB of wasm for this one format.
pub fn prompt_time(now: DateTime<Utc>) -> String {
    use chrono::{Datelike, Timelike};
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02} UTC",
        now.year(),
        now.month(),
        now.day(),
        now.hour(),
        now.minute()
    )
}
