//! The memory operations of the HTTP and MCP surfaces (SPEC §2.8): listing, the visible view,
//! search, lookup by key, count, the checked upsert (write rules, identity, cap) and deletion.

mod common;

use common::*;
use memcore::entries::config::{OnCapReached, RecallOrder, UserMemoryConfig};
use memcore::entries::memories::*;
use memcore::entries::write_rules::Surface;
use memcore::entries::InMemoryEntryStore;
use serde_json::{json, Value};

fn seeded() -> MemStore {
    MemStore::with(vec![
        entry_from(
            &json!({"id": "g1", "key": "city", "value": "Lisbon", "updatedAt": "2026-01-03T00:00:00Z"}),
        ),
        entry_from(
            &json!({"id": "s1", "key": "city", "value": "Porto", "visibility": "self", "sourceAgentId": "a", "updatedAt": "2026-01-02T00:00:00Z"}),
        ),
        entry_from(
            &json!({"id": "s2", "key": "note", "value": "b's", "visibility": "self", "sourceAgentId": "b", "updatedAt": "2026-01-04T00:00:00Z"}),
        ),
        entry_from(
            &json!({"id": "gr", "key": "team", "value": "blue", "visibility": "group", "sourceAgentId": "b", "groupIds": ["G"], "updatedAt": "2026-01-01T00:00:00Z"}),
        ),
        entry_from(&json!({"id": "r1", "key": "_gdpr_processing_note", "value": 1})),
        entry_from(&json!({"id": "o1", "userId": "u2", "key": "city", "value": "Oslo"})),
    ])
}

fn ids(entries: &[memcore::entries::Entry]) -> Vec<&str> {
    entries.iter().map(|e| e.id.as_str()).collect()
}

fn upsert(store: &MemStore, config: &UserMemoryConfig, request: Value) -> UpsertOutcome {
    let clock = TestClock::at("2026-02-01T00:00:00Z");
    let writing = Writing::default();
    block_on(upsert_user_memory(
        store,
        writing.writer(&clock),
        &CounterIds::default(),
        config,
        &request,
        Surface::Rest,
    ))
    .unwrap()
}

#[test]
fn listing_shows_every_visibility_of_the_user_newest_first_without_gdpr_entries() {
    let store = seeded();
    let listed = block_on(list_user_memories(&store, "u1")).unwrap();
    assert_eq!(ids(&listed), ["s2", "g1", "s1", "gr"]);
    assert_eq!(block_on(count_user_memories(&store, "u1")).unwrap(), 4);
}

#[test]
fn the_visible_view_is_the_recall_rule_for_one_agent_and_group() {
    let store = seeded();
    let config = UserMemoryConfig::default();
    let query = VisibleQuery::parse(&json!({"userId": "u1", "agentId": "a"}), &config).unwrap();
    assert_eq!(
        ids(&block_on(visible_memories(&store, &query)).unwrap()),
        ["g1", "s1"]
    );
    let query = VisibleQuery::parse(
        &json!({"userId": "u1", "agentId": "a", "groupId": "G", "limit": "2"}),
        &config,
    )
    .unwrap();
    assert_eq!(
        ids(&block_on(visible_memories(&store, &query)).unwrap()),
        ["g1", "s1"]
    );
    assert_eq!(query.limit, 2);
    // No access is counted by a surface read.
    assert!(store.snapshot().iter().all(|e| e.access_count == 0));
}

#[test]
fn visible_queries_report_every_bad_parameter() {
    let config = UserMemoryConfig::default();
    for limit in [
        json!("abc"),
        json!("-1"),
        json!(-1),
        json!(0),
        json!(1_000_000_000),
        json!(2.5),
    ] {
        let bad = VisibleQuery::parse(
            &json!({"userId": "u1", "agentId": "a", "limit": limit}),
            &config,
        )
        .unwrap_err();
        assert_eq!(bad.len(), 1, "{limit}");
        assert_eq!(bad[0].field, "limit");
    }
    let bad = VisibleQuery::parse(&json!({"order": "oldest", "groupId": 3}), &config).unwrap_err();
    let fields: Vec<&str> = bad.iter().map(|v| v.field.as_str()).collect();
    assert_eq!(fields, ["userId", "agentId", "groupId", "order"]);
    let ok = VisibleQuery::parse(
        &json!({"userId": "u1", "agentId": "a", "order": "most_accessed"}),
        &config,
    )
    .unwrap();
    assert_eq!((ok.order, ok.limit), (RecallOrder::MostAccessed, 50));
}

#[test]
fn search_is_the_search_rule_over_the_users_entries() {
    let store = seeded();
    let found = block_on(search_user_memories(&store, "u1", "CITY")).unwrap();
    assert_eq!(ids(&found), ["g1", "s1"]);
    assert!(block_on(search_user_memories(&store, "u1", "?!"))
        .unwrap()
        .is_empty());
    assert!(block_on(search_user_memories(&store, "u1", "gdpr"))
        .unwrap()
        .is_empty());
}

#[test]
fn lookup_by_key_prefers_the_agents_own_entry_then_the_global_one() {
    let store = seeded();
    let by = |agent: Option<&str>, key: &str| {
        block_on(memory_by_key(&store, "u1", key, agent))
            .unwrap()
            .map(|e| e.id)
    };
    assert_eq!(by(Some("a"), "city").as_deref(), Some("s1"));
    assert_eq!(by(Some("b"), "city").as_deref(), Some("g1"));
    assert_eq!(by(None, "city").as_deref(), Some("g1"));
    assert_eq!(by(None, "note"), None);
    assert_eq!(by(Some("b"), "note").as_deref(), Some("s2"));
    assert_eq!(by(None, "_gdpr_processing_note"), None);
}

#[test]
fn upsert_reports_every_violation_and_stores_nothing() {
    let store = seeded();
    let outcome = upsert(
        &store,
        &UserMemoryConfig::default(),
        json!({"key": "_gdpr_x", "visibility": "self", "category": "secret"}),
    );
    let UpsertOutcome::Invalid { violations } = outcome else {
        panic!("{outcome:?}")
    };
    let fields: Vec<&str> = violations.iter().map(|v| v.field.as_str()).collect();
    assert_eq!(fields, ["userId", "key", "sourceAgentId", "category"]);
    assert_eq!(store.snapshot().len(), 6);
}

#[test]
fn upsert_lands_on_the_identity_and_leaves_unchanged_entries_alone() {
    let store = seeded();
    let config = UserMemoryConfig::default();
    let outcome = upsert(
        &store,
        &config,
        json!({"userId": "u1", "key": "city", "value": "Faro", "visibility": "self", "sourceAgentId": "a"}),
    );
    let UpsertOutcome::Stored {
        entry,
        created: false,
        ..
    } = outcome
    else {
        panic!("{outcome:?}")
    };
    assert_eq!(
        (entry.id.as_str(), entry.updated_at.as_str()),
        ("s1", "2026-02-01T00:00:00.000Z")
    );
    let global = store.snapshot().into_iter().find(|e| e.id == "g1").unwrap();
    assert_eq!(global.value, json!("Lisbon"));
    let again = upsert(
        &store,
        &config,
        json!({"userId": "u1", "key": "city", "value": "Lisbon", "visibility": "global"}),
    );
    assert!(matches!(again, UpsertOutcome::Unchanged { entry } if entry.id == "g1"));
    let foreign_id = upsert(
        &store,
        &config,
        json!({"id": "o1", "userId": "u1", "key": "new", "visibility": "global"}),
    );
    // Another user's entry id: a conflict (an entry id names one user's entry).
    assert!(
        matches!(foreign_id, UpsertOutcome::Conflict { .. }),
        "{foreign_id:?}"
    );
    let created = upsert(
        &store,
        &config,
        json!({"userId": "u1", "key": "new", "value": [1], "visibility": "global"}),
    );
    assert!(
        matches!(created, UpsertOutcome::Stored { entry, created: true, .. } if entry.id == "id-001")
    );
}

#[test]
fn upsert_obeys_the_cap_like_remember_fact() {
    let store = seeded();
    let reject = UserMemoryConfig {
        max_entries_per_user: 4,
        on_cap_reached: OnCapReached::Reject,
        ..Default::default()
    };
    let outcome = upsert(
        &store,
        &reject,
        json!({"userId": "u1", "key": "k", "value": 1, "visibility": "self", "sourceAgentId": "a"}),
    );
    assert_eq!(
        outcome,
        UpsertOutcome::Full {
            message: "⚠️ Memory capacity reached (4/4). Cannot store more facts.".into()
        }
    );
    // An update at the cap is not a new entry.
    let update = upsert(
        &store,
        &reject,
        json!({"userId": "u1", "key": "city", "value": "Braga", "visibility": "self", "sourceAgentId": "a"}),
    );
    assert!(matches!(
        update,
        UpsertOutcome::Stored { created: false, .. }
    ));
    let evict = UserMemoryConfig {
        max_entries_per_user: 4,
        ..Default::default()
    };
    let outcome = upsert(
        &store,
        &evict,
        json!({"userId": "u1", "key": "k", "value": 1, "visibility": "self", "sourceAgentId": "b"}),
    );
    let UpsertOutcome::Stored {
        evicted,
        created: true,
        ..
    } = outcome
    else {
        panic!("{outcome:?}")
    };
    assert_eq!(evicted, ["team"]);
    let global = upsert(
        &store,
        &evict,
        json!({"userId": "u1", "key": "k2", "value": 1, "visibility": "global"}),
    );
    assert!(
        matches!(global, UpsertOutcome::Full { ref message } if message.contains("only 0 of this agent's own memories")),
        "{global:?}"
    );
}

#[test]
fn upsert_stores_nothing_while_processing_is_restricted() {
    let store = MemStore::with(vec![entry_from(
        &json!({"id": "r", "key": "_gdpr_processing_restricted", "value": true}),
    )]);
    let outcome = upsert(
        &store,
        &UserMemoryConfig::default(),
        json!({"userId": "u1", "key": "k", "visibility": "global"}),
    );
    assert!(matches!(outcome, UpsertOutcome::Restricted { .. }));
    assert_eq!(store.snapshot().len(), 1);
}

#[test]
fn deletion_keeps_gdpr_entries_and_other_users_entries() {
    let store = seeded();
    let (writing, clock) = (Writing::default(), TestClock::at("2026-02-01T00:00:00Z"));
    let writer = writing.writer(&clock);
    let del = |id: &str, owner: Option<&str>| {
        block_on(delete_user_memory(&store, writer, id, owner)).unwrap()
    };
    assert_eq!(del("o1", Some("u1")), DeleteOutcome::Foreign);
    assert_eq!(del("r1", Some("u1")), DeleteOutcome::Reserved);
    assert_eq!(del("nope", None), DeleteOutcome::NotFound);
    assert!(
        matches!(del("s2", Some("u1")), DeleteOutcome::Deleted { entry } if entry.key == "note")
    );
    assert_eq!(
        block_on(delete_all_user_memories(&store, writer, "u1")).unwrap(),
        3
    );
    let left: Vec<String> = store.snapshot().into_iter().map(|e| e.id).collect();
    assert_eq!(left, ["r1", "o1"]);
}

#[test]
fn the_in_memory_store_answers_the_same_in_place() {
    let store = InMemoryEntryStore::new();
    for e in seeded().snapshot() {
        store.upsert_now(&e).unwrap();
    }
    let query = VisibleQuery::parse(
        &json!({"userId": "u1", "agentId": "b", "groupId": "G"}),
        &UserMemoryConfig::default(),
    )
    .unwrap();
    assert_eq!(
        ids(&block_on(visible_memories(&store, &query)).unwrap()),
        ["s2", "g1", "gr"]
    );
    assert_eq!(block_on(count_user_memories(&store, "u1")).unwrap(), 4);
    let found = block_on(memory_by_key(&store, "u1", "city", Some("a"))).unwrap();
    assert_eq!(found.map(|e| e.id).as_deref(), Some("s1"));
}
