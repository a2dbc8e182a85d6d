//! The Art. 20 import is all or nothing (SPEC §4.3, issue 19): a store without an atomic
//! `insert_all` gets its writes undone when one fails (the failing id included), a store with one
//! writes in one call, a failing profile write undoes the entries, and a retry then succeeds.

mod common;

use common::turn_fakes::VersionedStore;
use common::*;
use memcore::entries::store::{
    AtomicWrites, EpisodeStore, HistoryStore, InProcess, PushDown, VectorStore,
};
use memcore::entries::{Entry, EntryStore};
use memcore::error::Result;
use memcore::rights::{export_entries, import_user_data, StoredProfiles, UserDataExport};
use memcore::ErrorCode;
use serde_json::json;
use std::cell::{Cell, RefCell};

/// A `MemStore` whose `nth` upsert fails, before or after storing; optionally with an atomic
/// `insert_all` (that can be told to fail, writing nothing); deletes of `undeletable` fail.
#[derive(Default)]
struct FaultyStore {
    inner: MemStore,
    upserts: Cell<usize>,
    fail_upsert: Cell<Option<usize>>,
    after_storing: Cell<bool>,
    atomic: Cell<bool>,
    fail_insert_all: Cell<bool>,
    undeletable: RefCell<Vec<String>>,
    deletes: RefCell<Vec<String>>,
}

impl EntryStore for FaultyStore {
    async fn list(&self, user_id: &str) -> Result<Vec<Entry>> {
        self.inner.list(user_id).await
    }
    async fn get(&self, id: &str) -> Result<Option<Entry>> {
        self.inner.get(id).await
    }
    async fn upsert(&self, entry: &Entry) -> Result<()> {
        self.upserts.set(self.upserts.get() + 1);
        if self.fail_upsert.get() == Some(self.upserts.get()) {
            if self.after_storing.get() {
                self.inner.upsert(entry).await?;
            }
            return Err(memcore::Error::new(ErrorCode::Host, "write 5 failed"));
        }
        self.inner.upsert(entry).await
    }
    async fn delete(&self, id: &str) -> Result<bool> {
        self.deletes.borrow_mut().push(id.to_string());
        if self.undeletable.borrow().iter().any(|u| u == id) {
            return Err(memcore::Error::new(ErrorCode::Host, "delete failed"));
        }
        self.inner.delete(id).await
    }
    async fn increment_access(&self, ids: &[String]) -> Result<()> {
        self.inner.increment_access(ids).await
    }
}

impl PushDown for FaultyStore {}

impl AtomicWrites for FaultyStore {
    async fn insert_all(
        &self,
        entries: &[Entry],
        _profile: Option<memcore::entries::store::ProfileInsert<'_>>,
    ) -> Result<bool> {
        if !self.atomic.get() {
            return Ok(false);
        }
        if self.fail_insert_all.get() {
            return Err(memcore::Error::new(
                ErrorCode::Host,
                "transaction rolled back",
            ));
        }
        for entry in entries {
            self.inner.upsert(entry).await?;
        }
        Ok(true)
    }
}

impl VectorStore for FaultyStore {}

impl HistoryStore for FaultyStore {}

impl EpisodeStore for FaultyStore {}

impl InProcess for FaultyStore {}

const NOW: &str = "2026-12-01T00:00:00Z";

fn document(count: usize, profile: Option<&str>) -> UserDataExport {
    let entries = (1..=count)
        .map(|i| {
            Entry::new_global(
                format!("e{i:02}"),
                "u1",
                &format!("k{i}"),
                json!(i),
                "fact",
                NOW.into(),
            )
        })
        .collect();
    UserDataExport::new(
        &TestClock::at(NOW),
        "u1",
        entries,
        profile.map(str::to_string),
    )
}

/// The profiles of a clone of `store` (clones share their files).
fn profiles(store: &VersionedStore) -> StoredProfiles<VersionedStore> {
    StoredProfiles::new(store.clone(), None).unwrap()
}

const PATH: &str = "user-memory/u1/memory.md";

#[test]
fn a_failed_fifth_upsert_is_undone_with_the_failing_id_and_a_retry_restores_everything() {
    for after_storing in [false, true] {
        let store = FaultyStore::default();
        store.fail_upsert.set(Some(5));
        store.after_storing.set(after_storing);
        let storage = VersionedStore::default();
        let doc = document(8, Some("profile text"));
        let error = block_on(import_user_data(
            &doc,
            Some(&store),
            Some(&profiles(&storage)),
            false,
        ))
        .unwrap_err();
        assert_eq!(error.code, ErrorCode::Host);
        assert_eq!(error.message, "write 5 failed", "the original error");
        let undo = &error.details.as_ref().unwrap()["undo"];
        assert_eq!(
            undo,
            &json!({ "entries": 5, "profileRemoved": false, "failed": [] })
        );
        assert_eq!(*store.deletes.borrow(), ["e01", "e02", "e03", "e04", "e05"]);
        assert!(
            store.inner.snapshot().is_empty(),
            "after_storing {after_storing}"
        );
        assert_eq!(storage.text(PATH), None, "the profile was never written");
        // The retry.
        store.fail_upsert.set(None);
        let report = block_on(import_user_data(
            &doc,
            Some(&store),
            Some(&profiles(&storage)),
            false,
        ))
        .unwrap();
        assert_eq!((report.entries, report.profile), (8, true));
        assert_eq!(block_on(export_entries(&store, "u1")).unwrap(), doc.entries);
        assert_eq!(storage.text(PATH).as_deref(), Some("profile text"));
    }
}

#[test]
fn an_undo_that_fails_is_reported_in_the_details_and_the_message() {
    let store = FaultyStore::default();
    store.fail_upsert.set(Some(5));
    store.undeletable.borrow_mut().push("e02".into());
    let doc = document(6, None);
    let error = block_on(import_user_data::<_, StoredProfiles<VersionedStore>>(
        &doc,
        Some(&store),
        None,
        false,
    ))
    .unwrap_err();
    assert!(
        error
            .message
            .starts_with("write 5 failed; undoing the import failed for 1 of what it wrote"),
        "{}",
        error.message
    );
    assert_eq!(
        error.details.unwrap()["undo"],
        json!({ "entries": 4, "profileRemoved": false,
            "failed": [{ "entryId": "e02", "code": "E_HOST", "message": "delete failed" }] })
    );
}

#[test]
fn an_atomic_store_gets_one_insert_all_and_its_failure_is_returned_as_is() {
    let store = FaultyStore::default();
    store.atomic.set(true);
    store.fail_insert_all.set(true);
    let doc = document(6, None);
    let none: Option<&StoredProfiles<VersionedStore>> = None;
    let error = block_on(import_user_data(&doc, Some(&store), none, false)).unwrap_err();
    assert_eq!(
        (error.message.as_str(), error.details),
        ("transaction rolled back", None)
    );
    assert_eq!((store.upserts.get(), store.deletes.borrow().len()), (0, 0));
    store.fail_insert_all.set(false);
    assert_eq!(
        block_on(import_user_data(&doc, Some(&store), none, false))
            .unwrap()
            .entries,
        6
    );
    assert_eq!(store.upserts.get(), 0, "no upsert: one insert_all");
}

#[test]
fn a_failing_profile_write_undoes_the_entries_and_a_profile_it_stored_after_all() {
    for atomic in [false, true] {
        let store = FaultyStore::default();
        store.atomic.set(atomic);
        let storage = VersionedStore::default();
        storage.fail.borrow_mut().push("write");
        let doc = document(3, Some("profile text"));
        let error = block_on(import_user_data(
            &doc,
            Some(&store),
            Some(&profiles(&storage)),
            false,
        ))
        .unwrap_err();
        assert_eq!(error.message, "storage write unavailable");
        assert_eq!(
            error.details.unwrap()["undo"],
            json!({ "entries": 3, "profileRemoved": false, "failed": [] })
        );
        assert!(store.inner.snapshot().is_empty(), "atomic {atomic}");
        storage.fail.borrow_mut().clear();
        assert!(block_on(import_user_data(
            &doc,
            Some(&store),
            Some(&profiles(&storage)),
            false
        ))
        .is_ok());
    }
    // A profile write that failed after storing: the imported text is removed again; another
    // writer's profile (a version conflict) is not.
    let store = FaultyStore::default();
    let storage = VersionedStore::default();
    let doc = document(2, Some("profile text"));
    struct StoredThenFailed<'a>(&'a VersionedStore);
    impl memcore::host::ProfileStore for StoredThenFailed<'_> {
        async fn read(&self, path: &str) -> Result<Option<memcore::host::StoredText>> {
            self.0.read(path).await
        }
        async fn write(
            &self,
            path: &str,
            text: &str,
            options: &memcore::host::WriteOptions,
        ) -> Result<Option<String>> {
            self.0.write(path, text, options).await?;
            Err(memcore::Error::new(ErrorCode::Host, "timed out"))
        }
        async fn remove(&self, path: &str) -> Result<()> {
            self.0.remove(path).await
        }
        async fn ensure_root(&self, root: &str) -> Result<()> {
            self.0.ensure_root(root).await
        }
    }
    let failing = StoredProfiles::new(StoredThenFailed(&storage), None).unwrap();
    let error = block_on(import_user_data(&doc, Some(&store), Some(&failing), false)).unwrap_err();
    assert_eq!(
        error.details.unwrap()["undo"],
        json!({ "entries": 2, "profileRemoved": true, "failed": [] })
    );
    assert_eq!(storage.text(PATH), None);
    storage.inject_conflicts.set(1);
    let error = block_on(import_user_data(
        &doc,
        Some(&store),
        Some(&profiles(&storage)),
        false,
    ))
    .unwrap_err();
    assert_eq!(error.code, ErrorCode::VersionConflict);
    assert_eq!(error.details.unwrap()["undo"]["profileRemoved"], false);
    assert!(store.inner.snapshot().is_empty());
}

#[test]
fn everything_is_checked_before_anything_is_written() {
    let doc = document(3, Some("profile text"));
    // No profile target for a document with a profile: refused, nothing written.
    let store = FaultyStore::default();
    let none: Option<&StoredProfiles<VersionedStore>> = None;
    let error = block_on(import_user_data(&doc, Some(&store), none, false)).unwrap_err();
    assert_eq!(error.code, ErrorCode::Argument);
    assert_eq!(error.details.unwrap()["argument"], "options.memory");
    assert!(store.inner.snapshot().is_empty());
    // An id another user holds: a one-by-one store would overwrite (and the undo delete) it.
    let other = Entry::new_global("e02".into(), "u2", "x", json!(1), "fact", NOW.into());
    let store = FaultyStore::default();
    block_on(store.inner.upsert(&other)).unwrap();
    let storage = VersionedStore::default();
    let error = block_on(import_user_data(
        &doc,
        Some(&store),
        Some(&profiles(&storage)),
        false,
    ))
    .unwrap_err();
    assert_eq!(
        (error.code, error.details.unwrap()["entryId"].clone()),
        (ErrorCode::Conflict, json!("e02"))
    );
    assert_eq!(store.inner.snapshot(), vec![other]);
    assert_eq!((store.upserts.get(), storage.write_count()), (0, 0));
    // A user who has a profile: nothing written either.
    let store = FaultyStore::default();
    let storage = VersionedStore::with(PATH, "older");
    let error = block_on(import_user_data(
        &doc,
        Some(&store),
        Some(&profiles(&storage)),
        false,
    ))
    .unwrap_err();
    assert_eq!(error.code, ErrorCode::VersionConflict);
    assert_eq!(store.upserts.get(), 0);
}

#[test]
fn a_bad_root_folder_is_refused_by_the_root_folder_rule() {
    let storage = VersionedStore::default();
    for root in ["", "../x", "a//b", "a\\b"] {
        let error = StoredProfiles::new(storage.clone(), Some(root)).err();
        assert_eq!(error.map(|e| e.code), Some(ErrorCode::Config), "{root:?}");
    }
    assert!(StoredProfiles::new(storage.clone(), Some("memories/")).is_ok());
}
