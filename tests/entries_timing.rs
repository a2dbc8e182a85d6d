//! Native timing of recall/search over 10,000 entries (ignored: run with
//! `cargo test --release --test entries_timing -- --ignored --nocapture`). Nothing is asserted
//! about time; `make bench` compares the wasm build with JS.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::expect_used,
    clippy::panic
)]

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
