//! Entry storage (SPEC §2, §5): the [`EntryStore`] host trait, the indexed [`EntrySet`] that
//! in-process stores lend to recall and search, and the bundled [`InMemoryEntryStore`].

pub mod entry_set;
pub mod memory;

pub use entry_set::EntrySet;
pub use memory::InMemoryEntryStore;

use super::entry::Entry;
use crate::error::Result;
use crate::host::adapter::answer;
use crate::host::{Arg, Remote, Timed, Timer, Transport};
use crate::json::to_json;

/// Entry storage (SPEC §2, §5). Async without a `Send` bound, like the other host traits: in
/// wasm everything runs on one thread and JS-backed futures are not `Send`.
#[allow(async_fn_in_trait)]
pub trait EntryStore {
    /// Every entry of one user.
    async fn list(&self, user_id: &str) -> Result<Vec<Entry>>;
    /// One entry by id.
    async fn get(&self, id: &str) -> Result<Option<Entry>>;
    /// Insert or replace the entry with this id.
    async fn upsert(&self, entry: &Entry) -> Result<()>;
    /// Delete by id; `true` when something was deleted.
    async fn delete(&self, id: &str) -> Result<bool>;
    /// Add one to the access count of each id.
    async fn increment_access(&self, ids: &[String]) -> Result<()>;
    /// Optional pushed-down count of a user's entries excluding `_gdpr_` keys; `None` → the core
    /// counts from `list`.
    async fn count_user(&self, _user_id: &str) -> Result<Option<usize>> {
        Ok(None)
    }
    /// Optional pushed-down search: a *superset* of the user's entries that may match `query`
    /// (e.g. a SQL `ILIKE` prefilter); `None` → the core searches the result of `list`. The core
    /// always re-applies its own matching and visibility to what is returned, so an adapter may
    /// over-approximate but must not drop a match.
    async fn search(&self, _user_id: &str, _query: &str) -> Result<Option<Vec<Entry>>> {
        Ok(None)
    }
    /// Optional zero-copy access for in-process stores: run `f` over the user's indexed entries
    /// in place and return its result; `None` → the core falls back to `list`. Recall and search
    /// use it so that they parse and copy nothing but what they return.
    fn with_entries<R>(&self, _user_id: &str, _f: impl FnOnce(&EntrySet) -> R) -> Option<R> {
        None
    }
}

impl<H: EntryStore, T: Timer> EntryStore for Timed<'_, H, T> {
    async fn list(&self, user_id: &str) -> Result<Vec<Entry>> {
        self.run("store.list", self.host.list(user_id)).await
    }
    async fn get(&self, id: &str) -> Result<Option<Entry>> {
        self.run("store.get", self.host.get(id)).await
    }
    async fn upsert(&self, entry: &Entry) -> Result<()> {
        self.run("store.upsert", self.host.upsert(entry)).await
    }
    async fn delete(&self, id: &str) -> Result<bool> {
        self.run("store.delete", self.host.delete(id)).await
    }
    async fn increment_access(&self, ids: &[String]) -> Result<()> {
        self.run("store.incrementAccess", self.host.increment_access(ids))
            .await
    }
    async fn count_user(&self, user_id: &str) -> Result<Option<usize>> {
        self.run("store.countUser", self.host.count_user(user_id))
            .await
    }
    async fn search(&self, user_id: &str, query: &str) -> Result<Option<Vec<Entry>>> {
        self.run("store.search", self.host.search(user_id, query))
            .await
    }
    fn with_entries<R>(&self, user_id: &str, f: impl FnOnce(&EntrySet) -> R) -> Option<R> {
        self.host.with_entries(user_id, f)
    }
}

/// An entry store (SPEC §5; every method may be async on the user's side).
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
}
