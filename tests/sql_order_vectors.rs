//! The order logic the SQL statements hold (ORDER BY updated_sort / access_count / id, oldest
//! own, search candidate order), pinned by `tests/vectors/sql/order.json` — the file the JS suite
//! replays against each SQL backend (tests/js/sql-order.test.mjs) — and checked here against the
//! core's own rules: recency and staleness ([`recency_cmp`], [`staleness_cmp`]), recall
//! ([`select_for_recall`], which must give the same answer over the store's rows as over all),
//! visibility, the reserved-key rule and search matching. `MEMCORE_BLESS=1` prints the cases with
//! the core's answers.

use memcore::entries::config::RecallOrder;
use memcore::entries::recall::{recency_cmp, select_for_recall, staleness_cmp};
use memcore::entries::search::matches_query;
use memcore::entries::visibility::{is_reserved_key, is_visible};
use memcore::entries::Entry;
use serde_json::{json, Value};
use std::cmp::Ordering;

fn vectors() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/vectors/sql/order.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn ids(entries: &[&Entry]) -> Vec<String> {
    entries.iter().map(|e| e.id.clone()).collect()
}

fn by_access(a: &&Entry, b: &&Entry) -> Ordering {
    b.access_count
        .cmp(&a.access_count)
        .then_with(|| recency_cmp(a, b))
}

/// What the store answers for a case, by the core's rules.
fn answer(entries: &[Entry], case: &Value) -> Vec<String> {
    let user: Vec<&Entry> = entries.iter().filter(|e| e.user_id == "u").collect();
    let agent = case["agentId"].as_str().unwrap_or("");
    let limit = case["limit"].as_u64().unwrap_or(0) as usize;
    match case["op"].as_str().unwrap() {
        "recall" => {
            let group = case["groupId"].as_str();
            let mut visible: Vec<&Entry> = user
                .into_iter()
                .filter(|e| !is_reserved_key(&e.key) && is_visible(e, agent, group))
                .collect();
            let order = match case["order"].as_str().unwrap() {
                "most_recent" => RecallOrder::MostRecent,
                _ => RecallOrder::MostAccessed,
            };
            let core = ids(&select_for_recall(visible.iter().copied(), order, limit));
            let store: Vec<&Entry> = match order {
                RecallOrder::MostRecent => {
                    visible.sort_by(|a, b| recency_cmp(a, b));
                    visible.into_iter().take(limit).collect()
                }
                RecallOrder::MostAccessed => {
                    visible.sort_by(by_access);
                    let mut chosen: Vec<&Entry> = visible.iter().copied().take(limit).collect();
                    visible.sort_by(|a, b| recency_cmp(a, b));
                    for e in visible.into_iter().take(limit) {
                        if !chosen.iter().any(|c| c.id == e.id) {
                            chosen.push(e);
                        }
                    }
                    chosen.sort_by(by_access);
                    chosen
                }
            };
            // The store's rows are enough: the core picks the same from them as from all.
            let again = ids(&select_for_recall(store.iter().copied(), order, limit));
            assert_eq!(again, core, "{case}");
            ids(&store)
        }
        "oldestOwn" => {
            let mut own: Vec<&Entry> = user
                .into_iter()
                .filter(|e| e.source_agent_id.as_deref() == Some(agent) && !is_reserved_key(&e.key))
                .collect();
            own.sort_by(|a, b| staleness_cmp(a, b));
            ids(&own.into_iter().take(limit).collect::<Vec<_>>())
        }
        "search" => {
            let query = case["query"].as_str().unwrap();
            let mut found: Vec<&Entry> = user
                .into_iter()
                .filter(|e| matches_query(query, e))
                .collect();
            found.sort_by(|a, b| a.id.cmp(&b.id));
            ids(&found)
        }
        op => panic!("unknown op {op}"),
    }
}

#[test]
fn sql_order_vectors_follow_the_core() {
    let v = vectors();
    let entries: Vec<Entry> = serde_json::from_value(v["entries"].clone()).unwrap();
    let mut blessed = Vec::new();
    for case in v["cases"].as_array().unwrap() {
        let got = answer(&entries, case);
        if std::env::var_os("MEMCORE_BLESS").is_some() {
            let mut c = case.clone();
            c["expect"] = json!(got);
            blessed.push(c);
        } else {
            assert_eq!(json!(got), case["expect"], "{case}");
        }
    }
    if !blessed.is_empty() {
        println!("BLESSED {}", Value::Array(blessed));
    }
}
