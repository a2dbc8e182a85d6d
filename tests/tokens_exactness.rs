//! Token counts and ids equal js-tiktoken's on the generated corpus, for both encodings.

mod tokens_support;

use memcore::profile::tokens::Encoding;
use serde_json::Value;

fn corpus() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/vectors/tokens/corpus.json"
    );
    let text =
        std::fs::read_to_string(path).expect("corpus.json (node scripts/tokens/gen-corpus.mjs)");
    serde_json::from_str(&text).expect("corpus parses")
}

fn check(encoding: Encoding) {
    let tokenizer = tokens_support::tokenizer(encoding);
    assert_eq!(tokenizer.encoding(), encoding);
    let corpus = corpus();
    let cases = corpus["cases"].as_array().expect("cases");
    assert!(cases.len() >= 1000, "corpus too small");
    let mut mismatches = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let text = case["text"].as_str().expect("text");
        let expected = &case[encoding.name()];
        let want = expected["count"].as_u64().expect("count") as usize;
        let got = tokenizer.count(text);
        let ids = tokenizer.encode(text);
        let want_ids: Option<Vec<u32>> = expected.get("ids").map(|ids| {
            ids.as_array()
                .expect("ids")
                .iter()
                .map(|v| v.as_u64().expect("id") as u32)
                .collect()
        });
        let ids_ok = want_ids.as_ref().map_or(true, |w| *w == ids);
        if got != want || ids.len() != want || !ids_ok {
            mismatches.push(format!(
                "case {i}: count {got} (encode {}) expected {want}; text {:?}\n  pieces {:?}",
                ids.len(),
                text.chars().take(200).collect::<String>(),
                tokenizer
                    .pieces(text)
                    .into_iter()
                    .take(40)
                    .collect::<Vec<_>>()
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{}: {} mismatches of {}:\n{}",
        encoding.name(),
        mismatches.len(),
        cases.len(),
        mismatches
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn o200k_counts_equal_js_tiktoken_on_the_corpus() {
    check(Encoding::O200kBase);
}

#[test]
fn cl100k_counts_equal_js_tiktoken_on_the_corpus() {
    check(Encoding::Cl100kBase);
}

/// `count` caches the counts of multi-token pieces across calls; `encode` does not. Counting the
/// corpus again through the same (now warm) tokenizer, and a text with more distinct
/// multi-token pieces than the cache holds (forcing resets mid-text), must still agree.
#[test]
fn cached_counts_equal_encode_lengths() {
    let corpus = corpus();
    let cases = corpus["cases"].as_array().expect("cases");
    // Words of rare letter pairs: almost all split into several tokens, all distinct.
    let mut many = String::new();
    for i in 0..6000u32 {
        let mut n = i;
        many.push(' ');
        for _ in 0..4 {
            many.push(char::from(b'q' + (n % 9) as u8));
            many.push(char::from(b'j' + (n % 5) as u8));
            n /= 7;
        }
    }
    for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
        let tokenizer = tokens_support::tokenizer(encoding);
        for round in 0..2 {
            for (i, case) in cases.iter().enumerate() {
                let text = case["text"].as_str().expect("text");
                let want = case[encoding.name()]["count"].as_u64().expect("count") as usize;
                assert_eq!(tokenizer.count(text), want, "round {round}, case {i}");
            }
            assert_eq!(
                tokenizer.count(&many),
                tokenizer.encode(&many).len(),
                "round {round}"
            );
        }
    }
}

/// A text that ends with one counted a moment before (a profile assembled around the body the
/// consolidation answered) is counted from that count and the pieces before it — exactly, at
/// every split: on a piece boundary, inside a piece, inside a character's neighbourhood, with
/// whitespace on both sides of the junction, and under limits on both sides of the total.
#[test]
fn a_text_ending_with_a_counted_text_counts_exactly_at_every_split() {
    let corpus = corpus();
    let cases = corpus["cases"].as_array().expect("cases");
    let long: Vec<String> = cases
        .iter()
        .filter_map(|c| c["text"].as_str())
        .filter(|t| t.len() >= 600)
        .take(6)
        .map(str::to_string)
        .chain([
            format!(
                "---\nuser_id: u1\n---\n\n{}",
                "# User Memory\n\n## Identity\n- Ana, Lisbon 🙂\n".repeat(30)
            ),
            format!("{}   \n\n  tail", "word  ".repeat(200)),
            format!("{}'s  \r\n", "Ünïcödé 123456 ".repeat(60)),
        ])
        .collect();
    let mut checked = 0;
    for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
        for text in &long {
            // One tokenizer per text: the 16 remembered texts rotate, and each split's suffix is
            // new, so every count of `text` goes through the suffix it was just given.
            let tokenizer = tokens_support::tokenizer(encoding);
            for (n, cut) in (1..text.len().saturating_sub(512))
                .step_by(11)
                .filter(|c| text.is_char_boundary(*c))
                .enumerate()
            {
                let suffix = format!("{}{}", &text[cut..], " ".repeat(n % 3));
                let whole = format!("{}{suffix}", &text[..cut]);
                let want = tokenizer.encode(&whole).len();
                assert_eq!(tokenizer.count(&suffix), tokenizer.encode(&suffix).len());
                let got = match n % 3 {
                    0 => tokenizer.count(&whole),
                    1 => tokenizer.count_up_to(&whole, want).unwrap_or(usize::MAX),
                    _ => {
                        assert_eq!(tokenizer.count_up_to(&whole, want - 1), None);
                        want
                    }
                };
                assert_eq!(got, want, "{}: cut at {cut}", encoding.name());
                checked += 1;
            }
        }
    }
    assert!(checked > 500, "{checked} splits");
}

/// A text made of a prefix, a text counted a moment before and line feeds (a profile file
/// assembled around the consolidation's answer, whose rendered body ends with a line feed the
/// answer may lack) is counted from that count, its last piece and the line feeds recounted —
/// exactly, for every kind of last character (letters of both cases and of other scripts,
/// numbers, punctuation, `/`, a contraction's quote, whitespace, emoji), every number of line
/// feeds and limits on both sides of the total. With a short prefix it does a fraction of a
/// fresh count's work, so the composed path is the one taken.
#[test]
fn a_counted_text_followed_by_line_feeds_counts_exactly() {
    let corpus = corpus();
    let cases = corpus["cases"].as_array().expect("cases");
    let bodies: Vec<String> = cases
        .iter()
        .filter_map(|c| c["text"].as_str())
        .filter(|t| t.trim().len() >= 700)
        .take(5)
        .map(str::to_string)
        .chain([
            "# User Memory\n\n## Identity\n- Ana, Lisbon 🙂 (3)\n".repeat(30),
            "Ünïcödé 123456 don't-stop ÀBCdef ǅx ".repeat(40),
        ])
        .collect();
    let endings = [
        "", "plans", "PLANS", "Plans", "ÀB", "ǅ", "x'", "don'l", "don't", "123", "1234", ".", ")",
        "?!", "/", "a/", "- ", "  ", "\t", "é", "漢字", "🙂", "\r", " \n ", "'s", "-",
    ];
    let mut checked = 0;
    let mut composed = 0;
    for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
        // One tokenizer for all: each file is new, and the answer it holds was counted just before.
        let tokenizer = tokens_support::tokenizer(encoding);
        for (b, body) in bodies.iter().enumerate() {
            for (e, ending) in endings.iter().enumerate() {
                let answer = format!("{}{ending}", body.trim());
                for feeds in 0..4 {
                    assert_eq!(tokenizer.count(&answer), tokenizer.encode(&answer).len());
                    let prefix = ["", "---\nuser_id: u1\n---\n\n", "x", "- "][(b + e) % 4];
                    let file = format!("{prefix}{answer}{}", "\n".repeat(feeds));
                    let want = tokenizer.encode(&file).len();
                    let before = tokenizer.work_steps();
                    let got = match (e + feeds) % 3 {
                        0 => tokenizer.count(&file),
                        1 => tokenizer.count_up_to(&file, want).unwrap_or(usize::MAX),
                        _ => {
                            assert_eq!(tokenizer.count_up_to(&file, want - 1), None);
                            tokenizer.count_up_to(&file, want).unwrap_or(usize::MAX)
                        }
                    };
                    let steps = tokenizer.work_steps() - before;
                    assert_eq!(
                        got,
                        want,
                        "{}: {prefix:?} + body {b} ending {ending:?} + {feeds} line feeds",
                        encoding.name()
                    );
                    // Where the answer starts on a piece boundary of the file and either ends it
                    // or ends in a visible ASCII character, the remembered count is used (and
                    // only its last piece is counted again: short, in text like a profile's).
                    let last_piece = tokenizer.pieces(&answer).last().map_or(0, |p| p.len());
                    let eligible = (prefix.is_empty() || prefix.ends_with("\n\n"))
                        && last_piece * 8 < file.len()
                        && (feeds == 0
                            || answer.as_bytes().last().is_some_and(u8::is_ascii_graphic));
                    if eligible {
                        assert!(
                            steps * 4 < file.len() as u64,
                            "{}: {prefix:?} + body {b} ending {ending:?} + {feeds} line feeds: {steps} steps for {} bytes",
                            encoding.name(),
                            file.len()
                        );
                        composed += 1;
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 1400, "{checked} texts");
    // A fresh count takes at least a step per byte: the composed ones were counted from memory.
    assert!(composed * 3 > checked, "{composed} of {checked} composed");
}
