//! Native timings for the report, not a test of speed: run with
//! `cargo test --release --test tokens_timing -- --ignored --nocapture`.

mod tokens_support;

use memcore::profile::tokens::{Encoding, Tokenizer};
use std::time::Instant;

fn profile_text() -> String {
    let corpus: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/vectors/tokens/corpus.json"
        ))
        .expect("corpus"),
    )
    .expect("json");
    let mut text = String::new();
    for case in corpus["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .skip(13)
        .step_by(13)
    {
        if text.len() >= 8_500 {
            break;
        }
        text.push_str(case["text"].as_str().expect("text"));
    }
    // Cases 13, 26, … are the generated Markdown profiles (frontmatter + six sections).
    let cut = text
        .char_indices()
        .map(|(i, _)| i)
        .find(|&i| i >= 8_500)
        .unwrap_or(text.len());
    text.truncate(cut);
    text
}

#[test]
#[ignore = "timing report, run explicitly"]
fn report_load_and_count_timings() {
    let text = profile_text();
    for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
        let bytes = tokens_support::table_bytes(encoding);
        let start = Instant::now();
        let tokenizer = Tokenizer::from_table(bytes).expect("loads");
        let load = start.elapsed();
        let tokens = tokenizer.count(&text);
        let rounds = 2_000;
        let start = Instant::now();
        let mut total = 0;
        for _ in 0..rounds {
            total += tokenizer.count(std::hint::black_box(&text));
        }
        let per = start.elapsed() / rounds;
        assert_eq!(total, tokens * rounds as usize);
        println!(
            "{}: load {load:?}; count of {} bytes ({tokens} tokens): {per:?} per call",
            encoding.name(),
            text.len()
        );
    }
}
