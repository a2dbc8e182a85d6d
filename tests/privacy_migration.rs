//! Applying the legacy properties migration through an entry store (SPEC §4.1, EDDI behaviour):
//! existing keys keep their values, a second run inserts nothing, a partial failure forbids the
//! rename and the next run completes it, restricted users get nothing new, failures never quote
//! a credential, and the store's pushed-down `findByKey` is used instead of listing the user.

mod common;

use common::{block_on, CounterIds, TestClock};
use memcore::entries::store::{
    AtomicWrites, EpisodeStore, HistoryStore, InProcess, PushDown, VectorStore,
};
use memcore::entries::store::{CapWrite, OwnQuery};
use memcore::entries::{Entry, EntryStore, InMemoryEntryStore};
use memcore::migrate::legacy::{
    apply_properties_migration, plan_properties_migration, InsertOutcome, LegacyInsert,
    MigrationOptions, MigrationPlan,
};
use memcore::{Error, ErrorCode};
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

const NOW: &str = "2026-06-17T12:00:00Z";

/// The in-memory store, with upserts of `fail_key` failing (the message quoting a token, as a
/// careless driver might) and `list` / `findByKey` calls counted.
#[derive(Default)]
struct Store {
    inner: InMemoryEntryStore,
    fail_key: RefCell<Option<String>>,
    fail_lookups: Cell<bool>,
    lists: Cell<usize>,
    lookups: Cell<usize>,
}

fn leaky_error() -> Error {
    let token = ["Bearer ", "abcDEF123456", "ghiJKL"].concat();
    Error::new(
        ErrorCode::Host,
        format!("constraint failed for row (auth: {token})"),
    )
}

impl EntryStore for Store {
    async fn list(&self, user_id: &str) -> memcore::error::Result<Vec<Entry>> {
        self.lists.set(self.lists.get() + 1);
        self.inner.list(user_id).await
    }
    async fn get(&self, id: &str) -> memcore::error::Result<Option<Entry>> {
        self.inner.get(id).await
    }
    async fn upsert(&self, entry: &Entry) -> memcore::error::Result<()> {
        if self.fail_key.borrow().as_deref() == Some(entry.key.as_str()) {
            return Err(leaky_error());
        }
        self.inner.upsert(entry).await
    }
    async fn delete(&self, id: &str) -> memcore::error::Result<bool> {
        self.inner.delete(id).await
    }
    async fn increment_access(&self, ids: &[String]) -> memcore::error::Result<()> {
        self.inner.increment_access(ids).await
    }
}

impl PushDown for Store {
    async fn find_by_key(
        &self,
        user_id: &str,
        key: &str,
    ) -> memcore::error::Result<Option<Vec<Entry>>> {
        self.lookups.set(self.lookups.get() + 1);
        if self.fail_lookups.get() {
            return Err(Error::new(ErrorCode::Host, "database unavailable"));
        }
        self.inner.find_by_key(user_id, key).await
    }
    async fn oldest_own(&self, q: &OwnQuery<'_>) -> memcore::error::Result<Option<Vec<Entry>>> {
        self.inner.oldest_own(q).await
    }
}

impl AtomicWrites for Store {
    async fn insert_within_cap(
        &self,
        e: &Entry,
        m: u64,
        ev: &[String],
    ) -> memcore::error::Result<Option<CapWrite>> {
        self.inner.insert_within_cap(e, m, ev).await
    }
}

impl VectorStore for Store {}

impl HistoryStore for Store {}

impl EpisodeStore for Store {}

impl InProcess for Store {}

fn entry(id: &str, user: &str, key: &str, value: Value, visibility: &str) -> Entry {
    serde_json::from_value(json!({
        "id": id, "userId": user, "key": key, "value": value, "category": "fact",
        "visibility": visibility, "sourceAgentId": "agent-a",
        "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z"
    }))
    .unwrap()
}

fn documents() -> Vec<Value> {
    let token = [
        "xo",
        "xb-",
        "123456789012-1234567890123-",
        "AbCdEfGhIjKlMnOpQrStUvWx",
    ]
    .concat();
    vec![
        json!({ "_id": "d1", "userId": "u1", "language": "de", "theme": "dark", "dog": "Rex",
                "userInfo": { "name": "Ada", "token": "t" },
                "integrations": { "slack": { "bot": { "note": token } } } }),
        json!({ "_id": "d2", "userId": "u2", "city": "Bern" }),
        json!({ "_id": "d3", "language": "fr" }),
    ]
}

/// The keys each user has, as a host would read them before planning.
fn existing_keys(store: &Store, users: &[&str]) -> BTreeMap<String, Vec<String>> {
    users
        .iter()
        .map(|u| {
            let keys = store
                .inner
                .list_now(u)
                .unwrap()
                .into_iter()
                .map(|e| e.key)
                .collect();
            (u.to_string(), keys)
        })
        .collect()
}

fn apply(
    plan: &MigrationPlan,
    store: &Store,
    ids: &CounterIds,
) -> memcore::migrate::MigrationReport {
    block_on(apply_properties_migration(
        &plan.inserts,
        store,
        &TestClock::at(NOW),
        ids,
    ))
}

#[test]
fn eddi_migration_keeps_existing_keys_skips_credentials_and_a_second_run_inserts_nothing() {
    let store = Store::default();
    // u1 already has `language` (a self note of another agent counts: the key is the user's).
    store
        .inner
        .upsert_now(&entry("x1", "u1", "language", json!("fr"), "self"))
        .unwrap();
    let ids = CounterIds::default();
    let plan = plan_properties_migration(
        &documents(),
        &existing_keys(&store, &["u1", "u2"]),
        &MigrationOptions::default(),
    );
    let keys: Vec<&str> = plan.inserts.iter().map(|i| i.key.as_str()).collect();
    assert_eq!(keys, ["dog", "theme", "city"]);
    assert!(!plan.may_rename);
    let report = apply(&plan, &store, &ids);
    assert_eq!(
        (report.inserted, report.failed, report.may_rename),
        (3, 0, true)
    );
    let u1 = store.inner.list_now("u1").unwrap();
    let language: Vec<&Entry> = u1.iter().filter(|e| e.key == "language").collect();
    assert_eq!(language.len(), 1);
    assert_eq!(
        language[0].value,
        json!("fr"),
        "an existing key keeps its value"
    );
    let dog = u1.iter().find(|e| e.key == "dog").unwrap();
    assert_eq!(
        (
            dog.category.as_str(),
            dog.visibility.as_str(),
            dog.id.as_str(),
            dog.created_at.as_str()
        ),
        ("legacy", "global", "id-001", "2026-06-17T12:00:00.000Z")
    );
    assert!(u1
        .iter()
        .all(|e| e.key != "userInfo" && e.key != "integrations"));

    // Second run: planned from the store as it is now → nothing to insert, may rename.
    let again = plan_properties_migration(
        &documents(),
        &existing_keys(&store, &["u1", "u2"]),
        &MigrationOptions::default(),
    );
    assert!(again.inserts.is_empty() && again.may_rename);
    // Even the stale first plan applied again inserts nothing: the store is re-checked.
    let stale = apply(&plan, &store, &ids);
    assert_eq!(
        (stale.inserted, stale.existing, stale.may_rename),
        (0, 3, true)
    );
    assert_eq!(store.inner.len(), 4);
}

#[test]
fn partial_failure_forbids_the_rename_and_the_next_run_completes_it() {
    let store = Store::default();
    *store.fail_key.borrow_mut() = Some("theme".into());
    let ids = CounterIds::default();
    let plan =
        plan_properties_migration(&documents(), &BTreeMap::new(), &MigrationOptions::default());
    let report = apply(&plan, &store, &ids);
    assert_eq!(
        (report.inserted, report.failed, report.may_rename),
        (3, 1, false)
    );
    let failed = report
        .outcomes
        .iter()
        .find(|o| o.outcome == InsertOutcome::Failed)
        .unwrap();
    assert_eq!(failed.key, "theme");
    let error = failed.error.as_ref().unwrap();
    assert_eq!(error.code, "E_HOST");
    assert_eq!(
        error.message,
        "constraint failed for row (auth: Bearer [REDACTED])"
    );
    assert!(!serde_json::to_string(&report)
        .unwrap()
        .contains("abcDEF123456"));

    *store.fail_key.borrow_mut() = None;
    let next = plan_properties_migration(
        &documents(),
        &existing_keys(&store, &["u1", "u2"]),
        &MigrationOptions::default(),
    );
    assert_eq!(next.inserts.len(), 1);
    let done = apply(&next, &store, &ids);
    assert_eq!((done.inserted, done.failed, done.may_rename), (1, 0, true));
}

#[test]
fn restricted_users_get_nothing_new_and_an_unreadable_flag_is_a_failure() {
    let store = Store::default();
    let mut flag = entry(
        "g1",
        "u2",
        "_gdpr_processing_restricted",
        json!(true),
        "global",
    );
    flag.source_agent_id = None;
    store.inner.upsert_now(&flag).unwrap();
    let ids = CounterIds::default();
    let plan =
        plan_properties_migration(&documents(), &BTreeMap::new(), &MigrationOptions::default());
    let report = apply(&plan, &store, &ids);
    assert_eq!(
        (report.inserted, report.restricted, report.may_rename),
        (3, 1, false)
    );
    assert!(store
        .inner
        .list_now("u2")
        .unwrap()
        .iter()
        .all(|e| e.key != "city"));

    let unreadable = Store::default();
    unreadable.fail_lookups.set(true);
    let report = apply(&plan, &unreadable, &ids);
    assert_eq!(
        (report.inserted, report.failed, report.may_rename),
        (0, 4, false)
    );
    assert_eq!(unreadable.inner.len(), 0);
}

#[test]
fn a_hand_edited_plan_cannot_insert_a_credential_or_a_reserved_key() {
    let store = Store::default();
    let secret = ["sk_li", "ve_", "4eC39HqLyjWDarjtT1zdp7dc"].concat();
    let plan = MigrationPlan {
        inserts: vec![
            LegacyInsert {
                user_id: "u1".into(),
                key: "billing".into(),
                value: json!({ "k": secret }),
            },
            LegacyInsert {
                user_id: "u1".into(),
                key: "_gdpr_x".into(),
                value: json!(1),
            },
            LegacyInsert {
                user_id: "u1".into(),
                key: "ok".into(),
                value: json!("fine"),
            },
        ],
        skipped_keys: vec![],
        skipped_documents: vec![],
        may_rename: false,
    };
    let report = apply(&plan, &store, &CounterIds::default());
    assert_eq!(
        (report.inserted, report.refused, report.may_rename),
        (1, 2, true)
    );
    assert_eq!(store.inner.len(), 1);
}

#[test]
fn the_pushed_down_find_by_key_is_used_instead_of_listing() {
    let store = Store::default();
    let plan =
        plan_properties_migration(&documents(), &BTreeMap::new(), &MigrationOptions::default());
    apply(&plan, &store, &CounterIds::default());
    assert_eq!(store.lists.get(), 0);
    // One restriction lookup per user, one identity lookup per insert.
    assert_eq!(store.lookups.get(), 2 + plan.inserts.len());
}
