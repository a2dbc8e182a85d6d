//! The indexed [`EntrySet`] (recency index, precomputed visibility, folded texts, Bloom pairs)
//! against a naive model: after any sequence of upserts, removals and access increments, its
//! recall and search give exactly what filtering every entry and sorting them all gives.
//! Timestamps include invalid ones, ties, and one instant written as `Z`, `+00:00` and `-05:00`.

mod common;

use common::*;
use memcore::entries::config::RecallOrder;
use memcore::entries::recall::{accessed_slots, recency_cmp};
use memcore::entries::search::{matches_terms, search_terms};
use memcore::entries::visibility::{is_reserved_key, Viewer};
use memcore::entries::{Entry, EntrySet};
use proptest::prelude::*;
use serde_json::json;
use std::collections::BTreeMap;

const STAMPS: &[&str] = &[
    "2026-06-01T10:00:00Z",
    "2026-06-01T10:00:00+00:00",
    "2026-06-01T05:00:00-05:00",
    "2026-06-01T10:00:00.000Z",
    "2026-06-01T10:00:00.5Z",
    "2026-06-01T09:59:59Z",
    "2026-06-01t10:00:00z",
    "2027-01-01T00:00:00Z",
    "1999-12-31T23:59:59+14:00",
    "",
    "yesterday",
    "2026-13-01T00:00:00Z",
    "2026-06-01 10:00:00Z",
];
const KEYS: &[&str] = &[
    "dog_name",
    "Dog",
    "color",
    "favorite_color",
    "STRASSE",
    "Straße",
    "東京の支店",
    "_gdpr_processing_restricted",
    " _gdpr_x",
    "note",
];
const VALUES: &[&str] = &["Rex", "blue note", "DOG-NAME", "straße", "", "東京", "n0te"];
const VISIBILITIES: &[&str] = &["self", "group", "global", "GLOBAL", "team"];
const QUERIES: &[&str] = &[
    "dog", "dog name", "NOTE", "blue", "straße", "strasse", "東京", "color", "x", "!!!", "1", "e",
];

#[derive(Debug, Clone)]
enum Op {
    Upsert(Box<Entry>),
    Remove(String),
    Increment(String),
}

fn arb_entry() -> impl Strategy<Value = Entry> {
    (
        (0u8..24, 0u8..2, 0..KEYS.len(), 0..VALUES.len() + 3),
        (0..VISIBILITIES.len(), 0u8..3, 0u8..4),
        (0..STAMPS.len(), 0u64..4),
    )
        .prop_map(
            |((id, user, key, value), (vis, agent, groups), (stamp, access))| {
                let value = match value.checked_sub(VALUES.len()) {
                    None => json!(VALUES[value]),
                    Some(0) => json!(42),
                    Some(1) => json!({"name": "Rex", "tags": ["Dog"]}),
                    Some(_) => json!(["blue", 1]),
                };
                let groups = match groups {
                    0 => json!([]),
                    1 => json!(["G1"]),
                    2 => json!(["G2"]),
                    _ => json!(["G1", "G2"]),
                };
                entry_from(&json!({
                    "id": format!("e{id:02}"), "userId": if user == 0 { "u1" } else { "u2" },
                    "key": KEYS[key], "value": value, "visibility": VISIBILITIES[vis],
                    "sourceAgentId": if agent == 2 { json!(null) } else { json!(format!("agent-{agent}")) },
                    "groupIds": groups, "accessCount": access, "updatedAt": STAMPS[stamp],
                }))
            },
        )
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => arb_entry().prop_map(|e| Op::Upsert(Box::new(e))),
        1 => (0u8..24).prop_map(|id| Op::Remove(format!("e{id:02}"))),
        2 => (0u8..24).prop_map(|id| Op::Increment(format!("e{id:02}"))),
    ]
}

/// The naive recall: everything shown, fully sorted.
fn naive_recall<'a>(
    all: &'a [Entry],
    viewer: &Viewer,
    order: RecallOrder,
    limit: usize,
) -> Vec<&'a Entry> {
    let mut shown: Vec<&Entry> = all.iter().filter(|e| viewer.shows(e)).collect();
    shown.sort_by(|a, b| recency_cmp(a, b));
    match order {
        RecallOrder::MostRecent => shown.into_iter().take(limit).collect(),
        RecallOrder::MostAccessed => {
            let mut by_access = shown.clone();
            by_access.sort_by(|a, b| {
                b.access_count
                    .cmp(&a.access_count)
                    .then_with(|| recency_cmp(a, b))
            });
            let mut chosen: Vec<&Entry> =
                by_access.into_iter().take(accessed_slots(limit)).collect();
            let rest = limit.saturating_sub(chosen.len());
            let fill: Vec<&Entry> = shown
                .into_iter()
                .filter(|e| !chosen.iter().any(|c| c.id == e.id))
                .take(rest)
                .collect();
            chosen.extend(fill);
            chosen
        }
    }
}

fn ids(entries: &[&Entry]) -> Vec<String> {
    entries.iter().map(|e| e.id.clone()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn indexed_recall_and_search_equal_the_naive_filter_and_sort(
        ops in prop::collection::vec(arb_op(), 0..60),
        limit in prop::sample::select(vec![0usize, 1, 2, 3, 5, 50]),
    ) {
        let mut set = EntrySet::new();
        let mut model: BTreeMap<String, Entry> = BTreeMap::new();
        for op in ops {
            match op {
                Op::Upsert(entry) => {
                    model.insert(entry.id.clone(), (*entry).clone());
                    set.upsert(*entry);
                }
                Op::Remove(id) => {
                    prop_assert_eq!(set.remove(&id), model.remove(&id));
                }
                Op::Increment(id) => {
                    let known = model.get_mut(&id).map(|e| e.access_count += 1).is_some();
                    prop_assert_eq!(set.increment_access(&id), known);
                }
            }
        }
        prop_assert_eq!(set.len(), model.len());
        for (id, entry) in &model {
            prop_assert_eq!(set.get(id), Some(entry));
        }
        // The key index and the count toward the cap follow every upsert (a key may change
        // under the same id), removal and the swap that fills its slot.
        for key in KEYS {
            let mut found: Vec<&str> = set.with_key(key).map(|e| e.id.as_str()).collect();
            found.sort_unstable();
            let expected: Vec<&str> = model.values().filter(|e| e.key == *key).map(|e| e.id.as_str()).collect();
            prop_assert_eq!(found, expected, "key {}", key);
        }
        prop_assert_eq!(set.counted(), model.values().filter(|e| !is_reserved_key(&e.key)).count());
        let all: Vec<Entry> = model.into_values().collect();
        for user_id in ["u1", "u2"] {
            for agent_id in ["agent-0", "agent-1"] {
                for group in [None, Some("G1"), Some("G2"), Some("")] {
                    let viewer = Viewer { user_id, agent_id, group };
                    for order in [RecallOrder::MostRecent, RecallOrder::MostAccessed] {
                        prop_assert_eq!(
                            ids(&set.recall(&viewer, order, limit)),
                            ids(&naive_recall(&all, &viewer, order, limit)),
                            "recall {:?} {:?} limit {}", viewer, order, limit
                        );
                    }
                    for query in QUERIES {
                        let terms = search_terms(query);
                        let matching: Vec<Entry> =
                            all.iter().filter(|e| matches_terms(&terms, e)).cloned().collect();
                        prop_assert_eq!(
                            ids(&set.search(&terms, &viewer, limit)),
                            ids(&naive_recall(&matching, &viewer, RecallOrder::MostRecent, limit)),
                            "search {:?} {:?} limit {}", query, viewer, limit
                        );
                    }
                }
            }
        }
    }
}

/// Search walks the recency index when many entries are candidates: the same answer as the
/// naive filter and sort, over more entries than the candidate threshold.
#[test]
fn a_search_with_many_hits_equals_the_naive_filter_and_sort() {
    let mut set = EntrySet::new();
    let mut all = Vec::new();
    for i in 0..1_000u32 {
        let visibility = ["global", "self", "group"][i as usize % 3];
        let stamp = STAMPS[i as usize % STAMPS.len()];
        let entry = entry_from(&json!({
            "id": format!("e{:04}", (i * 7919) % 1000), "key": format!("note_{i}"),
            "value": if i % 3 == 0 { json!("dog") } else { json!(i) },
            "visibility": visibility,
            "sourceAgentId": "agent-0", "groupIds": if i % 2 == 0 { json!(["G1"]) } else { json!([]) },
            "updatedAt": stamp,
        }));
        all.push(entry.clone());
        set.upsert(entry);
    }
    let viewer = Viewer {
        user_id: "u1",
        agent_id: "agent-0",
        group: Some("G1"),
    };
    for query in ["note", "note dog", "e", "1"] {
        let terms = search_terms(query);
        let matching: Vec<Entry> = all
            .iter()
            .filter(|e| matches_terms(&terms, e))
            .cloned()
            .collect();
        for limit in [1, 50, 400] {
            assert_eq!(
                ids(&set.search(&terms, &viewer, limit)),
                ids(&naive_recall(
                    &matching,
                    &viewer,
                    RecallOrder::MostRecent,
                    limit
                )),
                "{query} limit {limit}"
            );
        }
    }
}
