//! Embeddings of entries and queries (behaviour §8.2): the host's model behind [`Embedder`], its
//! answers checked and quantized here, one deadline per call, batches of the configured size,
//! and the vectors stored beside the entries they were made from ([`EntryStore::put_vectors`]).
//!
//! An entry is embedded as [`entry_text`] (`key: value`, the value as tool answers print it).
//! Texts longer than [`MAX_EMBED_CHARS`] are cut there (embedding models read a few hundred
//! tokens at most). A vector belongs to the model id of [`EmbedderSpec::model`]: vectors of another
//! model are never compared with it, and [`reindex`] replaces them.
//!
//! Failures never fail a write: [`store_vectors`] reports them (a `memory.embedding.failed` log
//! event and its [`Embedded`] outcome), the entry stays stored without a vector, found lexically,
//! and [`reindex`] fills it in later.

use super::entry::Entry;
use super::search::value_text;
use super::search::vectors::quantize;
use super::store::{EntryStore, UnembeddedQuery, VectorWrite};
use super::visibility::is_reserved_key;
use crate::error::{Error, ErrorCode, Result};
use crate::host::{EmbedPurpose, Embedder, LogEvent, LogLevel, Logger, Timed, Timer};
use serde::{Deserialize, Serialize};

/// The longest text sent to the embedder, in characters; a longer one is cut there.
pub const MAX_EMBED_CHARS: usize = 8_192;
/// The default number of texts per embed call.
pub const DEFAULT_MAX_BATCH: usize = 32;
/// The most texts per embed call a configuration may ask for.
pub const MAX_BATCH: usize = 2_048;
/// The longest vector accepted.
pub const MAX_DIMENSIONS: usize = 8_192;
/// The default deadline of one embed call, in milliseconds.
pub const DEFAULT_EMBED_TIMEOUT_MS: u64 = 10_000;

/// The embedder's configuration, as JS sends it beside the callback:
/// `{ "model": "all-minilm-l6-v2", "dimensions": 384, "maxBatch": 32, "timeoutMs": 10000 }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EmbedderSpec {
    /// The model id the vectors belong to.
    pub model: String,
    /// The vector length, when known (else every call's answers must agree with each other).
    #[serde(default)]
    pub dimensions: Option<usize>,
    /// Texts per call.
    #[serde(default = "default_batch")]
    pub max_batch: usize,
    /// The deadline of each call.
    #[serde(default = "default_timeout")]
    pub timeout_ms: u64,
}

fn default_batch() -> usize {
    DEFAULT_MAX_BATCH
}

fn default_timeout() -> u64 {
    DEFAULT_EMBED_TIMEOUT_MS
}

impl EmbedderSpec {
    /// Check the configuration: a non-blank model id, 1 ≤ dimensions ≤ [`MAX_DIMENSIONS`],
    /// 1 ≤ maxBatch ≤ [`MAX_BATCH`], a deadline of 1 ms – 1 h. `E_CONFIG` naming the field.
    pub fn checked(self) -> Result<EmbedderSpec> {
        if self.model.trim().is_empty() || self.model.chars().count() > 200 {
            return Err(Error::config(
                "embedder.model",
                "must be a non-empty model id of at most 200 characters",
            ));
        }
        if let Some(d) = self.dimensions {
            if !(1..=MAX_DIMENSIONS).contains(&d) {
                return Err(Error::config(
                    "embedder.dimensions",
                    format!("must be between 1 and {MAX_DIMENSIONS}"),
                ));
            }
        }
        if !(1..=MAX_BATCH).contains(&self.max_batch) {
            return Err(Error::config(
                "embedder.maxBatch",
                format!("must be between 1 and {MAX_BATCH}"),
            ));
        }
        if !(1..=crate::turn::config::MAX_TIMEOUT_MS).contains(&self.timeout_ms) {
            return Err(Error::config(
                "embedTimeoutMs",
                format!(
                    "must be between 1 and {} milliseconds",
                    crate::turn::config::MAX_TIMEOUT_MS
                ),
            ));
        }
        Ok(self)
    }
}

/// The text an entry is embedded as: `key: value` (the value as tool answers print it).
pub fn entry_text(entry: &Entry) -> String {
    cut(&format!("{}: {}", entry.key, value_text(&entry.value))).to_string()
}

/// `text` cut to [`MAX_EMBED_CHARS`] characters.
fn cut(text: &str) -> &str {
    match text.char_indices().nth(MAX_EMBED_CHARS) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// The host's embedder with its configuration and the timer of its deadlines.
pub struct Embedding<'a, E, T> {
    /// The host's model.
    pub host: &'a E,
    /// Its configuration.
    pub spec: &'a EmbedderSpec,
    /// Deadlines.
    pub timer: &'a T,
}

impl<E: Embedder, T: Timer> Embedding<'_, E, T> {
    /// Quantized vectors of `texts`, in order, in batches of `maxBatch`, each call within the
    /// deadline. Any unusable answer fails the whole call with `E_HOST` naming the problem.
    pub async fn documents(&self, texts: &[String]) -> Result<Vec<Vec<i8>>> {
        self.vectors(texts, EmbedPurpose::Document).await
    }

    /// The quantized vector of one query.
    pub async fn query(&self, query: &str) -> Result<Vec<i8>> {
        let texts = [cut(query).to_string()];
        let mut vectors = self.vectors(&texts, EmbedPurpose::Query).await?;
        vectors
            .pop()
            .ok_or_else(|| unusable("answered no vector".to_string()))
    }

    async fn vectors(&self, texts: &[String], purpose: EmbedPurpose) -> Result<Vec<Vec<i8>>> {
        let timed = Timed {
            host: self.host,
            timer: self.timer,
            ms: self.spec.timeout_ms,
        };
        let mut out = Vec::with_capacity(texts.len());
        let mut dims = self.spec.dimensions;
        for batch in texts.chunks(self.spec.max_batch.max(1)) {
            let batch: Vec<String> = batch.iter().map(|t| cut(t).to_string()).collect();
            let answered = timed
                .run("embedder.embed", self.host.embed(&batch, purpose))
                .await?;
            if answered.len() != batch.len() {
                return Err(unusable(format!(
                    "answered {} vectors for {} texts",
                    answered.len(),
                    batch.len()
                )));
            }
            for (i, vector) in answered.iter().enumerate() {
                let want = *dims.get_or_insert(vector.len());
                if vector.len() != want || vector.len() > MAX_DIMENSIONS {
                    return Err(unusable(format!(
                        "answered a vector of length {} at {i}; the model's dimension is {want}",
                        vector.len()
                    )));
                }
                let q = quantize(vector)
                    .map_err(|e| unusable(format!("answered an unusable vector at {i}: {e}")))?;
                out.push(q);
            }
        }
        Ok(out)
    }
}

fn unusable(what: String) -> Error {
    Error::new(ErrorCode::Host, format!("embedder.embed {what}"))
        .with_details(serde_json::json!({ "operation": "embedder.embed", "transient": false }))
}

/// What embedding written entries did: how many got a vector, and the failure if any.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Embedded {
    /// Vectors stored.
    pub embedded: usize,
    /// Entries left without a vector (an embedder or store failure, or an entry changed
    /// meanwhile).
    pub missing: usize,
    /// The store keeps no vectors (it has no `putVectors`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unsupported: bool,
    /// The failure, when one happened (its message, redacted as logs are).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Embed `entries` and store their vectors. Never fails: an embedder or store failure leaves
/// the entries without vectors, is logged (`memory.embedding.failed`) and is reported in the
/// outcome. `_gdpr_` entries are never embedded.
pub async fn store_vectors<S: EntryStore, E: Embedder, T: Timer, L: Logger>(
    store: &S,
    embedding: &Embedding<'_, E, T>,
    log: &L,
    entries: &[Entry],
) -> Embedded {
    let entries: Vec<&Entry> = entries
        .iter()
        .filter(|e| !is_reserved_key(&e.key))
        .collect();
    let mut outcome = Embedded {
        embedded: 0,
        missing: entries.len(),
        unsupported: false,
        error: None,
    };
    if entries.is_empty() {
        return outcome;
    }
    let texts: Vec<String> = entries.iter().map(|e| entry_text(e)).collect();
    let stored = async {
        let vectors = embedding.documents(&texts).await?;
        let rows: Vec<VectorWrite> = entries
            .iter()
            .zip(&vectors)
            .map(|(e, v)| VectorWrite {
                id: &e.id,
                key: &e.key,
                value: &e.value,
                model: &embedding.spec.model,
                vector: v,
            })
            .collect();
        store.put_vectors(&rows).await
    };
    match stored.await {
        Ok(Some(written)) => {
            outcome.embedded = written;
            outcome.missing = entries.len().saturating_sub(written);
        }
        Ok(None) => outcome.unsupported = true,
        Err(error) => {
            let user = entries.first().map(|e| e.user_id.clone());
            let message = crate::secrets::error_text(&error);
            log_failure(log, user, &error, entries.len());
            outcome.error = Some(message);
        }
    }
    outcome
}

fn log_failure<L: Logger>(log: &L, user_id: Option<String>, error: &Error, entries: usize) {
    let mut fields = serde_json::Map::new();
    fields.insert("code".into(), error.code.as_str().into());
    fields.insert("message".into(), crate::secrets::error_text(error).into());
    fields.insert("entries".into(), entries.into());
    log.log(&LogEvent {
        level: LogLevel::Warn,
        event: "memory.embedding.failed".into(),
        user_id,
        fields,
    });
}

/// What [`reindex`] did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Reindexed {
    /// Entries that got a vector of the model.
    pub embedded: usize,
    /// Entries still without one (failures, or entries that changed meanwhile).
    pub missing: usize,
    /// The first failure, when one happened.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Entries scanned per page by [`reindex`].
const REINDEX_PAGE: usize = 256;

/// Give every entry (of `user_id`, or of every user) without a vector of the embedder's model
/// one: a changed model re-embeds everything, entries whose embedding failed are filled in.
/// Pages through [`EntryStore::unembedded`]; a store without it needs `user_id` (the core then
/// compares `list` with `vectors`). A store that keeps no vectors is `E_ARGUMENT`. A failing
/// batch is reported and skipped; the run goes on.
pub async fn reindex<S: EntryStore, E: Embedder, T: Timer, L: Logger>(
    store: &S,
    embedding: &Embedding<'_, E, T>,
    log: &L,
    user_id: Option<&str>,
) -> Result<Reindexed> {
    let model = embedding.spec.model.as_str();
    let mut done = Reindexed::default();
    let mut after: Option<String> = None;
    loop {
        let query = UnembeddedQuery {
            model,
            user_id,
            after: after.as_deref(),
            limit: REINDEX_PAGE,
        };
        let page = match store.unembedded(&query).await? {
            Some(page) => page,
            None => {
                let Some(user) = user_id else {
                    return Err(Error::new(
                        ErrorCode::Argument,
                        "reindexEmbeddings: this store cannot list the entries without vectors of every user (it has no `unembedded`); pass options.userId",
                    )
                    .with_details(serde_json::json!({ "argument": "options.userId" })));
                };
                let page = unembedded_of(store, user, model).await?;
                let outcome = batches(store, embedding, log, &page).await?;
                done.embedded += outcome.embedded;
                done.missing += outcome.missing;
                done.error = done.error.or(outcome.error);
                return Ok(done);
            }
        };
        let mut page: Vec<Entry> = page
            .into_iter()
            .filter(|e| user_id.map_or(true, |u| u == e.user_id))
            .filter(|e| after.as_deref().map_or(true, |a| e.id.as_str() > a))
            .collect();
        by_id(&mut page);
        let Some(last) = page.last().map(|e| e.id.clone()) else {
            return Ok(done);
        };
        let outcome = batches(store, embedding, log, &page).await?;
        done.embedded += outcome.embedded;
        done.missing += outcome.missing;
        done.error = done.error.or(outcome.error);
        after = Some(last);
    }
}

async fn batches<S: EntryStore, E: Embedder, T: Timer, L: Logger>(
    store: &S,
    embedding: &Embedding<'_, E, T>,
    log: &L,
    entries: &[Entry],
) -> Result<Embedded> {
    let mut total = Embedded {
        embedded: 0,
        missing: 0,
        unsupported: false,
        error: None,
    };
    for chunk in entries.chunks(embedding.spec.max_batch.max(1)) {
        let outcome = store_vectors(store, embedding, log, chunk).await;
        if outcome.unsupported {
            return Err(Error::new(
                ErrorCode::Argument,
                "reindexEmbeddings: this store keeps no vectors (it has no `putVectors`)",
            )
            .with_details(serde_json::json!({ "argument": "store" })));
        }
        total.embedded += outcome.embedded;
        total.missing += outcome.missing;
        total.error = total.error.or(outcome.error);
    }
    Ok(total)
}

/// One user's entries without a vector of `model`, from `list` and `vectors`.
async fn unembedded_of<S: EntryStore>(store: &S, user_id: &str, model: &str) -> Result<Vec<Entry>> {
    let entries = store.list(user_id).await?;
    let Some(vectors) = store.vectors(user_id, model).await? else {
        return Err(Error::new(
            ErrorCode::Argument,
            "reindexEmbeddings: this store keeps no vectors (it has no `vectors`)",
        )
        .with_details(serde_json::json!({ "argument": "store" })));
    };
    let have: std::collections::HashSet<&str> = vectors.iter().map(|v| v.id.as_str()).collect();
    let mut out: Vec<Entry> = entries
        .into_iter()
        .filter(|e| e.user_id == user_id && !have.contains(e.id.as_str()))
        .collect();
    by_id(&mut out);
    Ok(out)
}

/// Entries in id order (one sort instance for both pages).
fn by_id(entries: &mut [Entry]) {
    crate::order::sort_by(entries, |a, b| a.id.cmp(&b.id));
}
