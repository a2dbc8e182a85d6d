//! [`Versioned`]: the entry store every write of the core goes through, and the [`Writer`] that
//! builds it per operation (see the module documentation of [`super`]).

use super::*;
use crate::entries::store::AtomicWrites;
use crate::entries::store::{CapWrite, EntryStore, ProfileInsert};

/// A clock that always answers one instant: what dates the changes of an operation that has its
/// own instant (a Dream run's `now`).
#[derive(Debug, Clone, Copy)]
pub struct At(pub chrono::DateTime<chrono::Utc>);

impl Clock for At {
    fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.0
    }
}

/// Who makes an operation's changes and the history they are kept in: what the write functions
/// that have no configuration of their own take ([`Writer::store`]).
pub struct Writer<'a, C> {
    /// The clock that dates the changes.
    pub clock: &'a C,
    /// The history settings.
    pub history: &'a HistoryConfig,
    /// Who makes the changes.
    pub author: &'a Author,
}

impl<C> Clone for Writer<'_, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for Writer<'_, C> {}

impl<'a, C: Clock> Writer<'a, C> {
    /// `store` as this writer changes it.
    pub fn store<S: EntryStore>(self, store: &'a S) -> Versioned<'a, S, C> {
        Versioned::new(store, self.clock, self.history, self.author)
    }
}

/// The entry store every write of the core goes through: reads pass through; a write that
/// replaces or deletes an entry's state first appends that state as a [`Version`] (see the
/// module documentation). Built per operation with its author; [`Versioned::because`] and
/// [`Versioned::superseded_by`] name the reason and the next state where the write itself does
/// not say (a Dream prune, a summary).
pub struct Versioned<'a, S, C> {
    store: &'a S,
    clock: &'a C,
    config: &'a HistoryConfig,
    author: &'a Author,
    reason: Option<Reason>,
    superseded_by: Option<&'a str>,
    /// Where the changes come from (learned facts), stamped on their audit records.
    source: Option<&'a Source>,
    /// Ids whose eviction is already kept: a store without `insertWithinCap` has the core delete
    /// them next, and that delete is not a second version.
    evicted: std::cell::RefCell<Vec<String>>,
    /// The id of a capped write already audited, which the core then writes itself.
    written: std::cell::RefCell<Option<String>>,
    /// The current state of the entry the next upsert replaces, as the caller read it in this
    /// operation ([`Versioned::holding`]): that upsert does not read it again.
    held: std::cell::RefCell<Option<Entry>>,
}

impl<S, C> Clone for Versioned<'_, S, C> {
    fn clone(&self) -> Self {
        Versioned {
            store: self.store,
            clock: self.clock,
            config: self.config,
            author: self.author,
            reason: self.reason,
            superseded_by: self.superseded_by,
            source: self.source,
            evicted: std::cell::RefCell::default(),
            written: std::cell::RefCell::default(),
            held: std::cell::RefCell::default(),
        }
    }
}

impl<'a, S: EntryStore, C: Clock> Versioned<'a, S, C> {
    /// `store` with history kept as `config` says, every change made by `author`.
    pub fn new(store: &'a S, clock: &'a C, config: &'a HistoryConfig, author: &'a Author) -> Self {
        Versioned {
            store,
            clock,
            config,
            author,
            reason: None,
            superseded_by: None,
            source: None,
            evicted: std::cell::RefCell::default(),
            written: std::cell::RefCell::default(),
            held: std::cell::RefCell::default(),
        }
    }

    /// Tell the store that `current` is the stored state of the entry the next upsert replaces
    /// (or the next delete removes): the caller read it in this operation, under the user's write
    /// lock, so the write keeps it as the version without reading it again. Only the next write
    /// uses it, and only for the same id.
    pub fn holding(&self, current: &Entry) {
        *self.held.borrow_mut() = Some(current.clone());
    }

    /// The same store, every change's audit record naming `source` (learned facts).
    pub fn from_source(&self, source: &'a Source) -> Self {
        let mut next = self.clone();
        next.source = Some(source);
        next
    }

    /// The same store, every change recorded with `reason`.
    pub fn because(&self, reason: Reason) -> Self {
        let mut next = self.clone();
        next.reason = Some(reason);
        next
    }

    /// The same store, every deleted or replaced state superseded by entry `id`.
    pub fn superseded_by(&self, id: &'a str) -> Self {
        let mut next = self.clone();
        next.superseded_by = Some(id);
        next
    }

    /// Append `versions` and `audit` (all of `user_id`) with the retention of now. A store
    /// without history takes nothing.
    async fn record(
        &self,
        user_id: &str,
        versions: &[Version],
        audit: &[AuditRecord],
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<()> {
        let append = self.append(user_id, versions, audit, now);
        self.store.append_history(&append).await?;
        Ok(())
    }

    /// The append of `versions` and `audit` (all of `user_id`) with the retention of now.
    fn append<'b>(
        &self,
        user_id: &'b str,
        versions: &'b [Version],
        audit: &'b [AuditRecord],
        now: chrono::DateTime<chrono::Utc>,
    ) -> HistoryAppend<'b> {
        HistoryAppend {
            user_id,
            versions,
            audit,
            max_versions_per_entry: self.config.max_versions_per_entry,
            not_before: not_before(now, self.config.retain_days),
        }
    }

    /// The audit record of `operation` on `entry` now, by this store's author.
    fn audit(&self, at: &str, operation: Operation, entry: &Entry) -> AuditRecord {
        AuditRecord::new(at, self.author, operation, &entry.user_id)
            .of_entry(entry)
            .from_source(self.source)
    }

    /// The version of `old` ended now (by this store's author and reason).
    fn version(&self, old: &Entry, now: &str, default: Reason, next: Option<&str>) -> Version {
        Version::of(
            old,
            now.to_string(),
            self.author,
            self.reason.unwrap_or(default),
            self.superseded_by.or(next),
        )
    }

    /// `entry` written by this store's author, unless it already is or this is a rollback
    /// (which restores an entry as it was, author included).
    fn stamped(&self, entry: &Entry) -> Option<Entry> {
        let rollback = self.reason == Some(Reason::RolledBack);
        (!rollback && entry.written_by != Some(self.author.kind))
            .then(|| entry.clone().by(self.author))
    }

    /// Whether changes are kept: history is on and the store keeps it.
    fn keeping(&self) -> bool {
        self.config.enabled && self.store.keeps_history()
    }

    /// Apply the retention to `user_id`'s history now (what Dream runs): nothing is appended.
    pub async fn apply_retention(&self, user_id: &str) -> Result<()> {
        if !self.keeping() {
            return Ok(());
        }
        self.record(user_id, &[], &[], self.clock.now()).await
    }

    /// Append one audit record now (an operation that is not an entry write: a restriction, an
    /// import, an export), with the retention of now.
    pub async fn log(&self, record: AuditRecord) -> Result<()> {
        if !self.keeping() {
            return Ok(());
        }
        let user = record.user_id.clone();
        self.record(&user, &[], &[record], self.clock.now()).await
    }
}

/// The reason a replacement of `old` by `new` has when the writer names none: another writer
/// replacing a global entry overwrites it; anything else updates it.
fn replacement_reason(old: &Entry, new: &Entry) -> Reason {
    if old.visibility == "global" && old.source_agent_id != new.source_agent_id {
        Reason::Overwritten
    } else {
        Reason::Updated
    }
}

impl<S: EntryStore, C: Clock> EntryStore for Versioned<'_, S, C> {
    async fn list(&self, user_id: &str) -> Result<Vec<Entry>> {
        self.store.list(user_id).await
    }
    async fn get(&self, id: &str) -> Result<Option<Entry>> {
        self.store.get(id).await
    }
    /// A replaced state is kept as a version; every write is an audit record. The entry is stored
    /// written by this store's author (a rollback puts the original back as it was).
    async fn upsert(&self, entry: &Entry) -> Result<()> {
        let stamped = self.stamped(entry);
        let entry = stamped.as_ref().unwrap_or(entry);
        let audited = self
            .written
            .borrow_mut()
            .take_if(|id| *id == entry.id)
            .is_some();
        let held = self.held.borrow_mut().take().filter(|e| e.id == entry.id);
        if self.keeping() && !audited {
            let old = match held {
                Some(current) => Some(current),
                None => self
                    .store
                    .get(&entry.id)
                    .await?
                    .filter(|e| e.id == entry.id),
            };
            let now = self.clock.now();
            let at = instant_text(now);
            let mut versions = Vec::new();
            if let Some(old) = old.filter(|old| is_new_state(old, entry)) {
                let reason = replacement_reason(&old, entry);
                versions.push(self.version(&old, &at, reason, Some(&entry.id)));
            }
            let operation = match self.reason {
                Some(Reason::Restored) => Operation::Restore,
                _ => Operation::Write,
            };
            let audit = [self.audit(&at, operation, entry)];
            let append = self.append(&entry.user_id, &versions, &audit, now);
            // One step where the store can; otherwise the append first, then the write.
            if self.store.write_with_history(entry, &append).await? {
                return Ok(());
            }
            self.store.append_history(&append).await?;
        }
        self.store.upsert(entry).await
    }
    /// The deleted state is kept as a version, and the delete is an audit record.
    async fn delete(&self, id: &str) -> Result<bool> {
        let already = {
            let mut evicted = self.evicted.borrow_mut();
            let at = evicted.iter().position(|e| e == id);
            at.map(|at| evicted.swap_remove(at)).is_some()
        };
        let held = self.held.borrow_mut().take().filter(|e| e.id == id);
        if self.keeping() && !already {
            let old = match held {
                Some(current) => Some(current),
                None => self.store.get(id).await?.filter(|e| e.id == id),
            };
            if let Some(old) = old {
                let now = self.clock.now();
                let at = instant_text(now);
                let version = [self.version(&old, &at, Reason::Deleted, None)];
                let audit = [self.audit(&at, Operation::Delete, &old)];
                let append = self.append(&old.user_id, &version, &audit, now);
                // One step where the store can; otherwise the append first, then the delete.
                if let Some(deleted) = self.store.delete_with_history(id, &append).await? {
                    return Ok(deleted);
                }
                self.store.append_history(&append).await?;
            }
        }
        self.store.delete(id).await
    }
    async fn increment_access(&self, ids: &[String]) -> Result<()> {
        self.store.increment_access(ids).await
    }
}

impl<S: EntryStore, C: Clock> AtomicWrites for Versioned<'_, S, C> {
    /// The evicted entries' states are versioned (reason `evicted`) and audited as deletes, and
    /// the write audited, before the capped insert.
    async fn insert_within_cap(
        &self,
        entry: &Entry,
        max_entries: u64,
        evict: &[String],
    ) -> Result<Option<CapWrite>> {
        let stamped = self.stamped(entry);
        let entry = stamped.as_ref().unwrap_or(entry);
        if !self.keeping() {
            return self
                .store
                .insert_within_cap(entry, max_entries, evict)
                .await;
        }
        let now = self.clock.now();
        let at = instant_text(now);
        let mut versions = Vec::new();
        let mut audit = Vec::new();
        for id in evict {
            if let Some(old) = self.store.get(id).await?.filter(|e| &e.id == id) {
                if old.user_id == entry.user_id {
                    versions.push(self.version(&old, &at, Reason::Evicted, None));
                    audit.push(self.audit(&at, Operation::Delete, &old));
                }
            }
        }
        let operation = match self.reason {
            Some(Reason::Restored) => Operation::Restore,
            _ => Operation::Write,
        };
        audit.push(self.audit(&at, operation, entry));
        // One step where the store can (nothing recorded when the insert is refused); otherwise
        // the record first, then the insert.
        let append = self.append(&entry.user_id, &versions, &audit, now);
        if let Some(written) = self
            .store
            .insert_with_history(entry, max_entries, evict, &append)
            .await?
        {
            return Ok(Some(written));
        }
        self.store.append_history(&append).await?;
        let written = self
            .store
            .insert_within_cap(entry, max_entries, evict)
            .await?;
        if written.is_none() {
            // The core deletes and writes them itself next: their versions and records are kept
            // already.
            *self.evicted.borrow_mut() = evict.to_vec();
            *self.written.borrow_mut() = Some(entry.id.clone());
        }
        Ok(written)
    }
    async fn insert_all(
        &self,
        entries: &[Entry],
        profile: Option<ProfileInsert<'_>>,
    ) -> Result<bool> {
        self.store.insert_all(entries, profile).await
    }
}

crate::forward_store!(field [S: EntryStore, C: Clock] Versioned<'_, S, C>, store:
    PushDown, VectorStore, HistoryStore, EpisodeStore, InProcess);
