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

/// What a ranked search reads of the set ([`EntrySet::ranked`]: the entries an audience is
/// shown, with their vectors of one model) and the vectors themselves, against a naive model,
/// after any sequence of upserts (a changed key or value drops the vector), removals and vector
/// writes of two models and two lengths (slots given back and reused, a model's block emptied
/// and refilled). Entries of one user or of two in one set (the owner checked once, or per
/// entry).
mod ranked_rows {
    use super::*;
    use memcore::entries::search::analyzer::{Analyzer, Language};
    use memcore::entries::search::id_prefix;
    use memcore::entries::store::VectorWrite;
    use memcore::entries::visibility::Audience;

    #[derive(Debug, Clone)]
    enum VOp {
        Upsert(Box<Entry>),
        Remove(String),
        /// id, model, length, seed, stale (made from another value: refused).
        Put(String, usize, usize, i8, bool),
    }

    const MODELS: &[&str] = &["m1", "m2"];

    fn arb_vop() -> impl Strategy<Value = VOp> {
        prop_oneof![
            4 => arb_entry().prop_map(|e| VOp::Upsert(Box::new(e))),
            1 => (0u8..24).prop_map(|id| VOp::Remove(format!("e{id:02}"))),
            4 => (0u8..24, 0..MODELS.len(), 3usize..5, any::<i8>(), prop::bool::weighted(0.1))
                .prop_map(|(id, m, len, seed, stale)| VOp::Put(format!("e{id:02}"), m, len, seed, stale)),
        ]
    }

    fn vector_of(len: usize, seed: i8) -> Vec<i8> {
        (0..len).map(|i| seed.wrapping_add(i as i8 * 37)).collect()
    }

    type Naive = BTreeMap<String, (Entry, Option<(usize, Vec<i8>)>)>;
    /// One ranked row as compared: id, vector and norm, analysed, id prefix.
    type Row = (String, Option<(Vec<i8>, i64)>, bool, u128);

    fn check(set: &EntrySet, naive: &Naive) -> Result<(), TestCaseError> {
        let analyzer = Analyzer::new(Language::English);
        for (m, model) in MODELS.iter().enumerate() {
            let wanted = |v: &Option<(usize, Vec<i8>)>| match v {
                Some((vm, vector)) if *vm == m => Some(vector.clone()),
                _ => None,
            };
            for (id, (_, v)) in naive {
                prop_assert_eq!(
                    set.vector(id, model).map(<[i8]>::to_vec),
                    wanted(v),
                    "vector {} {}",
                    id,
                    model
                );
            }
            let mut all: Vec<(String, Option<Vec<i8>>)> = set
                .with_vectors(model)
                .map(|(e, v)| (e.id.clone(), v.map(<[i8]>::to_vec)))
                .collect();
            all.sort();
            let expected: Vec<(String, Option<Vec<i8>>)> = naive
                .iter()
                .map(|(id, (_, v))| (id.clone(), wanted(v)))
                .collect();
            prop_assert_eq!(all, expected, "with_vectors {}", model);
            let viewers = [
                Viewer {
                    user_id: "u1",
                    agent_id: "agent-0",
                    group: Some("G1"),
                },
                Viewer {
                    user_id: "u1",
                    agent_id: "agent-1",
                    group: None,
                },
                Viewer {
                    user_id: "u2",
                    agent_id: "agent-0",
                    group: Some("G2"),
                },
            ];
            let audiences = [
                Audience::Owner("u1"),
                Audience::Owner("u2"),
                Audience::Owner("u3"),
            ]
            .into_iter()
            .chain(viewers.into_iter().map(Audience::Viewer));
            for audience in audiences {
                let mut got: Vec<Row> = set
                    .ranked(Some(model), &analyzer, audience)
                    .map(|(e, v, doc, prefix)| {
                        (
                            e.id.clone(),
                            v.map(|(v, n)| (v.to_vec(), n)),
                            doc.is_some(),
                            prefix,
                        )
                    })
                    .collect();
                got.sort();
                let expected: Vec<Row> = naive
                    .iter()
                    .filter(|(_, (e, _))| audience.shows(e))
                    .map(|(id, (_, v))| {
                        let v = wanted(v).map(|v| {
                            let n = v.iter().map(|&x| i64::from(x) * i64::from(x)).sum();
                            (v, n)
                        });
                        (id.clone(), v, true, id_prefix(id))
                    })
                    .collect();
                prop_assert_eq!(got, expected, "ranked {:?} {}", audience, model);
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn ranked_rows_and_vectors_equal_the_naive_model(
            one_user in any::<bool>(),
            ops in prop::collection::vec(arb_vop(), 0..60),
        ) {
            let mut set = EntrySet::new();
            let mut naive: Naive = BTreeMap::new();
            for op in ops {
                match op {
                    VOp::Upsert(mut entry) => {
                        if one_user {
                            entry.user_id = "u1".into();
                        }
                        let kept = naive.get(&entry.id).and_then(|(old, v)| {
                            (old.key == entry.key && old.value == entry.value).then(|| v.clone()).flatten()
                        });
                        naive.insert(entry.id.clone(), ((*entry).clone(), kept));
                        set.upsert(*entry);
                    }
                    VOp::Remove(id) => {
                        prop_assert_eq!(set.remove(&id), naive.remove(&id).map(|(e, _)| e));
                    }
                    VOp::Put(id, m, len, seed, stale) => {
                        let vector = vector_of(len, seed);
                        let (key, value) = match naive.get(&id) {
                            Some((e, _)) if !stale => (e.key.clone(), e.value.clone()),
                            _ => ("no such key".to_string(), json!("stale")),
                        };
                        let stored = set.put_vector(&VectorWrite {
                            id: &id, key: &key, value: &value, model: MODELS[m], vector: &vector,
                        });
                        let accepted = match naive.get_mut(&id) {
                            Some((e, v)) if e.key == key && e.value == value => {
                                *v = Some((m, vector));
                                true
                            }
                            _ => false,
                        };
                        prop_assert_eq!(stored, accepted);
                    }
                }
                check(&set, &naive)?;
            }
        }
    }
}
