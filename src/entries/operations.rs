//! The memory operations as the surfaces call them (REST and MCP, behaviour §2.8; the console and
//! `memcore/server` through them): every option decided once here — the search mode and
//! `limit`, the embedder, the surface and the author of a write, the deadline of each store call
//! (`storeTimeoutMs`), and `asOf` (a read of the past runs on a snapshot of the user's entries;
//! a write refuses it). The binding decodes JSON, calls one method and encodes the answer.
//!
//! ```ignore
//! let spec = MemoryOperation::new("searchUserMemories", options)?;
//! let found = spec.on(&store, &host, &writes).search("u1", "color").await?;
//! ```

use super::config::{SearchMode, UserMemoryConfig};
use super::embedding::EmbedderSpec;
use super::entry::Entry;
use super::history::{self, AuditRecord, Author, History, Writer};
pub use super::limit::Limit;
use super::memories::{self, DeleteOutcome, MemoryWrites, UpsertOutcome, VisibleQuery};
use super::restore::RestoreOutcome;
use super::store::{EntryStore, InMemoryEntryStore};
use super::write_rules::{Surface, Violation};
use crate::error::{Error, ErrorCode, Result};
use crate::host::{Host, Hosts, Timed};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The options of a memory operation (JSON, camelCase; every field optional):
/// `{ config?, storeTimeoutMs?, surface?, embedder?, mode?, limit?, principal?, asOf? }`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MemoryOptions {
    /// The `userMemoryConfig` (validated: `E_CONFIG` with the field path).
    #[serde(default)]
    pub config: Option<Value>,
    /// The deadline of each store call (default 5,000 ms).
    #[serde(default)]
    pub store_timeout_ms: Option<u64>,
    /// Which surface writes (default REST): its write rules and its author kind.
    #[serde(default)]
    pub surface: Option<Surface>,
    /// The embedder for ranked and hybrid search, and for the vector of a written entry.
    #[serde(default)]
    pub embedder: Option<EmbedderSpec>,
    /// The search mode (default the config's).
    #[serde(default)]
    pub mode: Option<SearchMode>,
    /// At most this many results of a search ([`Limit`]).
    #[serde(default)]
    pub limit: Option<Limit>,
    /// Who the host authenticated: the author id of the operation's writes.
    #[serde(default)]
    pub principal: Option<String>,
    /// Read the user's entries as they were at this RFC 3339 time (reads only).
    #[serde(default)]
    pub as_of: Option<String>,
}

/// One memory operation's decided options ([`MemoryOptions`] checked once).
#[derive(Debug)]
pub struct MemoryOperation {
    function: &'static str,
    config: UserMemoryConfig,
    surface: Surface,
    embedder: Option<EmbedderSpec>,
    limit: Option<Limit>,
    author: Author,
    as_of: Option<String>,
    store_timeout_ms: u64,
}

/// `entryHistory`'s request: the user and one of an entry id or a key.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HistoryRequest {
    /// Whose history.
    pub user_id: String,
    /// One entry's history…
    #[serde(default)]
    pub entry_id: Option<String>,
    /// …or the history of every entry that had this key.
    #[serde(default)]
    pub key: Option<String>,
}

/// `auditLog`'s request: whose records, from when, after which `seq`, how many.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuditRequest {
    /// One user's records (default every user's).
    #[serde(default)]
    pub user_id: Option<String>,
    /// Records at or after this RFC 3339 time.
    #[serde(default)]
    pub since: Option<String>,
    /// Records after this `seq` (paging).
    #[serde(default)]
    pub after_seq: Option<u64>,
    /// At most this many (1–1000, default 100).
    #[serde(default)]
    pub limit: Option<u64>,
}

/// `restoreVersion`'s request: the user and the version to restore.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RestoreRequest {
    /// Whose entry.
    pub user_id: String,
    /// The version to restore.
    pub version_id: String,
}

/// What `getVisibleMemories` answers: the entries, or why the query was refused (JSON
/// `{ "entries": […] }` / `{ "violations": […] }`).
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Visible {
    /// What the agent sees.
    Entries {
        /// The entries, in the query's order.
        entries: Vec<Entry>,
    },
    /// The query's faults.
    Violations {
        /// One per faulty field.
        violations: Vec<Violation>,
    },
}

/// A store that can stand for a snapshot of the past (`asOf`): reads then run on the same store
/// type, so each read is compiled once.
pub trait FromSnapshot: EntryStore {
    /// The store holding `snapshot`'s entries.
    fn from_snapshot(snapshot: InMemoryEntryStore) -> Self;
}

impl FromSnapshot for InMemoryEntryStore {
    fn from_snapshot(snapshot: InMemoryEntryStore) -> Self {
        snapshot
    }
}

impl MemoryOperation {
    /// Check `options` for `function` (its name in every error): the config (`E_CONFIG`), the
    /// limit (`E_ARGUMENT`), the store deadline (`E_CONFIG`), the embedder (`E_CONFIG`).
    pub fn new(function: &'static str, options: MemoryOptions) -> Result<MemoryOperation> {
        let mut config = match options.config {
            None | Some(Value::Null) => UserMemoryConfig::default(),
            Some(value) => super::config::parse_user_memory_config(&value)?,
        };
        if let Some(mode) = options.mode {
            config.search.mode = mode;
        }
        let surface = options.surface.unwrap_or(Surface::Rest);
        Ok(MemoryOperation {
            function,
            config,
            surface,
            store_timeout_ms: super::memory_tools::store_timeout_ms(options.store_timeout_ms)?,
            embedder: options.embedder.map(EmbedderSpec::checked).transpose()?,
            limit: options.limit,
            author: Author::of_surface(surface, options.principal.as_deref()),
            as_of: options.as_of,
        })
    }

    /// The same operation on the current state only: `E_ARGUMENT` when it was given `asOf` (a
    /// write always changes the current state; the history carries its own times).
    pub fn present_only(self) -> Result<MemoryOperation> {
        match self.as_of {
            Some(_) => Err(Error::new(
                ErrorCode::Argument,
                format!(
                    "{}: argument `options.asOf`: is for reads: a write always changes the current state",
                    self.function
                ),
            )
            .with_details(
                serde_json::json!({ "function": self.function, "argument": "options.asOf" }),
            )),
            None => Ok(self),
        }
    }

    /// The deadline of each store call, in milliseconds.
    pub fn store_timeout_ms(&self) -> u64 {
        self.store_timeout_ms
    }

    /// This operation over `store`, with `host` (clock, ids, embedder, timer, log) and the
    /// instance's `writes` (one user's writes run one after the other).
    pub fn on<'a, S, H>(
        &'a self,
        store: &'a S,
        host: &'a H,
        writes: &'a MemoryWrites,
    ) -> Operation<'a, S, H> {
        Operation {
            spec: self,
            hosts: Hosts {
                entries: store,
                host,
                model: None,
                embedder: self.embedder.as_ref(),
            },
            writes,
        }
    }
}

/// A [`MemoryOperation`] bound to its store and hosts: one method per operation.
pub struct Operation<'a, S, H> {
    spec: &'a MemoryOperation,
    /// The store, the host and the embedder's configuration (the operations call no model).
    hosts: Hosts<'a, S, H>,
    writes: &'a MemoryWrites,
}

impl<'a, S, H> Operation<'a, S, H>
where
    S: FromSnapshot,
    H: Host,
{
    /// `store` with this operation's deadline on each call.
    fn timed<'b>(&'b self, store: &'b S) -> Timed<'b, S, H> {
        Timed {
            host: store,
            timer: self.hosts.host,
            ms: self.spec.store_timeout_ms,
        }
    }

    /// The store a read of `user_id` runs on: the store itself, or with `asOf` a snapshot of the
    /// user's entries as they were then ([`history::snapshot_as_of`]).
    async fn read_store(&self, user_id: &str) -> Result<Option<S>> {
        let Some(at) = &self.spec.as_of else {
            return Ok(None);
        };
        let now = self.timed(self.hosts.entries);
        let snapshot = history::snapshot_as_of(&now, self.spec.function, user_id, at).await?;
        Ok(Some(S::from_snapshot(snapshot)))
    }

    /// Who makes this operation's changes, and the history they are kept in.
    fn writer(&self) -> Writer<'_, H> {
        Writer {
            clock: self.hosts.host,
            history: &self.spec.config.history,
            author: &self.spec.author,
        }
    }

    /// `listUserMemories`: the user's entries, most recently updated first.
    pub async fn list(&self, user_id: &str) -> Result<Vec<Entry>> {
        let past = self.read_store(user_id).await?;
        let store = self.timed(past.as_ref().unwrap_or(self.hosts.entries));
        memories::list_user_memories(&store, user_id).await
    }

    /// `getVisibleMemories`: what one agent sees, or the query's violations.
    pub async fn visible(&self, query: &Value) -> Result<Visible> {
        let query = match VisibleQuery::parse(query, &self.spec.config) {
            Ok(query) => query,
            Err(violations) => return Ok(Visible::Violations { violations }),
        };
        let past = self.read_store(&query.user_id).await?;
        let store = self.timed(past.as_ref().unwrap_or(self.hosts.entries));
        let entries = memories::visible_memories(&store, &query).await?;
        Ok(Visible::Entries { entries })
    }

    /// `searchUserMemories`: the user's entries matching `query`, in the operation's mode.
    pub async fn search(&self, user_id: &str, query: &str) -> Result<Vec<Entry>> {
        let past = self.read_store(user_id).await?;
        let store = self.timed(past.as_ref().unwrap_or(self.hosts.entries));
        let limit = self.spec.limit.map(|l| l.get() as u64);
        let hosts = self.hosts.search();
        let search = &self.spec.config.search;
        memories::search_user_memories_in(&store, &hosts, user_id, query, search, limit).await
    }

    /// `getMemoryByKey`: the entry with `key` (the agent's own first, else the global one).
    pub async fn by_key(
        &self,
        user_id: &str,
        key: &str,
        agent: Option<&str>,
    ) -> Result<Option<Entry>> {
        let past = self.read_store(user_id).await?;
        let store = self.timed(past.as_ref().unwrap_or(self.hosts.entries));
        memories::memory_by_key(&store, user_id, key, agent).await
    }

    /// `countUserMemories`: the user's entries but `_gdpr_` ones.
    pub async fn count(&self, user_id: &str) -> Result<u64> {
        let past = self.read_store(user_id).await?;
        let store = self.timed(past.as_ref().unwrap_or(self.hosts.entries));
        memories::count_user_memories(&store, user_id).await
    }

    /// `upsertUserMemory`: the write, then (with an embedder) the written entry's vector.
    pub async fn upsert(&self, request: &Value) -> Result<UpsertOutcome> {
        let store = self.timed(self.hosts.entries);
        let (writer, config, surface) = (self.writer(), &self.spec.config, self.spec.surface);
        let outcome = self
            .writes
            .upsert(&store, writer, self.hosts.host, config, request, surface)
            .await?;
        memories::embed_written(&store, &self.hosts.search(), &outcome).await;
        Ok(outcome)
    }

    /// `deleteUserMemory`: one entry by id (given `owner`, only that user's).
    pub async fn delete(&self, entry_id: &str, owner: Option<&str>) -> Result<DeleteOutcome> {
        let store = self.timed(self.hosts.entries);
        memories::delete_user_memory(&store, self.writer(), entry_id, owner).await
    }

    /// `deleteAllUserMemories`: every entry of the user; how many were deleted.
    pub async fn delete_all(&self, user_id: &str) -> Result<u64> {
        let store = self.timed(self.hosts.entries);
        self.writes.delete_all(&store, self.writer(), user_id).await
    }

    /// `entryHistory`: an entry's current state and its kept versions.
    pub async fn history(&self, request: &HistoryRequest) -> Result<History> {
        let store = self.timed(self.hosts.entries);
        let (entry, key) = (request.entry_id.as_deref(), request.key.as_deref());
        history::read_history(&store, &request.user_id, entry, key).await
    }

    /// `auditLog`: the records the request names, in `seq` order.
    pub async fn audit(&self, request: &AuditRequest) -> Result<Vec<AuditRecord>> {
        let store = self.timed(self.hosts.entries);
        let (user, since) = (request.user_id.as_deref(), request.since.as_deref());
        history::read_audit(&store, user, since, request.after_seq, request.limit).await
    }

    /// `restoreVersion`: the version's state written back as the current one.
    pub async fn restore(&self, request: &RestoreRequest) -> Result<RestoreOutcome> {
        let store = self.timed(self.hosts.entries);
        let (user, version) = (request.user_id.as_str(), request.version_id.as_str());
        let config = &self.spec.config;
        self.writes
            .restore(&store, self.writer(), config, user, version)
            .await
    }
}
