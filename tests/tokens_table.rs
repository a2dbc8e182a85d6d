//! Loading a table never panics: a truncated, garbled or foreign file is an `E_ARGUMENT` error,
//! and a body corrupted past the constant-time checks still tokenizes without panicking.

mod tokens_support;

use memcore::error::Error;
use memcore::profile::tokens::{Encoding, Tokenizer};
use memcore::ErrorCode;
use proptest::prelude::*;
use std::sync::OnceLock;

fn cl100k() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| tokens_support::table_bytes(Encoding::Cl100kBase))
}

#[test]
fn built_tables_load_and_name_their_encoding() {
    assert_eq!(
        tokens_support::tokenizer(Encoding::O200kBase).encoding(),
        Encoding::O200kBase
    );
    assert_eq!(Encoding::parse("cl100k_base"), Ok(Encoding::Cl100kBase));
    assert_eq!(
        Encoding::parse("gpt2").map_err(|e| Error::from(e).code),
        Err(ErrorCode::Argument)
    );
    assert_eq!(Encoding::default().name(), "o200k_base");
}

#[test]
fn special_token_strings_are_plain_text() {
    let t = tokens_support::tokenizer(Encoding::O200kBase);
    assert!(t.count("<|endoftext|>") > 1);
    assert_eq!(t.count(""), 0);
    assert_eq!(t.encode("hello world"), vec![24912, 2375]);
}

#[test]
fn empty_and_foreign_files_are_argument_errors() {
    for bytes in [Vec::new(), b"MEMCTOK\0".to_vec(), vec![0u8; 100_000]] {
        let err = Error::from(Tokenizer::from_table(bytes).expect_err("rejected"));
        assert_eq!(err.code, ErrorCode::Argument);
        assert!(
            err.message
                .contains("the .bin file shipped with this version of memcore"),
            "{}",
            err.message
        );
    }
}

/// A table of another format version (a stale copy loaded next to a newer wasm) says which file
/// to load instead.
#[test]
fn a_table_of_another_format_version_says_which_file_to_load() {
    let mut bytes = cl100k().to_vec();
    bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
    let err = Error::from(Tokenizer::from_table(bytes).expect_err("version 1"));
    assert_eq!(err.code, ErrorCode::Argument);
    assert!(
        err.message.contains("unsupported format version"),
        "{}",
        err.message
    );
    assert!(
        err.message.contains("memcore/tokenizer/<encoding>.bin"),
        "{}",
        err.message
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn truncated_tables_are_rejected(cut in 0usize..1_500_000) {
        let bytes = cl100k();
        let cut = cut.min(bytes.len() - 1);
        let err = Error::from(Tokenizer::from_table(bytes[..cut].to_vec()).expect_err("truncated"));
        prop_assert_eq!(err.code, ErrorCode::Argument);
    }

    #[test]
    fn garbled_tables_never_panic(
        edits in proptest::collection::vec((0usize..1_500_000, any::<u8>()), 1..40),
        header_edits in proptest::collection::vec((0usize..300_000, any::<u8>()), 0..4),
        text in "\\PC{0,60}",
    ) {
        let mut bytes = cl100k().to_vec();
        let len = bytes.len();
        for (at, value) in edits.into_iter().chain(header_edits) {
            bytes[at % len] = value;
        }
        if let Ok(tokenizer) = Tokenizer::from_table(bytes) {
            let ids = tokenizer.encode(&text);
            prop_assert!(ids.len() <= text.len());
            let _ = tokenizer.count(&text);
        }
    }
}

/// The counts of recently counted texts are remembered (a turn counts one profile several times);
/// whatever the order of limits, the answers are those of a fresh tokenizer.
#[test]
fn remembered_counts_answer_exactly_like_fresh_counts() {
    let texts: Vec<String> = (0..6)
        .map(|i| {
            format!(
                "## Identity\n{}",
                "- a fact about the user, number {i}\n".repeat(20 + i * 7)
            )
        })
        .collect();
    let remembering = tokens_support::tokenizer(Encoding::O200kBase);
    for round in 0..3 {
        for (i, text) in texts.iter().enumerate() {
            let exact = tokens_support::tokenizer(Encoding::O200kBase).count(text);
            for limit in [exact / 2, exact - 1, exact, exact + 1, usize::MAX, 0] {
                let limit = limit.saturating_add(round * i) % (exact * 2 + 1);
                assert_eq!(
                    remembering.count_up_to(text, limit),
                    (exact <= limit).then_some(exact),
                    "text {i}, limit {limit}, round {round}"
                );
            }
            assert_eq!(remembering.count(text), exact);
        }
    }
}

/// The first lookups of a fresh table go through the bucket search, later ones through the hash
/// index: both give the same ids.
#[test]
fn searched_and_indexed_lookups_agree() {
    let corpus = include_str!("vectors/tokens/corpus.json");
    let warm = tokens_support::tokenizer(Encoding::O200kBase);
    // More than the searches before the index (65,536 lookups): afterwards the index answers.
    warm.encode(&corpus.repeat(3));
    for chunk in corpus.as_bytes().chunks(4000).take(40) {
        let text = String::from_utf8_lossy(chunk);
        let fresh = tokens_support::tokenizer(Encoding::O200kBase);
        assert_eq!(fresh.encode(&text), warm.encode(&text));
    }
}

/// Garbling the body where the front coding can go wrong — a token that shares more bytes with
/// the one before than it has, has no bytes of its own or more than the file holds, a block
/// offset out of place, a rank beyond the table, tokens out of order — is either refused at load
/// or answered without a panic, before the hash index is built (block search) and after (the
/// index decodes every token), and every id is a rank of the table.
#[test]
fn a_garbled_front_coding_never_panics() {
    let bytes = cl100k();
    let n = u32::from_le_bytes(bytes[28..32].try_into().unwrap()) as usize;
    let (shared, lens, hi) = (48, 48 + n, 48 + 2 * n);
    let bases = 48 + 5 * n;
    let suffixes = bases + 4 * (n.div_ceil(64) + 1);
    let first_byte_of = |i: usize| {
        suffixes
            + bytes[lens..lens + i]
                .iter()
                .map(|&l| l as usize)
                .sum::<usize>()
    };
    let cases: Vec<(&str, usize, u8)> = vec![
        ("shared more than the previous token", shared + 1, 200),
        (
            "shared more than the previous token, mid-block",
            shared + 70,
            255,
        ),
        ("no bytes of its own", lens + 1000, 0),
        ("a longer suffix than the file holds", lens + n - 1, 255),
        ("a long suffix mid-file", lens + 5000, 255),
        ("a block offset out of place", bases + 4 * 30, 0xff),
        ("a block offset out of place", bases + 4 * 31 + 3, 0x7f),
        ("a rank beyond the table", hi + 7, 0xff),
        (
            "the first token of a block sharing bytes",
            shared + 64 * 9,
            3,
        ),
        ("a token out of order", first_byte_of(n / 2 + 5), 0),
    ];
    let corpus = include_str!("vectors/tokens/corpus.json");
    for (what, at, value) in cases {
        let mut garbled = bytes.to_vec();
        garbled[at] = value;
        let Ok(tokenizer) = Tokenizer::from_table(garbled) else {
            continue;
        };
        for _ in 0..3 {
            // The third pass is past the searches before the index (the corpus is ~2 × 32,768
            // lookups), so both lookup paths read the garbled body.
            let ids = tokenizer.encode(corpus);
            assert!(ids.iter().all(|&id| (id as usize) < n), "{what}");
        }
    }
}
