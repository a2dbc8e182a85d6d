//! Counting is linear in the text (issue: the heap merge was n·log n on long one-character
//! runs, 2 s for 4 MB in wasm). Asserted on work, not time: [`Tokenizer::work_steps`] counts
//! O(1) steps (a byte pre-tokenized, a pair queued or taken), and the steps per byte must stay
//! flat as the text grows 256-fold; the hard cut's steps must not grow with the text at all.

mod tokens_support;

use memcore::profile::fit::enforce_token_cap;
use memcore::profile::tokens::{Encoding, Tokenizer};

/// A deterministic pseudo-random generator (fixed seed; no randomness in assertions).
fn lcg(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    *seed >> 33
}

/// Makes a text of about the given length in bytes.
type Generator = fn(usize) -> String;

/// Texts that are one long pre-tokenizer piece (the merge's worst case), `len` bytes or a few
/// less (whole characters).
fn generators() -> Vec<(&'static str, Generator)> {
    vec![
        ("one letter", |n| "x".repeat(n)),
        ("spaces", |n| " ".repeat(n)),
        ("two letters", |n| "ab".repeat(n / 2)),
        ("one CJK character", |n| "漢".repeat(n / 3)),
        ("random lowercase", |n| {
            let mut seed = 7;
            (0..n)
                .map(|_| char::from(b'a' + (lcg(&mut seed) % 26) as u8))
                .collect()
        }),
        ("random over 'ab'", |n| {
            let mut seed = 11;
            (0..n)
                .map(|_| if lcg(&mut seed) % 2 == 0 { 'a' } else { 'b' })
                .collect()
        }),
    ]
}

fn steps_per_byte(tokenizer: &Tokenizer, text: &str) -> f64 {
    let before = tokenizer.work_steps();
    let tokens = tokenizer.count(text);
    assert!(tokens > 0);
    (tokenizer.work_steps() - before) as f64 / text.len() as f64
}

fn check(encoding: Encoding) {
    let tokenizer = tokens_support::tokenizer(encoding);
    for (name, generate) in generators() {
        let small = steps_per_byte(&tokenizer, &generate(4 << 10));
        let medium = steps_per_byte(&tokenizer, &generate(64 << 10));
        let large = steps_per_byte(&tokenizer, &generate(1 << 20));
        println!("{encoding:?} {name}: steps per byte {small:.2} → {medium:.2} → {large:.2}");
        // Flat: a heap would add ~4 sift steps per pair per 16× (log₂), here nothing grows.
        for (size, per_byte) in [("64 KiB", medium), ("1 MiB", large)] {
            assert!(
                per_byte <= small * 1.1 + 0.5,
                "{encoding:?} {name}: {per_byte:.2} steps per byte at {size} against {small:.2} at 4 KiB"
            );
        }
        assert!(
            large < 24.0,
            "{encoding:?} {name}: {large:.2} steps per byte"
        );
    }
}

#[test]
fn o200k_counting_is_linear_on_long_pieces() {
    check(Encoding::O200kBase);
}

#[test]
fn cl100k_counting_is_linear_on_long_pieces() {
    check(Encoding::Cl100kBase);
}

/// Prose lines, some long, so the cut keeps whole lines and searches.
fn prose(len: usize) -> String {
    let mut seed = 3;
    let words = [
        "memory",
        "profile",
        "Lisbon",
        "2026-12-04",
        "likes",
        "tea",
        "the",
        "a",
        "東京",
        "🧠",
    ];
    let mut text = String::from("# Profile\n\n");
    while text.len() < len {
        let n = 3 + lcg(&mut seed) % 40;
        text.push_str("- ");
        for _ in 0..n {
            text.push_str(words[(lcg(&mut seed) % words.len() as u64) as usize]);
            text.push(' ');
        }
        text.push('\n');
    }
    text
}

/// The hard cut looks only at what the budget can hold: its work is the same for a 1 MiB and a
/// 4 MiB text with the same beginning (both beyond the window of `budget × 128 + 64 KiB` bytes),
/// and a small multiple of one count of what it keeps. Each measurement uses a fresh tokenizer,
/// so no remembered count hides a recount.
#[test]
fn the_hard_cut_is_bounded_by_the_budget() {
    for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
        for (name, text) in [
            ("prose", prose(4 << 20)),
            ("one letter", "x".repeat(4 << 20)),
            (
                "a long line after a short one",
                format!("# Title\n{}", "word ".repeat(1 << 20)),
            ),
            ("one long line of words", "word ".repeat(1 << 20)),
            ("one long line of CJK", "東京".repeat(1 << 20)),
        ] {
            let prefix = |len: usize| {
                let end = (len..=text.len())
                    .find(|&i| text.is_char_boundary(i))
                    .unwrap_or(text.len());
                &text[..end]
            };
            for budget in [200usize, 2_000] {
                let mut work = Vec::new();
                let mut kept = String::new();
                for len in [1 << 20, 2 << 20, 4 << 20] {
                    let tokenizer = tokens_support::tokenizer(encoding);
                    let outcome = enforce_token_cap(prefix(len), budget, &tokenizer).expect("cuts");
                    work.push(tokenizer.work_steps());
                    assert!(outcome.truncated && outcome.tokens_after <= budget);
                    kept = outcome.text;
                }
                let tokenizer = tokens_support::tokenizer(encoding);
                tokenizer.count(&kept);
                let one_count = tokenizer.work_steps();
                println!(
                    "{encoding:?} {name} budget {budget}: cut steps {work:?}, one count of the result {one_count}"
                );
                assert!(
                    work.iter().all(|&w| w == work[0]),
                    "{encoding:?} {name}: {work:?} grows with the text"
                );
                assert!(
                    work[0] <= 10 * one_count,
                    "{encoding:?} {name}: {work:?} against {one_count} for one count"
                );
            }
        }
    }
}
