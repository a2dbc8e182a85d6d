//! Entry history (SPEC §8.3) in the core: `asOf` at every boundary instant, ties, the store's
//! retention, and a property test — any sequence of writes through [`Versioned`] over the
//! in-memory store, read back with `as_of` at every instant, gives the state that was current.

mod common;

use common::*;
use memcore::entries::config::HistoryConfig;
use memcore::entries::history::{
    as_of, entry_history, Author, AuthorKind, HistoryAppend, HistorySelector, Reason, Version,
    VersionQuery, Versioned,
};
use memcore::entries::store::HistoryStore;
use memcore::entries::{Entry, EntryStore, InMemoryEntryStore};
use proptest::prelude::*;
use serde_json::json;
use std::collections::BTreeMap;

fn entry(id: &str, key: &str, value: i64, updated: &str) -> Entry {
    entry_from(&json!({
        "id": id, "userId": "u1", "key": key, "value": value, "visibility": "global",
        "sourceAgentId": "a", "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": updated,
    }))
}

fn version(of: &Entry, until: &str) -> Version {
    let author = Author::new(AuthorKind::Agent, Some("b"));
    Version::of(
        of,
        until.to_string(),
        &author,
        Reason::Updated,
        Some(&of.id),
    )
}

fn values(entries: &[Entry]) -> Vec<(String, serde_json::Value)> {
    entries
        .iter()
        .map(|e| (e.id.clone(), e.value.clone()))
        .collect()
}

#[test]
fn as_of_takes_valid_from_inclusive_and_valid_until_exclusive() {
    let t0 = "2026-05-01T00:00:00.000Z";
    let t1 = "2026-05-01T00:00:01.000Z";
    let t2 = "2026-05-01T00:00:02.000Z";
    let v1 = version(&entry("e", "k", 1, t0), t1);
    let v2 = version(&entry("e", "k", 2, t1), t2);
    let current = entry("e", "k", 3, t2);
    // A deleted entry: one version, no current state.
    let gone = version(&entry("d", "k2", 9, t0), t1);
    let all = vec![v1, v2, gone];
    let at = |t: &str| values(&as_of(vec![current.clone()], all.clone(), t));
    assert_eq!(at("2026-04-30T23:59:59.999Z"), []);
    assert_eq!(at(t0), [("d".into(), json!(9)), ("e".into(), json!(1))]);
    assert_eq!(
        at("2026-05-01T00:00:00.999Z"),
        [("d".into(), json!(9)), ("e".into(), json!(1))]
    );
    assert_eq!(at(t1), [("e".into(), json!(2))]);
    assert_eq!(at("2026-05-01T00:00:01.999Z"), [("e".into(), json!(2))]);
    assert_eq!(at(t2), [("e".into(), json!(3))]);
    assert_eq!(at("2030-01-01T00:00:00Z"), [("e".into(), json!(3))]);
    // The same instant written another way.
    assert_eq!(at("2026-05-01T02:00:01+02:00"), [("e".into(), json!(2))]);
    // Not a time: nothing.
    assert_eq!(at("yesterday"), []);
}

#[test]
fn as_of_breaks_ties_by_latest_valid_from_then_current_then_greatest_id() {
    let t0 = "2026-05-01T00:00:00.000Z";
    let t5 = "2026-05-01T00:00:05.000Z";
    // A clock that went back: two versions both cover t=3s.
    let early = version(&entry("e", "k", 1, t0), t5);
    let later = version(&entry("e", "k", 2, "2026-05-01T00:00:02.000Z"), t5);
    let at3 = "2026-05-01T00:00:03.000Z";
    let got = as_of(vec![], vec![early.clone(), later.clone()], at3);
    assert_eq!(values(&got), [("e".into(), json!(2))]);
    // Same validFrom: the greater version id.
    let twin_a = version(&entry("e", "k", 10, t0), t5);
    let twin_b = version(&entry("e", "k", 11, t0), t5);
    let (low, high) = if twin_a.id < twin_b.id {
        (twin_a, twin_b)
    } else {
        (twin_b, twin_a)
    };
    let want = high.value.clone();
    let got = as_of(vec![], vec![high.clone(), low.clone()], at3);
    assert_eq!(got[0].value, want);
    let got = as_of(vec![], vec![low, high], at3);
    assert_eq!(got[0].value, want);
    // The current state and a version from the same instant (a version kept by a change that
    // then failed): the current state.
    let current = entry("e", "k", 7, t0);
    let got = as_of(vec![current], vec![early], at3);
    assert_eq!(values(&got), [("e".into(), json!(7))]);
}

#[test]
fn a_version_id_is_its_content_and_the_store_keeps_it_once() {
    let e = entry("e", "k", 1, "2026-05-01T00:00:00.000Z");
    let a = version(&e, "2026-05-02T00:00:00.000Z");
    let b = version(&e, "2026-05-02T00:00:00.000Z");
    let c = version(&e, "2026-05-02T00:00:00.001Z");
    assert_eq!(a.id, b.id);
    assert_ne!(a.id, c.id);
    let store = InMemoryEntryStore::new();
    let append = |versions: &[Version]| {
        let append = HistoryAppend {
            user_id: "u1",
            versions,
            audit: &[],
            max_versions_per_entry: 10,
            not_before: "2026-01-01T00:00:00.000Z".into(),
        };
        block_on(store.append_history(&append)).unwrap()
    };
    assert!(append(&[a.clone(), b]));
    assert!(append(&[a, c]));
    assert_eq!(store.version_count("u1"), 2);
}

#[test]
fn the_in_memory_store_keeps_the_newest_per_entry_and_drops_the_expired() {
    let store = InMemoryEntryStore::new();
    let append = |versions: &[Version], max: u64, not_before: &str| {
        let append = HistoryAppend {
            user_id: "u1",
            versions,
            audit: &[],
            max_versions_per_entry: max,
            not_before: not_before.into(),
        };
        block_on(store.append_history(&append)).unwrap();
    };
    let at = |s: u32| format!("2026-05-01T00:00:{s:02}.000Z");
    for s in 1..=5 {
        let v = version(&entry("e", "k", i64::from(s), &at(s - 1)), &at(s));
        append(&[v], 3, "2026-01-01T00:00:00.000Z");
    }
    let other = version(&entry("f", "j", 0, &at(0)), &at(1));
    append(&[other], 3, "2026-01-01T00:00:00.000Z");
    let query = VersionQuery {
        user_id: "u1",
        entry_id: Some("e"),
        key: None,
    };
    let mut kept: Vec<i64> = block_on(store.versions(&query))
        .unwrap()
        .unwrap()
        .iter()
        .map(|v| v.value.as_i64().unwrap())
        .collect();
    kept.sort_unstable();
    assert_eq!(kept, [3, 4, 5]);
    // Nothing appended, the retention alone: what ended before 00:00:04 goes, any entry.
    append(&[], 3, &at(4));
    let all = VersionQuery {
        user_id: "u1",
        entry_id: None,
        key: None,
    };
    let left: Vec<String> = block_on(store.versions(&all))
        .unwrap()
        .unwrap()
        .iter()
        .map(|v| v.valid_until.clone())
        .collect();
    assert_eq!(left, [at(4), at(5)]);
    append(&[], 3, "2027-01-01T00:00:00.000Z");
    assert_eq!(store.version_count("u1"), 0);
}

/// One write of the property test: upsert key `k` with value `v` (by agent `agent`), or delete
/// the entry of key `k`.
#[derive(Debug, Clone)]
enum Op {
    Put { k: u8, v: u8, agent: u8 },
    Delete { k: u8 },
}

fn ops() -> impl Strategy<Value = Vec<(Op, u8)>> {
    let op = prop_oneof![
        3 => (0u8..4, 0u8..5, 0u8..2).prop_map(|(k, v, agent)| Op::Put { k, v, agent }),
        1 => (0u8..4).prop_map(|k| Op::Delete { k }),
    ];
    // Each op with the milliseconds the clock moves before it (0: the same instant).
    proptest::collection::vec((op, 0u8..3), 1..40)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    /// Any writes through the versioned store, read back at every instant, give the state that
    /// was current then (with retention wide enough to keep everything).
    #[test]
    fn as_of_every_instant_is_the_state_that_was_current(script in ops()) {
        let store = InMemoryEntryStore::new();
        let clock = TestClock::at("2026-05-01T00:00:00Z");
        let config = HistoryConfig { enabled: true, retain_days: 365, max_versions_per_entry: 1000 };
        let authors: Vec<Author> = (0..2).map(|a| Author::new(AuthorKind::Agent, Some(&format!("a{a}")))).collect();
        // The true state after each instant's last write: instant → id → value.
        let mut truth: BTreeMap<String, BTreeMap<String, serde_json::Value>> = BTreeMap::new();
        let mut live: BTreeMap<String, serde_json::Value> = BTreeMap::new();
        let mut created: BTreeMap<String, String> = BTreeMap::new();
        for (op, step) in script {
            let now = clock.0.get() + chrono::Duration::milliseconds(i64::from(step));
            clock.0.set(now);
            let stamp = now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
            match op {
                Op::Put { k, v, agent } => {
                    let versioned = Versioned::new(&store, &clock, &config, &authors[usize::from(agent)]);
                    let id = format!("e{k}");
                    let created_at = created.entry(id.clone()).or_insert_with(|| stamp.clone()).clone();
                    let e = entry_from(&json!({
                        "id": id, "userId": "u1", "key": format!("k{k}"), "value": v,
                        "visibility": "global", "sourceAgentId": format!("a{agent}"),
                        "createdAt": created_at, "updatedAt": stamp,
                    }));
                    block_on(versioned.upsert(&e)).unwrap();
                    live.insert(id, json!(v));
                }
                Op::Delete { k } => {
                    let versioned = Versioned::new(&store, &clock, &config, &authors[0]);
                    let id = format!("e{k}");
                    block_on(versioned.delete(&id)).unwrap();
                    live.remove(&id);
                    created.remove(&id);
                }
            }
            truth.insert(stamp, live.clone());
        }
        let current = block_on(store.list("u1")).unwrap();
        let all = VersionQuery { user_id: "u1", entry_id: None, key: None };
        let versions = block_on(store.versions(&all)).unwrap().unwrap();
        for (instant, want) in &truth {
            let got: BTreeMap<String, serde_json::Value> = as_of(current.clone(), versions.clone(), instant)
                .into_iter()
                .map(|e| (e.id, e.value))
                .collect();
            prop_assert_eq!(&got, want, "at {}", instant);
        }
        // And every entry's history lists its past states newest first.
        for k in 0..4 {
            let id = format!("e{k}");
            let h = block_on(entry_history(&store, "u1", HistorySelector::Entry(&id))).unwrap().unwrap();
            let untils: Vec<&str> = h.versions.iter().map(|v| v.valid_until.as_str()).collect();
            let mut sorted = untils.clone();
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            prop_assert_eq!(untils, sorted);
        }
    }
}
