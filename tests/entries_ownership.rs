//! An entry id belongs to one user (docs/reference/behaviour.md §8.3, "Entry ids"; issue 41): no
//! restore, import, write by id or host-made id reaches another user's entry; an imported history
//! is genuine and retained; an erasure renames the erased user wherever the rest of the history
//! names them as the one who acted. Ends with a property test: random interleavings of create,
//! delete, restore and import by two users never change an entry of the user who did not act.

mod common;

use common::turn_fakes::VersionedStore;
use common::*;
use memcore::entries::config::UserMemoryConfig;
use memcore::entries::history::{read_audit, AuditRecord, Author, AuthorKind, Version, Writer};
use memcore::entries::memories::{delete_user_memory, upsert_user_memory, UpsertOutcome};
use memcore::entries::restore::{restore_version, RestoreOutcome};
use memcore::entries::tools::ToolSession;
use memcore::entries::write_rules::Surface;
use memcore::entries::{Entry, EntryStore, InMemoryEntryStore};
use memcore::host::IdSource;
use memcore::rights::{
    erase_user_data, export_history, import::import_user_data_by, StoredProfiles, UserDataExport,
};
use memcore::ErrorCode;
use proptest::prelude::*;
use serde_json::{json, Value};

type NoProfiles = StoredProfiles<VersionedStore>;

thread_local! {
    static NEXT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Ids the host gives, never the same twice on this thread.
struct Fresh;
impl IdSource for Fresh {
    fn new_id(&self) -> String {
        NEXT.with(|n| n.set(n.get() + 1));
        format!("fresh-{}", NEXT.with(std::cell::Cell::get))
    }
}

/// Ids the host gives: always the same one (a `newId` that repeats itself).
struct SameId(&'static str);
impl IdSource for SameId {
    fn new_id(&self) -> String {
        self.0.to_string()
    }
}

fn writer<'a>(clock: &'a TestClock, writing: &'a Writing) -> Writer<'a, TestClock> {
    writing.writer(clock)
}

fn upsert(store: &InMemoryEntryStore, clock: &TestClock, request: Value) -> UpsertOutcome {
    upsert_by(store, clock, &Writing::default(), request)
}

fn upsert_by(
    store: &InMemoryEntryStore,
    clock: &TestClock,
    writing: &Writing,
    request: Value,
) -> UpsertOutcome {
    block_on(upsert_user_memory(
        store,
        writer(clock, writing),
        &Fresh,
        &UserMemoryConfig::default(),
        &request,
        Surface::Rest,
    ))
    .unwrap()
}

fn write(user: &str, id: &str, key: &str, value: &str) -> Value {
    json!({ "userId": user, "id": id, "key": key, "value": value, "visibility": "global" })
}

fn audit(store: &InMemoryEntryStore) -> Vec<AuditRecord> {
    block_on(read_audit(store, None, None, None, Some(1000))).unwrap()
}

fn later(clock: &TestClock) {
    clock.0.set(clock.0.get() + chrono::Duration::seconds(1));
}

#[test]
fn a_restore_never_writes_over_another_users_entry_nor_records_a_change() {
    let store = InMemoryEntryStore::new();
    let clock = TestClock::at("2026-05-01T00:00:00Z");
    let writing = Writing::default();
    assert!(matches!(
        upsert(&store, &clock, write("bob", "pref-1", "drink", "tea")),
        UpsertOutcome::Stored { .. }
    ));
    later(&clock);
    block_on(delete_user_memory(
        &store,
        writer(&clock, &writing),
        "pref-1",
        Some("bob"),
    ))
    .unwrap();
    // Alice cannot take the id: Bob's history holds it.
    later(&clock);
    let taken = upsert(&store, &clock, write("alice", "pref-1", "color", "red"));
    assert!(
        matches!(&taken, UpsertOutcome::Conflict { message } if message.contains("another user")),
        "{taken:?}"
    );
    assert_eq!(block_on(store.get("pref-1")).unwrap(), None);
    // An entry of Alice's under the id that got there anyway (an older memcore, a raw store write).
    let alice =
        entry_from(&json!({ "id": "pref-1", "userId": "alice", "key": "color", "value": "red" }));
    store.upsert_now(&alice).unwrap();
    let before = audit(&store);
    let bobs = block_on(export_history(&store, "bob")).unwrap();
    let outcome = block_on(restore_version(
        &store,
        writer(&clock, &writing),
        &UserMemoryConfig::default(),
        "bob",
        &bobs[0].id,
    ))
    .unwrap();
    assert!(
        matches!(&outcome, RestoreOutcome::Conflict { entry: None, .. }),
        "{outcome:?}"
    );
    // Alice's entry byte for byte, no record of a change that did not happen.
    assert_eq!(block_on(store.get("pref-1")).unwrap(), Some(alice));
    assert_eq!(audit(&store), before);
    // The JSON answer never names Alice's entry.
    let answer = serde_json::to_value(&outcome).unwrap();
    assert_eq!(answer.get("entry"), None);
    assert_eq!(answer["outcome"], "conflict");
}

#[test]
fn a_user_may_reuse_the_id_of_their_own_deleted_entry_and_its_history_continues() {
    let store = InMemoryEntryStore::new();
    let clock = TestClock::at("2026-05-01T00:00:00Z");
    let writing = Writing::default();
    upsert(&store, &clock, write("bob", "pref-1", "drink", "tea"));
    later(&clock);
    block_on(delete_user_memory(
        &store,
        writer(&clock, &writing),
        "pref-1",
        None,
    ))
    .unwrap();
    later(&clock);
    assert!(matches!(
        upsert(&store, &clock, write("bob", "pref-1", "drink", "coffee")),
        UpsertOutcome::Stored { created: true, .. }
    ));
    // Naming a current entry of the same user that the write does not resolve to: still invalid.
    upsert(&store, &clock, write("bob", "pref-2", "food", "rice"));
    let other = upsert(&store, &clock, write("bob", "pref-2", "drink", "water"));
    assert!(matches!(other, UpsertOutcome::Invalid { .. }), "{other:?}");
}

#[test]
fn a_host_id_that_repeats_itself_never_moves_another_users_entry() {
    let store = InMemoryEntryStore::new();
    let clock = TestClock::at("2026-05-01T00:00:00Z");
    let ids = SameId("fixed");
    let tools = |user: &str| {
        let mut session = ToolSession::new(UserMemoryConfig::default(), user, "agent").unwrap();
        let args = json!({ "key": format!("{user}-fact"), "value": "x", "category": "fact" });
        block_on(call_tool_on(
            &mut session,
            &store,
            &clock,
            &ids,
            "rememberFact",
            Some(&args),
        ))
        .text
    };
    assert!(tools("bob").starts_with("✅ Remembered"));
    let bob = block_on(store.get("fixed")).unwrap().unwrap();
    let answer = tools("alice");
    assert!(
        answer.starts_with("❌ Failed to store memory: newId returned an id"),
        "{answer}"
    );
    assert_eq!(block_on(store.get("fixed")).unwrap(), Some(bob));
    assert!(block_on(store.list("alice")).unwrap().is_empty());
}

#[test]
fn tool_sessions_and_writes_refuse_user_ids_erasure_refuses() {
    for bad in ["a/b", "../x", "a\0b", &"u".repeat(300), " alice", "."] {
        let error = ToolSession::new(UserMemoryConfig::default(), bad, "agent").unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidUserId, "{bad:?}");
        let store = InMemoryEntryStore::new();
        let clock = TestClock::at("2026-05-01T00:00:00Z");
        let outcome = upsert(&store, &clock, write(bad, "e1", "k", "v"));
        // The write rules trim the id they store; what is left must pass the rule.
        if bad.trim() != bad && memcore::profile::validate_user_id(bad.trim()).is_ok() {
            assert!(matches!(outcome, UpsertOutcome::Stored { .. }), "{bad:?}");
            continue;
        }
        let UpsertOutcome::Invalid { violations } = outcome else {
            panic!("{bad:?}: {outcome:?}");
        };
        assert_eq!(violations[0].field, "userId");
        assert_eq!(store.len(), 0);
    }
}

/// Bob's export with `versions` versions of one entry, each a real change.
fn bobs_document(versions: usize) -> UserDataExport {
    let store = InMemoryEntryStore::new();
    let clock = TestClock::at("2026-05-01T00:00:00Z");
    let mut writing = Writing::default();
    writing.history.max_versions_per_entry = 1000;
    upsert_by(&store, &clock, &writing, write("bob", "b1", "drink", "v0"));
    for n in 1..=versions {
        later(&clock);
        upsert_by(
            &store,
            &clock,
            &writing,
            write("bob", "b1", "drink", &format!("v{n}")),
        );
    }
    let document = block_on(memcore::rights::export_user_data::<_, NoProfiles, _>(
        writer(&clock, &writing),
        "bob",
        Some(&store),
        None,
    ))
    .unwrap();
    document
}

fn import(
    store: &InMemoryEntryStore,
    clock: &TestClock,
    document: &UserDataExport,
) -> memcore::error::Result<memcore::rights::ImportReport> {
    let writing = Writing::default();
    block_on(import_user_data_by::<
        _,
        NoProfiles,
        _,
        memcore::host::NoEmbedder,
        memcore::host::NoTimer,
        memcore::host::NoEmbedder,
    >(
        document,
        Some(store),
        None,
        false,
        Some(writer(clock, &writing)),
        None,
    ))
}

#[test]
fn an_imported_history_cannot_take_over_a_live_entry() {
    let store = InMemoryEntryStore::new();
    let clock = TestClock::at("2026-05-01T00:00:00Z");
    upsert(&store, &clock, write("bob", "bob-live", "drink", "tea"));
    let bob = block_on(store.get("bob-live")).unwrap();
    // Mallory's document: a genuine version of her own, but under Bob's entry id.
    let mut document = bobs_document(1);
    document.user_id = "mallory".into();
    document.entries.clear();
    document.restricted = false;
    for v in &mut document.history {
        v.user_id = "mallory".into();
        v.entry_id = "bob-live".into();
        v.id = v.content_id();
    }
    let before = audit(&store);
    let error = import(&store, &clock, &document).unwrap_err();
    assert_eq!(error.code, ErrorCode::Conflict, "{error}");
    assert_eq!(error.details.unwrap()["entryId"], "bob-live");
    assert_eq!(block_on(store.get("bob-live")).unwrap(), bob);
    assert_eq!(store.version_count("mallory"), 0);
    assert_eq!(audit(&store), before);
}

#[test]
fn an_import_refuses_forged_twice_given_and_unknown_versions_and_keeps_the_retention() {
    let clock = TestClock::at("2026-05-01T00:10:00Z");
    let store = InMemoryEntryStore::new();
    // A forged version: its content changed, its id kept.
    let mut forged = bobs_document(2);
    forged.history[0].value = json!("what I wish I had said");
    let error = import(&store, &clock, &forged).unwrap_err();
    assert_eq!(error.code, ErrorCode::Argument);
    assert!(
        error.message.contains("an id its content does not give it"),
        "{error}"
    );
    // The same version twice.
    let mut twice = bobs_document(2);
    let first = twice.history[0].clone();
    twice.history.push(first);
    let error = import(&store, &clock, &twice).unwrap_err();
    assert!(error.message.contains("appears twice"), "{error}");
    // An unknown field in a version: the document does not decode.
    let mut raw = serde_json::to_value(bobs_document(1)).unwrap();
    raw["history"][0]["note"] = json!("extra");
    assert!(serde_json::from_value::<UserDataExport>(raw).is_err());
    assert_eq!((store.len(), store.version_count("bob")), (0, 0));
    // 50 versions of one entry: the newest 10 are kept (maxVersionsPerEntry), 40 dropped.
    let many = bobs_document(50);
    assert_eq!(many.history.len(), 50);
    let report = import(&store, &clock, &many).unwrap();
    assert_eq!((report.history.imported, report.history.dropped), (10, 40));
    assert_eq!(store.version_count("bob"), 10);
    let kept = block_on(export_history(&store, "bob")).unwrap();
    let newest: Vec<&Version> = many.history.iter().rev().take(10).collect();
    for v in newest {
        assert!(kept.iter().any(|k| k.id == v.id), "kept the newest");
    }
    // The report says the vectors are not there: the export carries none.
    assert_eq!(report.vectors.dropped, 1);
    assert!(report.vectors.reindex);
}

#[test]
fn erasure_renames_the_user_where_other_users_history_names_them() {
    let store = InMemoryEntryStore::new();
    let clock = TestClock::at("2026-05-01T00:00:00Z");
    upsert(&store, &clock, write("bob", "b1", "drink", "tea"));
    upsert(&store, &clock, write("alice", "a1", "color", "red"));
    // Alice, an administrator, changes Bob's entry: Bob's version and audit record name her.
    later(&clock);
    let alice_writes = Writing {
        author: Author::new(AuthorKind::Rest, Some("alice")),
        ..Writing::default()
    };
    block_on(upsert_user_memory(
        &store,
        writer(&clock, &alice_writes),
        &CounterIds::default(),
        &UserMemoryConfig::default(),
        &write("bob", "b1", "drink", "coffee"),
        Surface::Rest,
    ))
    .unwrap();
    let named = |store: &InMemoryEntryStore| {
        let text = format!(
            "{:?}{:?}{:?}",
            audit(store),
            block_on(export_history(store, "bob")).unwrap(),
            store.stored_user_ids_now().unwrap()
        );
        text.contains("\"alice\"") || text.contains("Some(\"alice\")")
    };
    assert!(named(&store));
    let writing = Writing::default();
    let report = block_on(erase_user_data::<_, NoProfiles, _>(
        "alice",
        Some(&store),
        None,
        writer(&clock, &writing),
    ))
    .unwrap();
    let history = report.history.unwrap();
    let renamed = history.renamed.unwrap();
    assert_eq!((renamed.audit, renamed.versions), (1, 1));
    assert!(!named(&store), "no record names alice after her erasure");
    let pseudonym = memcore::rights::erased_name("alice");
    let bobs = block_on(export_history(&store, "bob")).unwrap();
    assert_eq!(bobs[0].author.id.as_deref(), Some(pseudonym.as_str()));
    // A renamed version is genuine: Bob's export still imports.
    let mut exporting = Writing::default();
    exporting.history.max_versions_per_entry = 1000;
    let document = block_on(memcore::rights::export_user_data::<_, NoProfiles, _>(
        writer(&clock, &exporting),
        "bob",
        Some(&store),
        None,
    ))
    .unwrap();
    let fresh = InMemoryEntryStore::new();
    import(&fresh, &clock, &document).unwrap();
    // Bob's entry itself is untouched by Alice's erasure.
    assert_eq!(
        block_on(store.get("b1")).unwrap().unwrap().value,
        json!("coffee")
    );
}

// ─── The property: a user who does not act keeps every entry as it was ─────────────────────────

#[derive(Debug, Clone)]
enum Step {
    /// REST upsert of `user` with an id from the shared pool (or none) and a key.
    Upsert {
        user: usize,
        id: Option<usize>,
        key: usize,
        value: u8,
    },
    /// Delete by id, as `user` (an administrator's delete, without an owner, acts for every user).
    Delete { user: usize, id: usize },
    /// Restore the n-th version id the store keeps of either user, as `user`.
    Restore { user: usize, pick: usize },
    /// Import the other user's export rewritten as `user`'s (a hostile copy).
    Import { user: usize },
}

const USERS: [&str; 2] = ["alice", "bob"];
const IDS: [&str; 3] = ["e1", "e2", "e3"];

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (
            0..2usize,
            proptest::option::of(0..3usize),
            0..3usize,
            any::<u8>()
        )
            .prop_map(|(user, id, key, value)| Step::Upsert {
                user,
                id,
                key,
                value
            }),
        (0..2usize, 0..3usize).prop_map(|(user, id)| Step::Delete { user, id }),
        (0..2usize, 0..16usize).prop_map(|(user, pick)| Step::Restore { user, pick }),
        (0..2usize).prop_map(|user| Step::Import { user }),
    ]
}

fn entries_of(store: &InMemoryEntryStore, user: &str) -> Vec<Entry> {
    let mut list = block_on(store.list(user)).unwrap();
    list.sort_by(|a, b| a.id.cmp(&b.id));
    list
}

fn run(steps: &[Step]) -> std::result::Result<(), TestCaseError> {
    let store = InMemoryEntryStore::new();
    let clock = TestClock::at("2026-05-01T00:00:00Z");
    let writing = Writing::default();
    for step in steps {
        later(&clock);
        let actor = match step {
            Step::Upsert { user, .. }
            | Step::Delete { user, .. }
            | Step::Restore { user, .. }
            | Step::Import { user } => *user,
        };
        let other = USERS[1 - actor];
        let before = entries_of(&store, other);
        match step {
            Step::Upsert {
                user,
                id,
                key,
                value,
            } => {
                let mut request = json!({ "userId": USERS[*user], "key": format!("k{key}"),
                    "value": value, "visibility": "global" });
                if let Some(id) = id {
                    request["id"] = json!(IDS[*id]);
                }
                upsert(&store, &clock, request);
            }
            Step::Delete { user, id } => {
                block_on(delete_user_memory(
                    &store,
                    writer(&clock, &writing),
                    IDS[*id],
                    Some(USERS[*user]),
                ))
                .unwrap();
            }
            Step::Restore { user, pick } => {
                let mut ids: Vec<String> = USERS
                    .iter()
                    .flat_map(|u| block_on(export_history(&store, u)).unwrap())
                    .map(|v| v.id)
                    .collect();
                ids.sort();
                if let Some(id) = ids.get(pick % ids.len().max(1)) {
                    let _ = block_on(restore_version(
                        &store,
                        writer(&clock, &writing),
                        &UserMemoryConfig::default(),
                        USERS[*user],
                        id,
                    ))
                    .unwrap();
                }
            }
            Step::Import { user } => {
                let source = USERS[1 - *user];
                let mut exporting = Writing::default();
                exporting.history.max_versions_per_entry = 1000;
                let mut document = block_on(memcore::rights::export_user_data::<_, NoProfiles, _>(
                    writer(&clock, &exporting),
                    source,
                    Some(&store),
                    None,
                ))
                .unwrap();
                document.user_id = USERS[*user].to_string();
                for e in &mut document.entries {
                    e.user_id = USERS[*user].to_string();
                }
                for v in &mut document.history {
                    v.user_id = USERS[*user].to_string();
                    v.id = v.content_id();
                }
                let _ = import(&store, &clock, &document);
            }
        }
        prop_assert_eq!(
            entries_of(&store, other),
            before,
            "{:?} changed {}",
            step,
            other
        );
    }
    // Every id names one user's entry.
    let a: Vec<String> = entries_of(&store, "alice")
        .into_iter()
        .map(|e| e.id)
        .collect();
    prop_assert!(entries_of(&store, "bob").iter().all(|e| !a.contains(&e.id)));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn no_step_of_one_user_changes_an_entry_of_the_other(steps in proptest::collection::vec(step(), 1..24)) {
        run(&steps)?;
    }
}
