//! The host traits (behaviour §5). Storage, the language model, the clock, ids and (optionally) the
//! token counter belong to the host (entry storage, [`crate::entries::EntryStore`], lives with the
//! entries it stores); the core is generic over these traits so it can be driven by
//! in-memory or fault-injecting fakes in native tests and by JS objects in `src/wasm/`.
//!
//! The async traits have no `Send` bound on purpose: in wasm everything runs on one thread, and
//! JS-backed futures are not `Send`.
#![allow(async_fn_in_trait)]

mod hosts;
mod timeout;

pub use hosts::{Host, Hosts, NoModel, Parts};
pub use timeout::{within, NoTimer, Timed, Timer};

use crate::error::Result;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// A stored profile document and its version token (absent when the host has no versions).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredText {
    /// The file content.
    pub text: String,
    /// Opaque version token for conditional writes; `None` → last writer wins.
    #[serde(default)]
    pub version: Option<String>,
}

/// Options passed with every profile write (behaviour §1.1, §1.7, §5). At most one condition is
/// set: `if_version` (the stored version must still be this token) or `if_absent` (nothing may be
/// stored yet: the first write of a new profile). A failed condition is `E_VERSION_CONFLICT`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteOptions {
    /// Write only if the stored version still equals this token (`None` → no version condition).
    pub if_version: Option<String>,
    /// Write only if nothing is stored at the path yet (create-only).
    #[serde(default)]
    pub if_absent: bool,
    /// Always `text/markdown` for profiles.
    pub content_type: String,
    /// Profiles are never ingested into search.
    pub skip_ingestion: bool,
    /// Profiles are never shown as chat attachments.
    pub hide_in_chat: bool,
}

impl WriteOptions {
    /// The options for a profile write, conditional on `if_version` when given (without a
    /// version the write is unconditional: last writer wins).
    pub fn profile(if_version: Option<String>) -> Self {
        WriteOptions {
            if_version,
            if_absent: false,
            content_type: "text/markdown".to_string(),
            skip_ingestion: true,
            hide_in_chat: true,
        }
    }

    /// The options for the first write of a profile that did not exist: create-only.
    pub fn create_only() -> Self {
        WriteOptions {
            if_absent: true,
            ..WriteOptions::profile(None)
        }
    }

    /// The options for a write over what was read: conditional on its version, create-only when
    /// nothing was stored (`stored == false`).
    pub fn over(stored: bool, version: Option<String>) -> Self {
        if stored {
            WriteOptions::profile(version)
        } else {
            WriteOptions::create_only()
        }
    }
}

/// Profile storage: one text document per path. A version conflict on `write` must be reported
/// as an error with code `E_VERSION_CONFLICT`.
pub trait ProfileStore {
    /// Read a document; `Ok(None)` when it does not exist.
    async fn read(&self, path: &str) -> Result<Option<StoredText>>;
    /// Write a document; returns the new version token (if the host has versions).
    async fn write(&self, path: &str, text: &str, options: &WriteOptions)
        -> Result<Option<String>>;
    /// Remove a document (missing is not an error).
    async fn remove(&self, path: &str) -> Result<()>;
    /// Make sure the root folder exists.
    async fn ensure_root(&self, root_folder: &str) -> Result<()>;
    /// Optional: remove a user's folder (`<root>/<userId>`) once its profile is gone (Art. 17
    /// erasure). `Ok(true)` when a folder was removed; the default (a storage without folders)
    /// answers `Ok(false)`.
    async fn remove_folder(&self, _folder: &str) -> Result<bool> {
        Ok(false)
    }
}

/// What a model call is for (behaviour §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Purpose {
    /// The UPDATE/NOOP gate.
    Gate,
    /// The profile rewrite.
    Consolidate,
    /// Model condensing while fitting a profile to budget.
    Condense,
    /// Dream summarisation.
    Dream,
    /// Fact extraction from a turn (`learnFromTurn`, behaviour §8.6).
    Extract,
}

/// One model request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompletionRequest {
    /// Why the call is made.
    pub purpose: Purpose,
    /// System prompt.
    pub system: String,
    /// User prompt.
    pub user: String,
    /// Output cap in tokens.
    pub max_output_tokens: u32,
}

/// Token usage reported by the model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
}

/// A model answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// The answer text.
    pub text: String,
    /// Usage, when the model reports it.
    #[serde(default)]
    pub usage: Option<Usage>,
}

/// The language model.
pub trait LanguageModel {
    /// Complete one request.
    async fn complete(&self, request: &CompletionRequest) -> Result<Completion>;
}

/// What an embedding is for (behaviour §8.2): a stored entry or a search query (some models embed
/// the two differently).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EmbedPurpose {
    /// The text of an entry, `key: value`.
    Document,
    /// A search query.
    Query,
}

/// The host's embedding model (behaviour §8.2), like the language model: one vector per text, in
/// order. The core checks and quantizes what it answers
/// ([`crate::entries::embedding::Embedding`]); the model id and the dimension are configuration
/// ([`crate::entries::embedding::EmbedderSpec`]).
pub trait Embedder {
    /// Embed `texts` (at most the configured batch).
    async fn embed(&self, texts: &[String], purpose: EmbedPurpose) -> Result<Vec<Vec<f32>>>;
}

impl<E: Embedder + ?Sized> Embedder for &E {
    async fn embed(&self, texts: &[String], purpose: EmbedPurpose) -> Result<Vec<Vec<f32>>> {
        (**self).embed(texts, purpose).await
    }
}

/// A host without an embedding model: every call fails (`E_CONFIG`). Used where no embedder
/// was configured; the core never calls it then.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoEmbedder;

impl Embedder for NoEmbedder {
    async fn embed(&self, _texts: &[String], _purpose: EmbedPurpose) -> Result<Vec<Vec<f32>>> {
        Err(crate::Error::config(
            "embedder",
            "no embedder is configured",
        ))
    }
}

impl Logger for NoEmbedder {
    fn log(&self, _event: &LogEvent) {}
}

/// The host's clock. Tests pass a fixed clock.
pub trait Clock {
    /// The current time, UTC.
    fn now(&self) -> DateTime<Utc>;
}

impl<C: Clock + ?Sized> Clock for &C {
    fn now(&self) -> DateTime<Utc> {
        (**self).now()
    }
}

/// The host's id source. Tests pass a counter.
pub trait IdSource {
    /// A new collision-resistant id.
    fn new_id(&self) -> String;
    /// Whether the ids are the host's own (`newId`), which the core checks are free before a new
    /// entry takes one (an entry id belongs to one user, [`crate::entries::ownership`]); `false`
    /// only for the core's own 128-bit random ids.
    fn host_made(&self) -> bool {
        true
    }
}

impl<I: IdSource + ?Sized> IdSource for &I {
    fn new_id(&self) -> String {
        (**self).new_id()
    }
    fn host_made(&self) -> bool {
        (**self).host_made()
    }
}

/// A token counter. Counting is CPU-bound, so the trait is synchronous; a host `countTokens`
/// callback must return a number, not a Promise.
pub trait TokenCounter {
    /// Number of tokens in `text`.
    fn count(&self, text: &str) -> Result<usize>;

    /// The count of `text` when it is at most `limit` tokens, else `None`. Budget checks call
    /// this; a counter that can stop early (the built-in tables do) keeps their cost bounded by
    /// the budget instead of the text. The default counts everything and compares.
    fn count_within(&self, text: &str, limit: usize) -> Result<Option<usize>> {
        let count = self.count(text)?;
        Ok((count <= limit).then_some(count))
    }
}

/// A visible notice for the chat UI (behaviour §1.7 step 6). JSON: `{ "kind": "show", "text": "…"
/// }` or `{ "kind": "clear" }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Notice {
    /// Show `text` (the memory-update notice) until the matching `Clear`.
    Show {
        /// The notice text, e.g. `🧠 Updating context memory…`.
        text: String,
    },
    /// Remove the notice shown before.
    Clear,
}

/// Receives notices. A failing notifier never breaks a turn: its errors are logged and ignored.
pub trait Notifier {
    /// Show or clear a notice.
    async fn on_notice(&self, notice: &Notice) -> Result<()>;
}

/// A notifier for hosts that show nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoNotifier;

impl Notifier for NoNotifier {
    async fn on_notice(&self, _notice: &Notice) -> Result<()> {
        Ok(())
    }
}

/// How much a log event matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Detail for debugging; may name sizes and decisions, never profile content or messages.
    Debug,
    /// Normal operation (a gate decision, a rewrite).
    Info,
    /// Something failed but the turn went on (fail-open, notice errors, conflicts).
    Warn,
    /// Something failed and an update was lost for this turn (write failure).
    Error,
}

/// One structured log event. JSON:
/// `{ "level": "warn", "event": "memory.gate.fail-open", "userId": "u1", "fields": { … } }`.
/// Events never carry profile content or chat messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LogEvent {
    /// Severity.
    pub level: LogLevel,
    /// A stable dotted event name, e.g. `memory.write.conflict`.
    pub event: String,
    /// The user the event concerns, when there is one.
    #[serde(default)]
    pub user_id: Option<String>,
    /// Structured details (codes, counts, decisions).
    #[serde(default)]
    pub fields: serde_json::Map<String, serde_json::Value>,
}

/// The host's structured log. Synchronous: logging must not add awaits to the turn.
pub trait Logger {
    /// Record one event.
    fn log(&self, event: &LogEvent);
    /// Whether events are recorded at all: a caller may skip building one when not (logging
    /// costs nothing when the host gave no `log`).
    fn enabled(&self) -> bool {
        true
    }
}

impl<L: Logger + ?Sized> Logger for &L {
    fn log(&self, event: &LogEvent) {
        (**self).log(event)
    }
    fn enabled(&self) -> bool {
        (**self).enabled()
    }
}

/// A logger that drops every event.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoLogger;

impl Logger for NoLogger {
    fn log(&self, _event: &LogEvent) {}
    fn enabled(&self) -> bool {
        false
    }
}
