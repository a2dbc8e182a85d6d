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

/// The first `n` texts of the corpus of at least 600 bytes (long enough to be remembered).
fn long_corpus_texts(n: usize) -> Vec<String> {
    let corpus = corpus();
    let cases = corpus["cases"].as_array().expect("cases");
    cases
        .iter()
        .filter_map(|c| c["text"].as_str())
        .filter(|t| t.len() >= 600)
        .take(n)
        .map(str::to_string)
        .collect()
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
    let long: Vec<String> = long_corpus_texts(6)
        .into_iter()
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
            // One tokenizer per text: each split's suffix is new and counted just before, so
            // every count of `text` goes through the suffix it was just given.
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

/// Fragments an edit puts in: every kind of character a piece can end or start on, line feeds
/// alone and in runs with spaces, a line starting with `/` (punctuation's trailing run takes a
/// line feed and slashes), contractions, carriage returns and whole new lines.
const EDITS: [&str; 24] = [
    "",
    "x",
    "\n",
    "\n\n",
    "\n   ",
    "   \n",
    " \n- ",
    "'s",
    "'ll",
    "ABC",
    "ǅx",
    "漢字",
    "🙂",
    "/",
    "\n/x",
    "123",
    "1234",
    ".\n",
    "\r\n",
    "\t\t",
    "- Asked about the weekend plans (17)\n",
    "don't",
    "Ünïcödé",
    "  ",
];

/// A text that differs from one counted before by an edit somewhere (a consolidation's answer is
/// the profile it was shown with a line or two changed) is counted between the two ends it shares
/// with it — exactly, for edits of every fragment at every eleventh position, with limits on both
/// sides of the total. Each edit is counted after the text before it, so edits also build on
/// counts that were themselves made around another text.
#[test]
fn a_text_sharing_its_ends_with_a_counted_text_counts_exactly() {
    let bases: Vec<String> = long_corpus_texts(4)
        .into_iter()
        .chain([
            format!(
                "---\nuser_id: u1\nturn_count: 3\n---\n\n{}",
                "# User Memory\n\n## Identity\n- Ana, Lisbon 🙂\n- Says don't\n\n/usr/bin\n  indented\n".repeat(12)
            ),
            "line one\n\n\n   spaced   \nUPPER'S\n漢字 text\n123456\n- item\r\n".repeat(14),
        ])
        .collect();
    let mut checked = 0;
    for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
        for base in &bases {
            let tokenizer = tokens_support::tokenizer(encoding);
            assert_eq!(tokenizer.count(base), tokenizer.encode(base).len());
            let mut text = base.clone();
            for (n, at) in (0..text.len()).step_by(11).enumerate() {
                let at = (at..text.len())
                    .find(|i| text.is_char_boundary(*i))
                    .unwrap_or(0);
                let cut = (at + n % 5..=text.len())
                    .find(|i| text.is_char_boundary(*i))
                    .unwrap_or(text.len());
                let edited = format!("{}{}{}", &text[..at], EDITS[n % EDITS.len()], &text[cut..]);
                let want = tokenizer.encode(&edited).len();
                let got = match n % 3 {
                    0 => tokenizer.count(&edited),
                    1 => tokenizer.count_up_to(&edited, want).unwrap_or(usize::MAX),
                    _ => {
                        assert_eq!(tokenizer.count_up_to(&edited, want - 1), None);
                        tokenizer.count(&edited)
                    }
                };
                assert_eq!(
                    got,
                    want,
                    "{}: {:?} at {at}..{cut}",
                    encoding.name(),
                    EDITS[n % EDITS.len()]
                );
                // Every other edit builds on the last one; the rest start again from the base.
                text = if n % 2 == 0 { edited } else { base.clone() };
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked} edits");
}

/// A line changed in the middle of a profile is counted between the ends it shares with the
/// profile counted before: a fraction of a fresh count's work (the counting is not a fresh one in
/// disguise), and the same count.
#[test]
fn a_changed_line_costs_a_fraction_of_a_fresh_count() {
    let lines: Vec<String> = (0..120)
        .map(|i| format!("- Fact number {i} about the user's week, plans and work\n"))
        .collect();
    let profile = format!(
        "---\nuser_id: u1\n---\n\n# User Memory\n\n## Identity\n{}",
        lines.concat()
    );
    let changed = profile.replace(
        "- Fact number 60 about",
        "- Fact number 60, rewritten, about",
    );
    for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
        let (steps, fresh_steps) = steps_around(encoding, &profile, &changed);
        assert!(
            steps * 20 < fresh_steps,
            "{}: {steps} steps around, {fresh_steps} fresh",
            encoding.name()
        );
    }
}

/// The work steps of counting `changed` right after `counted`, and of counting it afresh; the
/// count is checked against `encode`.
fn steps_around(encoding: Encoding, counted: &str, changed: &str) -> (u64, u64) {
    let fresh = tokens_support::tokenizer(encoding);
    let before = fresh.work_steps();
    assert_eq!(fresh.count(changed), fresh.encode(changed).len());
    let fresh_steps = fresh.work_steps() - before;
    let tokenizer = tokens_support::tokenizer(encoding);
    tokenizer.count(counted);
    let before = tokenizer.work_steps();
    assert_eq!(tokenizer.count(changed), tokenizer.encode(changed).len());
    (tokenizer.work_steps() - before, fresh_steps)
}

/// A consolidation's answer is the body of the file counted at load — after its frontmatter,
/// without its final line feed — with a line changed. It is counted around the file: exactly, for
/// a change at every 37th byte and with zero to two final line feeds, and for a change in the
/// middle at a fraction of a fresh count's work.
#[test]
fn a_body_changed_from_its_counted_file_counts_exactly() {
    let body: String = (0..80)
        .map(|i| format!("- Fact {i}: the user's plans, don't forget 🙂 ÀBC\n"))
        .collect();
    let file =
        format!("---\nuser_id: u1\nturn_count: 3\n---\n\n# User Memory\n\n## Identity\n{body}");
    for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
        for ending in ["", "\n", "\n\n"] {
            let tokenizer = tokens_support::tokenizer(encoding);
            let answer = format!("# User Memory\n\n## Identity\n{}{ending}", body.trim_end());
            for (n, at) in (0..answer.len()).step_by(37).enumerate() {
                tokenizer.count(&file);
                let at = (at..answer.len())
                    .find(|i| answer.is_char_boundary(*i))
                    .unwrap_or(0);
                let edited = format!(
                    "{}{}{}",
                    &answer[..at],
                    EDITS[n % EDITS.len()],
                    &answer[at..]
                );
                assert_eq!(
                    tokenizer.count(&edited),
                    tokenizer.encode(&edited).len(),
                    "{}: {:?} at {at}",
                    encoding.name(),
                    EDITS[n % EDITS.len()]
                );
            }
        }
        let changed = format!("# User Memory\n\n## Identity\n{}", body.trim_end())
            .replace("- Fact 40:", "- Fact 40, rewritten:");
        let (steps, fresh_steps) = steps_around(encoding, &file, &changed);
        assert!(
            steps * 10 < fresh_steps,
            "{}: {steps} steps around the file, {fresh_steps} fresh",
            encoding.name()
        );
    }
}

mod around {
    use super::tokens_support;
    use memcore::profile::tokens::Encoding;
    use memcore::profile::tokens::Tokenizer;
    use proptest::prelude::*;

    thread_local! {
        // One pair per test thread: each case's texts also meet the ones remembered before.
        static TOKENIZERS: [Tokenizer; 2] =
            [tokens_support::tokenizer(Encoding::O200kBase), tokens_support::tokenizer(Encoding::Cl100kBase)];
    }

    /// Texts of the characters the pre-tokenizers' runs turn on, so that pieces meet line feeds
    /// in every way.
    fn text() -> impl Strategy<Value = String> {
        let chars = prop::sample::select(vec![
            "a", "A", "s", " ", "\n", "\n", "'", "1", ".", "/", "\r", "é", "漢", "\t", "-", "ǅ",
            "🙂", "Bc", "\n- ",
        ]);
        proptest::collection::vec(chars, 300..700).prop_map(|parts| parts.concat())
    }

    /// Both tokenizers count `first`, then `then`, each equal to `encode`.
    fn counted_then(first: &str, then: &str) -> Result<(), TestCaseError> {
        TOKENIZERS.with(|tokenizers| {
            for tokenizer in tokenizers {
                prop_assert_eq!(tokenizer.count(first), tokenizer.encode(first).len());
                prop_assert_eq!(tokenizer.count(then), tokenizer.encode(then).len());
            }
            Ok(())
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
        /// Whatever the text and the edit, a count around a counted text equals `encode`.
        #[test]
        fn counts_around_equal_encode(base in text(), at in 0usize..4000, len in 0usize..40, insert in text()) {
            prop_assume!(base.len() >= 512);
            let insert: String = insert.chars().take(at % 7).collect();
            let at = (at % base.len()..=base.len()).find(|i| base.is_char_boundary(*i)).unwrap_or(base.len());
            let cut = ((at + len).min(base.len())..=base.len()).find(|i| base.is_char_boundary(*i)).unwrap_or(base.len());
            let edited = format!("{}{insert}{}", &base[..at], &base[cut..]);
            counted_then(&base, &edited)?;
        }

        /// The same for an edited text counted after a file that holds it after a header and
        /// before line feeds (the body of a profile file).
        #[test]
        fn counts_around_a_file_equal_encode(base in text(), header in text(), feeds in 0usize..3, at in 0usize..4000, insert in text()) {
            prop_assume!(base.len() >= 512);
            let header: String = header.chars().take(at % 40).collect();
            let file = format!("{header}\n{base}{}", "\n".repeat(feeds));
            let insert: String = insert.chars().take(at % 5).collect();
            let at = (at % base.len()..=base.len()).find(|i| base.is_char_boundary(*i)).unwrap_or(base.len());
            let edited = format!("{}{insert}{}", &base[..at], &base[at..]);
            counted_then(&file, &edited)?;
        }
    }
}
