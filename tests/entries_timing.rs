//! Native timing of recall/search over 10,000 entries (ignored: run with
//! `cargo test --release --test entries_timing -- --ignored --nocapture`). Nothing is asserted
//! about time; `make bench` compares the wasm build with JS.

mod common;

use common::*;
use memcore::entries::config::RecallOrder;
use memcore::entries::recall::select_for_recall;
use memcore::entries::search::{matches_terms, search_terms};
use memcore::entries::visibility::is_visible;
use memcore::entries::Entry;
use serde_json::json;
use std::time::Instant;

fn entries() -> Vec<Entry> {
    (0..10_000)
        .map(|i| {
            let vis = ["global", "self", "group"][i % 3];
            let agent = ["a", "b", "c"][i % 3];
            let groups = if vis == "group" { json!(["G1"]) } else { json!([]) };
            let mut e = entry_from(&json!({
                "id": format!("e{i:05}"), "key": format!("dog_name_{i}"), "value": format!("note {i}"),
                "visibility": vis, "sourceAgentId": agent, "groupIds": groups,
            }));
            e.updated_at = format!("2026-01-{:02}T10:{:02}:00Z", 1 + i % 28, i % 60);
            e
        })
        .collect()
}

#[test]
#[ignore]
fn recall_and_search_timing() {
    let all = entries();
    let t = Instant::now();
    for _ in 0..20 {
        let vis: Vec<&Entry> = all
            .iter()
            .filter(|e| is_visible(e, "a", Some("G1")))
            .collect();
        std::hint::black_box(vis);
    }
    println!("visibility filter: {:?}", t.elapsed() / 20);
    let t = Instant::now();
    for _ in 0..20 {
        let r = select_for_recall(
            all.iter().filter(|e| is_visible(e, "a", Some("G1"))),
            RecallOrder::MostRecent,
            50,
        );
        std::hint::black_box(r);
    }
    println!("recall select: {:?}", t.elapsed() / 20);
    let t = Instant::now();
    for _ in 0..20 {
        let r = select_for_recall(all.iter(), RecallOrder::MostRecent, 50);
        std::hint::black_box(r);
    }
    println!(
        "recall select without the visibility filter: {:?}",
        t.elapsed() / 20
    );
    let t = Instant::now();
    for _ in 0..20 {
        let mut v: Vec<&Entry> = all.iter().collect();
        v.sort_by(|a, b| memcore::entries::recall::recency_cmp(a, b));
        std::hint::black_box(v);
    }
    println!("full sort with recency_cmp: {:?}", t.elapsed() / 20);
    let terms = search_terms("dog name");
    let t = Instant::now();
    for _ in 0..20 {
        let r: Vec<&Entry> = all.iter().filter(|e| matches_terms(&terms, e)).collect();
        std::hint::black_box(r);
    }
    println!("search match: {:?}", t.elapsed() / 20);
}

/// The package bench's entries (scripts/bench/entries.mjs `makeEntries`): 10,000 of user u1,
/// a third each global, self and group over three agents, `updatedAt` 61 seconds apart.
fn bench_entries() -> Vec<Entry> {
    const WORDS: [&str; 12] = [
        "coffee", "zurich", "python", "report", "dog", "name", "color", "blue", "Straße", "東京",
        "team", "deadline",
    ];
    let base = parse_time("2026-01-01T00:00:00Z");
    (0..10_000usize)
        .map(|i| {
            let vis = ["global", "self", "group"][i % 3];
            let t = (base + chrono::Duration::milliseconds(i as i64 * 61_000))
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
            let value = if i % 7 == 0 {
                json!({"n": i, "tags": [WORDS[(i + 3) % 12]]})
            } else {
                json!(format!("{} note {i}", WORDS[(i * 5) % 12]))
            };
            let groups = if vis == "group" {
                vec![["G1", "G2"][i % 2]]
            } else {
                vec![]
            };
            let category = ["preference", "fact", "context"][i % 3];
            let agent = ["agent-a", "agent-b", "agent-c"][i % 3];
            entry_from(&json!({
                "id": format!("e{i:05}"), "key": format!("{}_{i}", WORDS[i % 12]), "value": value,
                "category": category, "visibility": vis,
                "sourceAgentId": agent, "groupIds": groups,
                "accessCount": (i * 7919) % 97, "createdAt": t, "updatedAt": t,
            }))
        })
        .collect()
}

#[test]
#[ignore]
fn tool_recall_and_search_timing_over_the_in_memory_store() {
    use memcore::entries::tools::ToolSession;
    use memcore::entries::{InMemoryEntryStore, UserMemoryConfig};
    let store = InMemoryEntryStore::new();
    for e in bench_entries() {
        store.upsert_now(&e).unwrap();
    }
    let mut session = ToolSession::new(UserMemoryConfig::default(), "u1", "agent-a").unwrap();
    session.group = Some("G1".into());
    let clock = TestClock::at("2026-11-29T10:00:00Z");
    let ids = CounterIds::default();
    // MEMCORE_TIMING_ONLY=<part of "tool args"> times one row (for a profiler).
    let only = std::env::var("MEMCORE_TIMING_ONLY").ok();
    for (tool, args) in [
        ("recallMemories", json!({})),
        ("searchMemory", json!({"query": "dog name"})),
        ("searchMemory", json!({"query": "note"})),
    ] {
        if only
            .as_deref()
            .is_some_and(|o| !format!("{tool} {args}").contains(o))
        {
            continue;
        }
        let runs = 2000;
        let t = Instant::now();
        for _ in 0..runs {
            let answer = block_on(call_tool_on(
                &mut session,
                &store,
                &clock,
                &ids,
                tool,
                Some(&args),
            ));
            std::hint::black_box(answer);
        }
        println!("{tool} {args}: {:?} per call", t.elapsed() / runs);
    }
}
