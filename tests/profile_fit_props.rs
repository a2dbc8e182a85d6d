//! Property tests: hard truncation and fitting never exceed the budget, whatever the counter, and
//! a cut never splits a character.

mod common;
mod tokens_support;

use common::{block_on, CharCounter, ScriptedModel, WordCounter};
use memcore::error::Result;
use memcore::host::TokenCounter;
use memcore::profile::fit::*;
use memcore::profile::tokens::{Encoding, Tokenizer};
use proptest::prelude::*;

thread_local! {
    static O200K: Tokenizer = tokens_support::tokenizer(Encoding::O200kBase);
}

/// The exact o200k tokenizer.
struct O200k;
impl TokenCounter for O200k {
    fn count(&self, text: &str) -> Result<usize> {
        O200K.with(|tokenizer| TokenCounter::count(tokenizer, text))
    }
}

/// Neither additive nor monotone: exercises the verify-and-back-off paths.
struct Erratic;
impl TokenCounter for Erratic {
    fn count(&self, text: &str) -> Result<usize> {
        Ok(text.len() / 4 + text.len() % 7 + text.matches('\n').count() * 2)
    }
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z .,:!-]{0,40}",
        "- [a-z ]{0,30}[.!]?",
        "[东京データ🧠👩‍👧é\u{200d} ]{0,20}",
        "\\PC{0,12}",
        Just("<!-- truncated to fit memory budget -->".to_string()),
        Just("   ".to_string()),
    ]
}

fn text() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(line(), 0..30),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(lines, crlf, trailing)| {
            let mut text = lines.join(if crlf { "\r\n" } else { "\n" });
            if trailing {
                text.push('\n');
            }
            text
        })
}

fn check_cap(text: &str, max_tokens: usize, counter: &impl TokenCounter) {
    let outcome = enforce_token_cap(text, max_tokens, counter).unwrap();
    let counted = counter.count(&outcome.text).unwrap();
    assert_eq!(counted, outcome.tokens_after);
    assert!(counted <= max_tokens, "{counted} > {max_tokens}");
    if !outcome.truncated {
        assert_eq!(outcome.text, text);
        return;
    }
    match outcome.text.strip_suffix(TRUNCATION_MARKER) {
        Some(kept) => {
            assert!(text.starts_with(kept), "kept text is a prefix of the input");
            assert!(text.is_char_boundary(kept.len()));
            assert_eq!(kept, kept.trim_end());
        }
        None => assert!(TRUNCATION_MARKER.starts_with(&outcome.text)),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn cap_within_budget_chars(text in text(), max in 0usize..200) {
        check_cap(&text, max, &CharCounter);
    }

    #[test]
    fn cap_within_budget_words(text in text(), max in 0usize..60) {
        check_cap(&text, max, &WordCounter);
    }

    #[test]
    fn cap_within_budget_erratic(text in text(), max in 0usize..120) {
        check_cap(&text, max, &Erratic);
    }

    #[test]
    fn cap_within_budget_o200k(text in text(), max in 0usize..120) {
        check_cap(&text, max, &O200k);
    }
}

fn profile() -> impl Strategy<Value = String> {
    let bullet = prop_oneof![
        "- [A-Za-z ]{1,40}[.!;]?",
        Just("- Name: Dana".to_string()),
        Just("- name:  DANA.".to_string()),
        "  - [a-z ]{1,20}",
        (1u32..28, 0u32..24)
            .prop_map(|(d, h)| format!("- 2026-03-{d:02} {h:02}:00 UTC: topic {d}")),
        "[东京🧠 a-z]{1,30}",
    ];
    prop::collection::vec(prop::collection::vec(bullet, 0..25), 6).prop_map(|sections| {
        let headings = [
            "Identity",
            "Communication Preferences",
            "Work Context",
            "Skills & Expertise",
            "Recent Topics",
            "Follow-ups",
        ];
        let mut text = "---\nuser_id: u1\nturn_count: 2\n---\n\n# User Memory\n".to_string();
        for (heading, lines) in headings.iter().zip(sections) {
            text.push_str(&format!("\n## {heading}\n"));
            if lines.is_empty() {
                text.push_str("_(empty)_\n");
            }
            for line in lines {
                text.push_str(&line);
                text.push('\n');
            }
        }
        text
    })
}

fn check_fit(text: &str, max_tokens: usize, counter: &impl TokenCounter, answer: Option<&str>) {
    let options = FitOptions {
        max_tokens,
        use_model: true,
        now: None,
    };
    let model = answer.map(ScriptedModel::answering);
    let report = block_on(fit_profile(text, &options, counter, model.as_ref())).unwrap();
    assert!(report.tokens_after <= max_tokens);
    assert_eq!(counter.count(&report.text).unwrap(), report.tokens_after);
    if report.tokens_before.is_some_and(|n| n <= max_tokens) {
        assert_eq!(report.text, text);
    }
    if report.condensed || report.model_condensed {
        assert!(report
            .text
            .starts_with("---\nuser_id: u1\nturn_count: 2\n---\n"));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn fit_within_budget_chars(text in profile(), max in 500usize..1500, answer in prop::option::of(profile())) {
        check_fit(&text, max, &CharCounter, answer.as_deref());
    }

    #[test]
    fn fit_within_budget_words(text in profile(), max in 500usize..700, answer in prop::option::of(profile())) {
        check_fit(&text, max, &WordCounter, answer.as_deref());
    }

    #[test]
    fn fit_within_budget_o200k(text in profile(), max in 500usize..900, answer in prop::option::of(profile())) {
        check_fit(&text, max, &O200k, answer.as_deref());
    }
}
