//! The entry store over a JS store adapter (`js/host.js`): each [`EntryStore`] method is one
//! adapter call with JSON arguments, and every answer is decoded with shape checks (an unusable
//! answer is `E_HOST` naming the callback). A pushed-down method the user did not supply is
//! `None`, so the core falls back to its own in-process rule.

use super::{answer, Arg, Remote, Transport};
use crate::boundary::json::to_json;
use crate::entries::entry::Entry;
use crate::entries::episode::{Episode, EpisodeQuery};
use crate::entries::history::{
    AuditQuery, AuditRecord, HistoryAppend, HistoryErasure, HistoryRenames, HistorySize, Version,
    VersionQuery,
};
use crate::entries::search::vectors::{from_base64, to_base64};
use crate::entries::store::{
    AtomicWrites, EpisodeStore, HistoryStore, InProcess, PushDown, VectorStore,
};
use crate::entries::store::{
    CapWrite, EntryStore, IdHolder, OwnQuery, ProfileInsert, RecallQuery, StoredVector,
    UnembeddedQuery, VectorWrite,
};
use crate::error::Result;
use crate::error::{Error, ErrorCode};
use serde::{Deserialize, Serialize};

/// One row of `store.vectors` on the wire: the vector bytes as base64 (`js/host.js` encodes the
/// store's `Uint8Array`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireVector {
    id: String,
    vector: String,
}

/// One row of `store.putVectors` on the wire (`js/host.js` decodes the base64 to a `Uint8Array`).
#[derive(Serialize)]
struct WireVectorWrite<'a> {
    id: &'a str,
    key: &'a str,
    value: &'a serde_json::Value,
    model: &'a str,
    vector: String,
}

impl<T: Transport> Remote<T> {
    /// A pushed-down query taking one JSON argument: `None` when the store has no such method.
    async fn query<Q: Serialize>(
        &self,
        method: &str,
        label: &str,
        query: &Q,
    ) -> Result<Option<Vec<Entry>>> {
        if !self.0.has(method) {
            return Ok(None);
        }
        let query = to_json(query)?;
        let json = self.0.call(method, &[Arg::Text(&query)]).await?;
        answer(label, &json)
    }

    /// The handle of the store's search index for `user_id` (an `InMemoryEntryStore` mirror
    /// holding that user's entries and the vectors of `model`), or `None` when the store has no
    /// `searchIndex` method or answers `null`. JS answers the handle as a JSON number.
    pub async fn search_index(&self, user_id: &str, model: Option<&str>) -> Result<Option<u32>> {
        if !self.0.has("searchIndex") {
            return Ok(None);
        }
        let model = to_json(&model)?;
        let args = [Arg::Text(user_id), Arg::Text(&model)];
        let json = self.0.call("searchIndex", &args).await?;
        answer("store.searchIndex", &json)
    }
}

/// An entry store (behaviour §5; every method may be async on the user's side).
impl<T: Transport> EntryStore for Remote<T> {
    async fn list(&self, user_id: &str) -> Result<Vec<Entry>> {
        let json = self.0.call("list", &[Arg::Text(user_id)]).await?;
        Ok(answer::<Option<Vec<Entry>>>("store.list", &json)?.unwrap_or_default())
    }
    async fn get(&self, id: &str) -> Result<Option<Entry>> {
        let json = self.0.call("get", &[Arg::Text(id)]).await?;
        answer("store.get", &json)
    }
    async fn upsert(&self, entry: &Entry) -> Result<()> {
        let entry = to_json(entry)?;
        self.0.call("upsert", &[Arg::Text(&entry)]).await.map(drop)
    }
    /// A store that answers nothing is taken to have deleted (most SQL drivers return counts);
    /// `false` and `0` mean nothing was there.
    async fn delete(&self, id: &str) -> Result<bool> {
        let json = self.0.call("delete", &[Arg::Text(id)]).await?;
        let value: serde_json::Value = answer("store.delete", &json)?;
        Ok(!matches!(value, serde_json::Value::Bool(false)) && value.as_f64() != Some(0.0))
    }
    async fn increment_access(&self, ids: &[String]) -> Result<()> {
        let ids = to_json(ids)?;
        let args = [Arg::Text(&ids)];
        self.0.call("incrementAccess", &args).await.map(drop)
    }
}

impl<T: Transport> PushDown for Remote<T> {
    /// Missing method → the core counts; a negative or non-finite count is ignored.
    async fn count_user(&self, user_id: &str) -> Result<Option<usize>> {
        if !self.0.has("countUser") {
            return Ok(None);
        }
        let json = self.0.call("countUser", &[Arg::Text(user_id)]).await?;
        let count: Option<f64> = answer("store.countUser", &json)?;
        Ok(count
            .filter(|n| n.is_finite() && *n >= 0.0)
            .map(|n| n as usize))
    }
    async fn search(&self, user_id: &str, query: &str) -> Result<Option<Vec<Entry>>> {
        if !self.0.has("search") {
            return Ok(None);
        }
        let args = [Arg::Text(user_id), Arg::Text(query)];
        let json = self.0.call("search", &args).await?;
        answer("store.search", &json)
    }
    async fn recall(&self, query: &RecallQuery<'_>) -> Result<Option<Vec<Entry>>> {
        self.query("recall", "store.recall", query).await
    }
    async fn find_by_key(&self, user_id: &str, key: &str) -> Result<Option<Vec<Entry>>> {
        if !self.0.has("findByKey") {
            return Ok(None);
        }
        let args = [Arg::Text(user_id), Arg::Text(key)];
        let json = self.0.call("findByKey", &args).await?;
        answer("store.findByKey", &json)
    }
    async fn oldest_own(&self, query: &OwnQuery<'_>) -> Result<Option<Vec<Entry>>> {
        self.query("oldestOwn", "store.oldestOwn", query).await
    }
}

/// `{ maxEntries, evict }`, the options of `insertWithinCap` and `insertWithHistory` (one copy in
/// the wasm).
fn cap_options(max_entries: u64, evict: &[String]) -> Result<String> {
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct CapOptions<'a> {
        max_entries: u64,
        evict: &'a [String],
    }
    to_json(&CapOptions { max_entries, evict })
}

impl<T: Transport> Remote<T> {
    /// `insertWithinCap(entry, options)` or `insertWithHistory(entry, options, append)`: one copy
    /// of the call in the wasm; the answer reads as a [`CapWrite`].
    async fn capped(
        &self,
        method: &'static str,
        callback: &'static str,
        entry: &Entry,
        max_entries: u64,
        evict: &[String],
        append: Option<&HistoryAppend<'_>>,
    ) -> Result<Option<CapWrite>> {
        if !self.0.has(method) {
            return Ok(None);
        }
        let entry = to_json(entry)?;
        let options = cap_options(max_entries, evict)?;
        let append = append.map(to_json).transpose()?;
        let args = [
            Arg::Text(&entry),
            Arg::Text(&options),
            Arg::Text(append.as_deref().unwrap_or_default()),
        ];
        let sent = if append.is_some() { 3 } else { 2 };
        let json = self
            .0
            .call(method, args.get(..sent).unwrap_or(&args))
            .await?;
        answer(callback, &json)
    }
}

impl<T: Transport> AtomicWrites for Remote<T> {
    /// The options travel as `{ maxEntries, evict }`.
    async fn insert_within_cap(
        &self,
        entry: &Entry,
        max_entries: u64,
        evict: &[String],
    ) -> Result<Option<CapWrite>> {
        self.capped(
            "insertWithinCap",
            "store.insertWithinCap",
            entry,
            max_entries,
            evict,
            None,
        )
        .await
    }
    /// The entries travel as one JSON array (and the profile as `{ profile: { path, text } }`);
    /// whatever the store answers means "all written" — the caller checks that a store which
    /// does not know the profile option has not dropped it.
    async fn insert_all(
        &self,
        entries: &[Entry],
        profile: Option<ProfileInsert<'_>>,
    ) -> Result<bool> {
        if !self.0.has("insertAll") {
            return Ok(false);
        }
        let entries = to_json(entries)?;
        match profile {
            Some(profile) => {
                let options = to_json(&serde_json::json!({ "profile": profile }))?;
                let args = [Arg::Text(&entries), Arg::Text(&options)];
                self.0.call("insertAll", &args).await?;
            }
            None => {
                self.0.call("insertAll", &[Arg::Text(&entries)]).await?;
            }
        }
        Ok(true)
    }
}

impl<T: Transport> VectorStore for Remote<T> {
    /// `[{ id, vector }]`, the vector as base64 on the wire; bytes that are not base64 are
    /// `E_HOST` naming the row.
    async fn vectors(&self, user_id: &str, model: &str) -> Result<Option<Vec<StoredVector>>> {
        if !self.0.has("vectors") {
            return Ok(None);
        }
        let args = [Arg::Text(user_id), Arg::Text(model)];
        let json = self.0.call("vectors", &args).await?;
        let rows: Option<Vec<WireVector>> = answer("store.vectors", &json)?;
        let mut out = Vec::with_capacity(rows.as_ref().map_or(0, Vec::len));
        for (i, row) in rows.unwrap_or_default().into_iter().enumerate() {
            let vector = from_base64(&row.vector).ok_or_else(|| {
                Error::new(
                    ErrorCode::Host,
                    format!("store.vectors returned an unusable value at `[{i}].vector`: not the bytes of a vector"),
                )
                .with_details(serde_json::json!({ "operation": "store.vectors", "path": format!("[{i}].vector") }))
            })?;
            out.push(StoredVector { id: row.id, vector });
        }
        Ok(Some(out))
    }
    /// The rows travel as one JSON array; the store answers how many it wrote (anything but a
    /// count reads as all of them).
    async fn put_vectors(&self, rows: &[VectorWrite<'_>]) -> Result<Option<usize>> {
        if !self.0.has("putVectors") {
            return Ok(None);
        }
        let wire: Vec<WireVectorWrite> = rows
            .iter()
            .map(|r| WireVectorWrite {
                id: r.id,
                key: r.key,
                value: r.value,
                model: r.model,
                vector: to_base64(r.vector),
            })
            .collect();
        let json = to_json(&wire)?;
        let answered = self.0.call("putVectors", &[Arg::Text(&json)]).await?;
        let count: serde_json::Value = answer("store.putVectors", &answered)?;
        Ok(Some(match count.as_f64() {
            Some(n) if n.is_finite() && n >= 0.0 => (n as usize).min(rows.len()),
            _ => rows.len(),
        }))
    }
    async fn unembedded(&self, query: &UnembeddedQuery<'_>) -> Result<Option<Vec<Entry>>> {
        self.query("unembedded", "store.unembedded", query).await
    }
}

impl<T: Transport> HistoryStore for Remote<T> {
    /// The append travels as one JSON object; the answer is ignored. A store without
    /// `appendHistory` keeps no history.
    fn keeps_history(&self) -> bool {
        self.0.has("appendHistory")
    }
    async fn append_history(&self, append: &HistoryAppend<'_>) -> Result<bool> {
        if !self.0.has("appendHistory") {
            return Ok(false);
        }
        let append = to_json(append)?;
        self.0.call("appendHistory", &[Arg::Text(&append)]).await?;
        Ok(true)
    }
    /// `writeWithHistory(entry, append)`: the entry and the append, each one JSON object; the
    /// answer is ignored.
    async fn write_with_history(&self, entry: &Entry, append: &HistoryAppend<'_>) -> Result<bool> {
        if !self.0.has("writeWithHistory") {
            return Ok(false);
        }
        let (entry, append) = (to_json(entry)?, to_json(append)?);
        let args = [Arg::Text(&entry), Arg::Text(&append)];
        self.0.call("writeWithHistory", &args).await?;
        Ok(true)
    }
    /// `insertWithHistory(entry, { maxEntries, evict }, append)`: the answer reads as
    /// `insertWithinCap`'s does.
    async fn insert_with_history(
        &self,
        entry: &Entry,
        max_entries: u64,
        evict: &[String],
        append: &HistoryAppend<'_>,
    ) -> Result<Option<CapWrite>> {
        self.capped(
            "insertWithHistory",
            "store.insertWithHistory",
            entry,
            max_entries,
            evict,
            Some(append),
        )
        .await
    }
    /// `deleteWithHistory(id, append)`: the answer reads as `delete`'s does.
    async fn delete_with_history(
        &self,
        id: &str,
        append: &HistoryAppend<'_>,
    ) -> Result<Option<bool>> {
        if !self.0.has("deleteWithHistory") {
            return Ok(None);
        }
        let append = to_json(append)?;
        let json = self
            .0
            .call("deleteWithHistory", &[Arg::Text(id), Arg::Text(&append)])
            .await?;
        let value: serde_json::Value = answer("store.deleteWithHistory", &json)?;
        Ok(Some(
            !matches!(value, serde_json::Value::Bool(false)) && value.as_f64() != Some(0.0),
        ))
    }
    async fn audit_log(&self, query: &AuditQuery<'_>) -> Result<Option<Vec<AuditRecord>>> {
        if !self.0.has("auditLog") {
            return Ok(None);
        }
        let query = to_json(query)?;
        let json = self.0.call("auditLog", &[Arg::Text(&query)]).await?;
        answer("store.auditLog", &json)
    }
    /// `eraseHistory(userId, record, renames)`: a store written before renames existed ignores
    /// the third argument and answers no `renamed`, which the report then shows as `null`.
    async fn erase_history(
        &self,
        user_id: &str,
        record: &AuditRecord,
        renames: &HistoryRenames,
    ) -> Result<Option<HistoryErasure>> {
        if !self.0.has("eraseHistory") {
            return Ok(None);
        }
        let record = to_json(record)?;
        let renames = to_json(renames)?;
        let args = [Arg::Text(user_id), Arg::Text(&record), Arg::Text(&renames)];
        let json = self.0.call("eraseHistory", &args).await?;
        answer("store.eraseHistory", &json)
    }
    async fn versions_by_author(&self, author_id: &str) -> Result<Option<Vec<Version>>> {
        if !self.0.has("versionsByAuthor") {
            return Ok(None);
        }
        let json = self
            .0
            .call("versionsByAuthor", &[Arg::Text(author_id)])
            .await?;
        answer("store.versionsByAuthor", &json)
    }
    async fn history_size(&self, user_id: &str) -> Result<Option<HistorySize>> {
        if !self.0.has("historySize") {
            return Ok(None);
        }
        let json = self.0.call("historySize", &[Arg::Text(user_id)]).await?;
        answer("store.historySize", &json)
    }
    /// The ids travel as one JSON array.
    async fn id_holders(&self, ids: &[String]) -> Result<Option<Vec<IdHolder>>> {
        if !self.0.has("idHolders") {
            return Ok(None);
        }
        let ids = to_json(ids)?;
        let json = self.0.call("idHolders", &[Arg::Text(&ids)]).await?;
        // Read as JSON values (a decoder the wasm has already), then field by field.
        let rows: Option<Vec<serde_json::Value>> = answer("store.idHolders", &json)?;
        let holder = |row: &serde_json::Value| {
            Some(IdHolder {
                id: row.get("id")?.as_str()?.to_string(),
                user_id: row.get("userId")?.as_str()?.to_string(),
                current: row.get("current")?.as_bool()?,
            })
        };
        rows.map(|rows| {
            rows.iter()
                .map(|row| {
                    holder(row).ok_or_else(|| {
                        Error::new(
                            ErrorCode::Host,
                            "store.idHolders returned an unusable value: each holder is { id, userId, current }",
                        )
                        .with_details(serde_json::json!({ "operation": "store.idHolders" }))
                    })
                })
                .collect()
        })
        .transpose()
    }
    async fn versions(&self, query: &VersionQuery<'_>) -> Result<Option<Vec<Version>>> {
        if !self.0.has("versions") {
            return Ok(None);
        }
        let query = to_json(query)?;
        let json = self.0.call("versions", &[Arg::Text(&query)]).await?;
        answer("store.versions", &json)
    }
}

impl<T: Transport> EpisodeStore for Remote<T> {
    /// The episodes travel as one JSON array; the store answers how many it wrote.
    async fn put_episodes(&self, episodes: &[Episode]) -> Result<Option<usize>> {
        if !self.0.has("putEpisodes") {
            return Ok(None);
        }
        let json = to_json(episodes)?;
        let answered = self.0.call("putEpisodes", &[Arg::Text(&json)]).await?;
        let count: serde_json::Value = answer("store.putEpisodes", &answered)?;
        Ok(Some(match count.as_f64() {
            Some(n) if n.is_finite() && n >= 0.0 => (n as usize).min(episodes.len()),
            _ => episodes.len(),
        }))
    }
    async fn episodes(&self, query: &EpisodeQuery<'_>) -> Result<Option<Vec<Episode>>> {
        if !self.0.has("episodes") {
            return Ok(None);
        }
        let query = to_json(query)?;
        let json = self.0.call("episodes", &[Arg::Text(&query)]).await?;
        answer("store.episodes", &json)
    }
    /// `before` travels as JSON (`null`: every episode of the user).
    async fn delete_episodes(&self, user_id: &str, before: Option<&str>) -> Result<Option<usize>> {
        if !self.0.has("deleteEpisodes") {
            return Ok(None);
        }
        let before = to_json(&before)?;
        let json = self
            .0
            .call("deleteEpisodes", &[Arg::Text(user_id), Arg::Text(&before)])
            .await?;
        let count: serde_json::Value = answer("store.deleteEpisodes", &json)?;
        Ok(Some(match count.as_f64() {
            Some(n) if n.is_finite() && n >= 0.0 => n as usize,
            _ => 0,
        }))
    }
}

impl<T: Transport> InProcess for Remote<T> {}
