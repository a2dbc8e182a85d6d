//! The bundled in-memory entry store (SPEC §5): for tests, previews and single-process hosts.
//! Entries are grouped by user so a user's recall never scans other users, and it lends its
//! entries in place ([`EntryStore::with_entries`]) so recall and search copy only what they return.

use super::model::Entry;
use super::visibility::is_reserved_key;
use crate::error::{Error, ErrorCode, Result};
use crate::host::EntryStore;
use std::cell::RefCell;
use std::collections::HashMap;

/// An in-memory [`EntryStore`]. Single-threaded (wasm); every method is synchronous underneath.
#[derive(Debug, Default)]
pub struct InMemoryEntryStore {
    users: RefCell<HashMap<String, Vec<Entry>>>,
    owner: RefCell<HashMap<String, String>>,
}

fn busy() -> Error {
    Error::new(
        ErrorCode::Internal,
        "the in-memory entry store is busy (re-entrant call)",
    )
}

impl InMemoryEntryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every entry of one user (copies).
    pub fn list_now(&self, user_id: &str) -> Result<Vec<Entry>> {
        let users = self.users.try_borrow().map_err(|_| busy())?;
        Ok(users.get(user_id).cloned().unwrap_or_default())
    }

    /// One entry by id.
    pub fn get_now(&self, id: &str) -> Result<Option<Entry>> {
        let owner = self.owner.try_borrow().map_err(|_| busy())?;
        let users = self.users.try_borrow().map_err(|_| busy())?;
        Ok(owner
            .get(id)
            .and_then(|user| users.get(user))
            .and_then(|entries| entries.iter().find(|e| e.id == id))
            .cloned())
    }

    /// Insert or replace by id (an entry moved to another user moves with it).
    pub fn upsert_now(&self, entry: &Entry) -> Result<()> {
        self.delete_now(&entry.id)?;
        let mut users = self.users.try_borrow_mut().map_err(|_| busy())?;
        let mut owner = self.owner.try_borrow_mut().map_err(|_| busy())?;
        users
            .entry(entry.user_id.clone())
            .or_default()
            .push(entry.clone());
        owner.insert(entry.id.clone(), entry.user_id.clone());
        Ok(())
    }

    /// Delete by id; `true` when something was deleted.
    pub fn delete_now(&self, id: &str) -> Result<bool> {
        let mut owner = self.owner.try_borrow_mut().map_err(|_| busy())?;
        let Some(user) = owner.remove(id) else {
            return Ok(false);
        };
        let mut users = self.users.try_borrow_mut().map_err(|_| busy())?;
        if let Some(entries) = users.get_mut(&user) {
            entries.retain(|e| e.id != id);
            if entries.is_empty() {
                users.remove(&user);
            }
        }
        Ok(true)
    }

    /// Add one to the access count of each id (unknown ids are ignored).
    pub fn increment_access_now(&self, ids: &[String]) -> Result<()> {
        let owner = self.owner.try_borrow().map_err(|_| busy())?;
        let mut users = self.users.try_borrow_mut().map_err(|_| busy())?;
        for id in ids {
            let entry = owner
                .get(id)
                .and_then(|user| users.get_mut(user))
                .and_then(|entries| entries.iter_mut().find(|e| &e.id == id));
            if let Some(entry) = entry {
                entry.access_count = entry.access_count.saturating_add(1);
            }
        }
        Ok(())
    }

    /// A user's entries excluding `_gdpr_` bookkeeping (what counts toward `maxEntriesPerUser`).
    pub fn count_user_now(&self, user_id: &str) -> Result<usize> {
        let users = self.users.try_borrow().map_err(|_| busy())?;
        Ok(users.get(user_id).map_or(0, |entries| {
            entries.iter().filter(|e| !is_reserved_key(&e.key)).count()
        }))
    }

    /// Number of entries of every user.
    pub fn len(&self) -> usize {
        self.owner.try_borrow().map_or(0, |owner| owner.len())
    }

    /// Whether the store holds no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl EntryStore for InMemoryEntryStore {
    async fn list(&self, user_id: &str) -> Result<Vec<Entry>> {
        self.list_now(user_id)
    }
    async fn get(&self, id: &str) -> Result<Option<Entry>> {
        self.get_now(id)
    }
    async fn upsert(&self, entry: &Entry) -> Result<()> {
        self.upsert_now(entry)
    }
    async fn delete(&self, id: &str) -> Result<bool> {
        self.delete_now(id)
    }
    async fn increment_access(&self, ids: &[String]) -> Result<()> {
        self.increment_access_now(ids)
    }
    async fn count_user(&self, user_id: &str) -> Result<Option<usize>> {
        self.count_user_now(user_id).map(Some)
    }
    fn with_entries<R>(&self, user_id: &str, f: impl FnOnce(&[Entry]) -> R) -> Option<R> {
        let users = self.users.try_borrow().ok()?;
        Some(f(users
            .get(user_id)
            .map_or(&[], |entries| entries.as_slice())))
    }
}
