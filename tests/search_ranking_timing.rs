//! Native timing of the ranking algorithms of issue 21 over 10,000 short entries (ignored: run
//! with `cargo test --release --test search_ranking_timing -- --ignored --nocapture`). Nothing
//! is asserted about time.

use memcore::entries::search::analyzer::{Analyzer, Language};
use memcore::entries::search::bm25::{rank, AnalyzedDoc, Floor};
use memcore::entries::search::vectors::{rank_vectors, DEFAULT_COSINE_FLOOR};
use std::hint::black_box;
use std::time::Instant;

const WORDS: [&str; 16] = [
    "dog",
    "running",
    "Lisbon",
    "favourite",
    "coffee",
    "meetings",
    "allergic",
    "peanuts",
    "daughter",
    "birthday",
    "prefers",
    "window",
    "seat",
    "flights",
    "works",
    "Zurich",
];

fn entry(i: usize) -> (String, String) {
    let w = |k: usize| WORDS[(i * 7 + k * 3) % WORDS.len()];
    (
        format!("{}_{}_{i}", w(0), w(1)),
        format!("The user {} {} and {} on {}", w(2), w(3), w(4), w(5)),
    )
}

#[test]
#[ignore]
fn ranking_timing() {
    let analyzer = Analyzer::new(Language::English);
    let entries: Vec<(String, String)> = (0..10_000).map(entry).collect();
    let t = Instant::now();
    let docs: Vec<AnalyzedDoc> = entries
        .iter()
        .map(|(k, v)| AnalyzedDoc::new(&analyzer, k, v))
        .collect();
    println!("analyse 10,000 entries: {:?}", t.elapsed());
    // A wider vocabulary (3,000 words, skewed towards the first): a query matches a few
    // hundred entries, as in a real user's memory.
    let mut seed = 99u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let wide: Vec<AnalyzedDoc> = (0..10_000)
        .map(|_| {
            let terms: Vec<String> = (0..10)
                .map(|_| {
                    let u = (next() >> 11) as f64 / (1u64 << 53) as f64;
                    format!("w{}", (u * u * 3000.0) as usize)
                })
                .collect();
            AnalyzedDoc::from_terms(&terms)
        })
        .collect();
    let wide_refs: Vec<&AnalyzedDoc> = wide.iter().collect();
    let query: Vec<String> = ["w40", "w700", "w2100"].map(String::from).to_vec();
    let t = Instant::now();
    for _ in 0..100 {
        black_box(rank(black_box(&query), &wide_refs, Floor::DEFAULT));
    }
    let elapsed = t.elapsed() / 100;
    let matched = rank(&query, &wide_refs, Floor::NONE).len();
    println!("bm25 rank 10,000 analysed, 3,000-word vocabulary ({matched} match): {elapsed:?}");
    let refs: Vec<&AnalyzedDoc> = docs.iter().collect();
    for question in [
        "Where is my daughter's birthday party?",
        "which coffee does the user prefer in meetings?",
    ] {
        let query = analyzer.terms(question);
        let t = Instant::now();
        for _ in 0..100 {
            black_box(rank(black_box(&query), &refs, Floor::DEFAULT));
        }
        let elapsed = t.elapsed() / 100;
        let matched = rank(&query, &refs, Floor::NONE).len();
        let kept = rank(&query, &refs, Floor::DEFAULT).len();
        println!(
            "bm25 rank 10,000 analysed, {question:?} ({matched} match, {kept} kept): {elapsed:?}"
        );
    }

    let mut state = 7u64;
    let vectors: Vec<Vec<i8>> = (0..10_001)
        .map(|_| {
            (0..384)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state >> 56) as u8 as i8
                })
                .collect()
        })
        .collect();
    let candidates: Vec<&[i8]> = vectors[1..].iter().map(|v| v.as_slice()).collect();
    let t = Instant::now();
    for _ in 0..20 {
        black_box(rank_vectors(&vectors[0], &candidates, DEFAULT_COSINE_FLOOR));
    }
    println!("cosine rank 10,000 × 384: {:?}", t.elapsed() / 20);
}
