//! `ContextMemory` (behaviour §1.7, §1.9, §1.10): the profile pipeline over the host traits — load,
//! the settings functions, and (in [`super::after_turn`]) the post-answer turn.
//!
//! Decisions where the behaviour reference is silent:
//! - **Load never calls the model.** Load sits on the path before the answer, so a profile over
//!   budget is fitted deterministically (duplicates, oldest topics, then hard truncation). The
//!   model condensing step runs only after a rewrite, off the answer's path. The fit is never
//!   written back (behaviour §1.3).
//! - **Settings edits take the same per-user lock as turns** and retry an edit on a version
//!   conflict (the user's body is re-applied onto the fresh frontmatter), so an edit made while a
//!   turn runs is not lost in this process. Every host call has a deadline, so the wait is bounded.
//! - **A deletion never waits** behind a turn (behaviour §1.7): `delete_context_memory` takes no
//!   lock. It marks the user as deleted for the turns running in this instance, which then write
//!   nothing (outcome `write-failed`, reason `profile-deleted`); a turn in another process loses
//!   its conditional write and, re-reading, finds the profile gone — it does not re-create it.
//!   `delete_context_memory` answers whether a profile existed before it was removed.
//! - The model is optional: `load` and the Settings functions never use it; `after_turn` without
//!   one is misuse (`E_CONFIG`, `hosts.model`).

use super::config::ContextMemoryConfig;
use super::report::{LoadOutcome, LoadResult};
use crate::entries::relevant::relevant_memories;
use crate::entries::store::{
    AtomicWrites, EpisodeStore, HistoryStore, InProcess, PushDown, VectorStore,
};
use crate::entries::store::{CapWrite, EntrySet, OwnQuery, RecallQuery};
use crate::entries::{Entry, EntryStore};
use crate::error::{Error, ErrorCode, Result};
use crate::host::{
    Clock, Host, Hosts, LanguageModel, LogEvent, LogLevel, Logger, NoModel, Notifier, ProfileStore,
    Timed, Timer, TokenCounter, WriteOptions,
};
use crate::lock::UserLocks;
use crate::profile::edit::{apply_user_edit, memory_view, EditOptions, EditResult, MemoryView};
use crate::profile::fit::{fit_profile, FitOptions};
use crate::profile::inject::memory_system_prompt_section;
use crate::profile::paths::memory_path;
use crate::profile::MAX_EDIT_BODY_BYTES;
use crate::rights::profile as profile_rights;
use crate::rights::{ProfileErasure, ProfileRights};
use crate::secrets::{error_text, guard_profile, ProfileGuard};
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::HashMap;

/// What `load` needs. JSON: `{ "userId", "enabled" }`. An absent (or `null`) `enabled` is off
/// (behaviour §1.8: a payload without the flag is off) and is reported as `reason:
/// "enabled-missing"` so that a host that forgot to pass it sees why memory never loads.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LoadInput {
    /// The authenticated user's id.
    pub user_id: String,
    /// Whether memory is effectively enabled for this turn; `None` when the caller left it out.
    #[serde(default)]
    pub enabled: Option<bool>,
    /// The entries relevant to this turn's message, to inject beside the profile (behaviour §8.2).
    #[serde(default)]
    pub entries: Option<LoadEntries>,
}

/// `load`'s `entries`: the relevant entries of the host's entry store ([`TurnHost::entries`]) that
/// an agent sees, within their own budget ([`crate::entries::relevant::RelevantRequest`]).
pub use crate::entries::relevant::RelevantRequest as LoadEntries;

/// The reason of a `disabled` outcome whose input had no `enabled` flag.
pub const ENABLED_MISSING: &str = "enabled-missing";

/// The host side of a [`ContextMemory`]: profile storage, the token counter (the same one at load
/// and after consolidation, behaviour §1.4) and the notice sink, which only the turn has, and
/// the parts every operation holds the same way ([`crate::host::Hosts`]): the entry store, the
/// model, the [`Host`] (clock, ids, timer, log, embedder) and the embedder's configuration. One
/// implementation per host setup: the wasm binding's over the JS adapter, the native tests' over
/// their fakes. The accessors hand out the host objects; the pipeline wraps each call in its
/// deadline itself.
pub trait TurnHost {
    /// Profile storage.
    type Store: ProfileStore;
    /// The language model (gate, consolidation, condensing, learning).
    type Model: LanguageModel;
    /// The token counter for the budget.
    type Counter: TokenCounter;
    /// Receives the update notice.
    type Notifier: Notifier;
    /// The user's entry store ([`NoEntries`] for a host without one).
    type Entries: EntryStore;
    /// The clock (the only source of time), ids of learned entries, the timer that decides when
    /// a host call has missed its deadline ([`crate::host::NoTimer`]: never), the log and the
    /// embedder ([`crate::host::NoEmbedder`] for a host without one).
    type Host: Host;

    /// Profile storage.
    fn store(&self) -> &Self::Store;
    /// The user's entry store, when the host has one: `after_turn` reads the Art. 18 processing
    /// restriction there (behaviour §4.3) and stores nothing while it is set. `None`: no check.
    fn entries(&self) -> Option<&Self::Entries>;
    /// The embedder's configuration, when the host has an embedder (`load`'s relevant entries
    /// rank by meaning with it, behaviour §8.2).
    fn embedder(&self) -> Option<&crate::entries::embedding::EmbedderSpec>;
    /// The language model; only `after_turn` needs it (`None`: `after_turn` is `E_CONFIG`).
    fn model(&self) -> Option<&Self::Model>;
    /// The token counter.
    fn counter(&self) -> &Self::Counter;
    /// The notice sink.
    fn notifier(&self) -> &Self::Notifier;
    /// The clock, ids, timer, log and embedder.
    fn host(&self) -> &Self::Host;
}

/// Profile memory for one host setup. Generic over the host ([`TurnHost`]) and without `Send`
/// bounds (wasm is single-threaded). One instance serialises turns of the same user; different
/// users run concurrently.
pub struct ContextMemory<H> {
    pub(crate) config: ContextMemoryConfig,
    pub(crate) hosts: H,
    pub(crate) locks: UserLocks,
    /// Per user, how many deletions this instance has started: a turn that sees the count change
    /// while it runs writes nothing (the deletion wins).
    deletions: RefCell<HashMap<String, u64>>,
    /// Whether the "restriction cannot be checked" warning was logged (once per instance).
    pub(crate) warned_unchecked: std::cell::Cell<bool>,
    /// The state of the backoff's jitter (xorshift64*; the core has no randomness of its own:
    /// the binding seeds it from the host, tests with a fixed value).
    jitter: std::cell::Cell<u64>,
    /// The `userMemoryConfig` of learned entries, when `learn` is on (`super::learning`).
    #[cfg_attr(not(feature = "entry-memory"), allow(dead_code))]
    pub(crate) learning: Option<crate::entries::UserMemoryConfig>,
}

impl<H: TurnHost> ContextMemory<H> {
    /// A pipeline with a validated configuration (`E_CONFIG` naming the field otherwise).
    /// `learn` needs an entry store (`E_CONFIG`, path `hosts.entries`).
    pub fn new(config: ContextMemoryConfig, hosts: H) -> Result<Self> {
        config.validate()?;
        let learning = config.learn_config()?;
        if learning.is_some() && !cfg!(feature = "entry-memory") {
            return Err(Error::config(
                "learn",
                "learning needs entry memory, which this build (the profile-only core) leaves out",
            ));
        }
        if learning.is_some() && hosts.entries().is_none() {
            return Err(Error::config(
                "hosts.entries",
                "learn needs an entry store to learn into; pass hosts.entries (or a storage that is also an entry store)",
            ));
        }
        Ok(ContextMemory {
            learning,
            config,
            hosts,
            locks: UserLocks::default(),
            deletions: RefCell::default(),
            warned_unchecked: std::cell::Cell::new(false),
            jitter: std::cell::Cell::new(JITTER_SEED),
        })
    }

    /// Seed the backoff's jitter (a host random value: instances that share a profile must not
    /// share a seed, or their retries stay in lockstep). 0 keeps the default seed.
    pub fn with_jitter_seed(self, seed: u64) -> Self {
        if seed != 0 {
            self.jitter.set(seed);
        }
        self
    }

    /// The next jitter value (xorshift64*).
    pub(crate) fn next_jitter(&self) -> u64 {
        let mut x = self.jitter.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.jitter.set(x);
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// The hosts of an operation the turn runs on `entries` (its relevant entries, its
    /// learning), with this host's clock, ids, timer, log and embedder.
    pub(crate) fn operation_hosts<'a, S, M>(
        &'a self,
        entries: &'a S,
        model: Option<&'a M>,
    ) -> Hosts<'a, S, H::Host, M> {
        Hosts {
            entries,
            host: self.hosts.host(),
            model,
            embedder: self.hosts.embedder(),
        }
    }

    /// The storage, each call bounded by `timeouts.storageMs`.
    pub(crate) fn storage(&self) -> Timed<'_, H::Store, H::Host> {
        Timed {
            host: self.hosts.store(),
            timer: self.hosts.host(),
            ms: self.config.timeouts.storage_ms,
        }
    }

    /// The entry store (for the restriction flag), each call bounded by `timeouts.storageMs`.
    pub(crate) fn entries(&self) -> Option<Timed<'_, H::Entries, H::Host>> {
        self.hosts.entries().map(|entries| Timed {
            host: entries,
            timer: self.hosts.host(),
            ms: self.config.timeouts.storage_ms,
        })
    }

    /// The model, each call bounded by `timeouts.modelMs`.
    pub(crate) fn model(&self) -> Option<Timed<'_, H::Model, H::Host>> {
        self.hosts.model().map(|model| Timed {
            host: model,
            timer: self.hosts.host(),
            ms: self.config.timeouts.model_ms,
        })
    }

    /// The notice sink, each call bounded by `timeouts.noticeMs`.
    pub(crate) fn notifier(&self) -> Timed<'_, H::Notifier, H::Host> {
        Timed {
            host: self.hosts.notifier(),
            timer: self.hosts.host(),
            ms: self.config.timeouts.notice_ms,
        }
    }

    /// How many deletions of `user_id` this instance has started.
    pub(crate) fn deletion_count(&self, user_id: &str) -> u64 {
        self.deletions
            .try_borrow()
            .ok()
            .and_then(|d| d.get(user_id).copied())
            .unwrap_or(0)
    }

    /// The configuration in use.
    pub fn config(&self) -> &ContextMemoryConfig {
        &self.config
    }

    /// The host objects (tests and hosts inspect their fakes and adapters through this).
    pub fn hosts(&self) -> &H {
        &self.hosts
    }

    /// [`Self::load`] for a decoded input: without `enabled` the load is `disabled` with reason
    /// [`ENABLED_MISSING`].
    pub async fn load_input(&self, input: &LoadInput) -> LoadResult {
        let mut result = match input.enabled {
            Some(enabled) => self.load(&input.user_id, enabled).await,
            None => {
                let mut result = self.load(&input.user_id, false).await;
                result.reason = Some(ENABLED_MISSING.to_string());
                result
            }
        };
        if let (Some(true), Some(entries)) = (input.enabled, &input.entries) {
            self.add_relevant(&mut result, &input.user_id, entries)
                .await;
        }
        result
    }

    /// The relevant entries of a load (behaviour §8.2): their section joins the profile's in
    /// `systemPromptSection` (a blank line between). Never fails the load: without an entry
    /// store, or when the store fails, `relevant` is absent and the reason logged
    /// (`memory.load.relevant-failed`).
    async fn add_relevant(&self, result: &mut LoadResult, user_id: &str, input: &LoadEntries) {
        let Some(store) = self.entries() else {
            let mut fields = Map::new();
            fields.insert(
                "reason".to_string(),
                Value::from("the host has no entry store"),
            );
            self.log(
                LogLevel::Warn,
                "memory.load.relevant-failed",
                user_id,
                fields,
            );
            return;
        };
        let hosts = self.operation_hosts(&store, None::<&NoModel>).search();
        let query = input.query(user_id, Default::default());
        match relevant_memories(&store, &hosts, self.hosts.counter(), &query).await {
            Ok(relevant) => {
                if !relevant.section.is_empty() {
                    if result.system_prompt_section.is_empty() {
                        result.system_prompt_section = relevant.section.clone();
                    } else {
                        result.system_prompt_section =
                            format!("{}\n\n{}", result.system_prompt_section, relevant.section);
                    }
                }
                result.relevant = Some(relevant);
            }
            Err(error) => self.log_error(
                LogLevel::Warn,
                "memory.load.relevant-failed",
                user_id,
                &error,
            ),
        }
    }

    /// Step 1 of a turn (behaviour §1.7): read the user's profile and fit it to budget for
    /// injection. Never fails: disabled memory reads nothing (`disabled`); an invalid id, a storage
    /// error or a counter error → `no-memory` with the reason; a missing file → `no-profile`. The
    /// fitted text is not written back.
    pub async fn load(&self, user_id: &str, enabled: bool) -> LoadResult {
        let mut result = LoadResult {
            profile: None,
            system_prompt_section: String::new(),
            fit: None,
            version: None,
            outcome: LoadOutcome::Disabled,
            reason: None,
            relevant: None,
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
        let stored = match self.storage().read(&path).await {
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
        match fit_profile(
            &stored.text,
            &options,
            self.hosts.counter(),
            None::<&H::Model>,
        )
        .await
        {
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

    /// `getMyContextMemory` (behaviour §1.10): the read-only view; never creates anything.
    /// Errors: `E_INVALID_USER_ID`, the storage's error.
    pub async fn get_my_context_memory(&self, user_id: &str) -> Result<MemoryView> {
        let path = memory_path(user_id, Some(&self.config.root_folder))?;
        let stored = self.storage().read(&path).await?;
        Ok(memory_view(stored.as_ref().map(|s| s.text.as_str())))
    }

    /// `updateMyContextMemory` (behaviour §1.10): save the user's edited body, keeping the stored
    /// frontmatter (a new profile gets `turn_count: 0`). Credentials in the body follow
    /// `secrets` (behaviour §8.1): redacted (the result's `redactedSecrets` counts them), refused
    /// (`E_SECRET` naming the line and the kind, nothing saved) or kept. Errors: `E_TOO_LARGE`
    /// over 1 MiB (nothing read or written), `E_INVALID_USER_ID`, `E_SECRET`, the storage's
    /// error, `E_VERSION_CONFLICT` when a concurrent writer won every retry.
    pub async fn update_my_context_memory(&self, user_id: &str, body: &str) -> Result<EditResult> {
        if body.len() > MAX_EDIT_BODY_BYTES {
            let options = EditOptions {
                user_id: user_id.to_string(),
                now: self.hosts.host().now(),
            };
            return apply_user_edit(None, body, &options);
        }
        let (body, redacted) = match guard_profile(self.config.secrets, body) {
            ProfileGuard::Clean => (std::borrow::Cow::Borrowed(body), 0),
            ProfileGuard::Redacted { body, count } => (std::borrow::Cow::Owned(body), count),
            ProfileGuard::Refused(found) => {
                return Err(Error::new(
                    ErrorCode::Secret,
                    format!(
                        "updateMyContextMemory: the body holds a credential ({}) at {}; nothing was saved — remove it, or configure secrets: 'redact'",
                        found.kind.as_str(),
                        found.path
                    ),
                )
                .with_details(serde_json::json!({
                    "field": "body",
                    "path": found.path,
                    "kind": found.kind,
                })))
            }
        };
        let body = body.as_ref();
        let path = memory_path(user_id, Some(&self.config.root_folder))?;
        let _guard = self.locks.lock(user_id).await;
        let mut attempt = 0;
        loop {
            let stored = self.storage().read(&path).await?;
            let options = EditOptions {
                user_id: user_id.to_string(),
                now: self.hosts.host().now(),
            };
            let edit = apply_user_edit(stored.as_ref().map(|s| s.text.as_str()), body, &options)?;
            self.storage().ensure_root(&self.config.root_folder).await?;
            let write = WriteOptions::over(stored.is_some(), stored.and_then(|s| s.version));
            match self.storage().write(&path, &edit.text, &write).await {
                Ok(_) => {
                    return Ok(EditResult {
                        redacted_secrets: redacted,
                        ..edit
                    })
                }
                Err(error)
                    if error.code == ErrorCode::VersionConflict
                        && attempt < self.config.max_conflict_retries =>
                {
                    attempt += 1;
                    self.log_error(LogLevel::Warn, "memory.edit.conflict", user_id, &error);
                    let wait = super::config::backoff_ms(
                        self.config.conflict_backoff_ms,
                        attempt,
                        self.next_jitter(),
                    );
                    if wait > 0 {
                        self.hosts.host().pause(wait).await;
                    }
                }
                Err(error) => return Err(error),
            }
        }
    }

    /// Delete the user's profile (`memory.md`); `true` when one existed. Opt-out is not
    /// deletion (behaviour §1.9): this is the explicit operation. It never waits behind a running
    /// turn; such a turn writes nothing afterwards (see the module documentation). Errors:
    /// `E_INVALID_USER_ID`, the storage's error.
    pub async fn delete_context_memory(&self, user_id: &str) -> Result<bool> {
        let path = memory_path(user_id, Some(&self.config.root_folder))?;
        self.note_deletion(user_id);
        profile_rights::remove_profile(&self.storage(), &path).await
    }

    /// Count a deletion of `user_id`: turns of the user running in this instance write nothing.
    fn note_deletion(&self, user_id: &str) {
        if let Ok(mut deletions) = self.deletions.try_borrow_mut() {
            let count = deletions.entry(user_id.to_string()).or_insert(0);
            *count = count.saturating_add(1);
        }
    }

    /// Art. 17 erasure of the profile (behaviour §4.3, the rules of
    /// [`profile_rights::erase_profile`]): turns of the user still running in this instance write
    /// nothing afterwards (one in another process finds the profile gone and does not re-create
    /// it), then `memory.md` and the user's folder where the storage has folders are removed.
    pub async fn erase_profile(&self, user_id: &str) -> Result<ProfileErasure> {
        memory_path(user_id, Some(&self.config.root_folder))?;
        self.note_deletion(user_id);
        profile_rights::erase_profile(&self.storage(), &self.config.root_folder, user_id).await
    }

    /// The stored profile text, byte for byte (Art. 15/20 export), `None` without one.
    pub async fn export_profile(&self, user_id: &str) -> Result<Option<String>> {
        profile_rights::export_profile(&self.storage(), &self.config.root_folder, user_id).await
    }

    /// Restore an exported profile text as is, create-only: a user who already has a profile
    /// gets `E_VERSION_CONFLICT` (import restores into an empty store).
    pub async fn import_profile(&self, user_id: &str, text: &str) -> Result<()> {
        let root = &self.config.root_folder;
        profile_rights::import_profile(&self.storage(), root, user_id, text).await
    }

    /// Log one event with fields.
    pub(crate) fn log(
        &self,
        level: LogLevel,
        event: &str,
        user_id: &str,
        fields: Map<String, Value>,
    ) {
        if !self.hosts.host().enabled() {
            return;
        }
        self.hosts.host().log(&LogEvent {
            level,
            event: event.to_string(),
            user_id: Some(user_id.to_string()),
            fields,
        });
    }

    /// Log an error's code and message, credentials redacted (a host's or a model's message may
    /// quote what it refused).
    pub(crate) fn log_error(&self, level: LogLevel, event: &str, user_id: &str, error: &Error) {
        let mut fields = Map::new();
        fields.insert("code".to_string(), Value::from(error.code.as_str()));
        fields.insert("message".to_string(), Value::from(error_text(error)));
        self.log(level, event, user_id, fields);
    }
}

/// The jitter seed of an instance nobody seeded.
const JITTER_SEED: u64 = 0x9E37_79B9_7F4A_7C15;

/// Whole milliseconds from `start` to `end` (0 when the host clock went backwards).
pub(crate) fn ms_between(start: DateTime<Utc>, end: DateTime<Utc>) -> u64 {
    u64::try_from((end - start).num_milliseconds()).unwrap_or(0)
}

pub use crate::profile::fit::prompt_time;

/// The entry store of a [`ContextMemory`] without one (`entries: None`): a type with no values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoEntries {}

impl EntryStore for NoEntries {
    async fn list(&self, _: &str) -> Result<Vec<Entry>> {
        match *self {}
    }
    async fn get(&self, _: &str) -> Result<Option<Entry>> {
        match *self {}
    }
    async fn upsert(&self, _: &Entry) -> Result<()> {
        match *self {}
    }
    async fn delete(&self, _: &str) -> Result<bool> {
        match *self {}
    }
    async fn increment_access(&self, _: &[String]) -> Result<()> {
        match *self {}
    }
}

impl PushDown for NoEntries {
    async fn recall(&self, _: &RecallQuery<'_>) -> Result<Option<Vec<Entry>>> {
        match *self {}
    }
    async fn find_by_key(&self, _: &str, _: &str) -> Result<Option<Vec<Entry>>> {
        match *self {}
    }
    async fn oldest_own(&self, _: &OwnQuery<'_>) -> Result<Option<Vec<Entry>>> {
        match *self {}
    }
}

impl AtomicWrites for NoEntries {
    async fn insert_within_cap(&self, _: &Entry, _: u64, _: &[String]) -> Result<Option<CapWrite>> {
        match *self {}
    }
}

impl VectorStore for NoEntries {}

impl HistoryStore for NoEntries {}

impl EpisodeStore for NoEntries {}

impl InProcess for NoEntries {
    fn with_entries<R>(&self, _: &str, _: impl FnOnce(&EntrySet) -> R) -> Option<R> {
        match *self {}
    }
}

impl<H: TurnHost> ProfileRights for ContextMemory<H> {
    async fn erase_profile(&self, user_id: &str) -> Result<ProfileErasure> {
        ContextMemory::erase_profile(self, user_id).await
    }
    async fn export_profile(&self, user_id: &str) -> Result<Option<String>> {
        ContextMemory::export_profile(self, user_id).await
    }
    async fn import_profile(&self, user_id: &str, text: &str) -> Result<()> {
        ContextMemory::import_profile(self, user_id, text).await
    }
    fn profile_path(&self, user_id: &str) -> Result<String> {
        memory_path(user_id, Some(&self.config.root_folder))
    }
}
