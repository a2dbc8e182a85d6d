//! Replays the shared budget-fitting vectors in `tests/vectors/fit/` (a JS suite replays the same
//! files). Each case names its counter: `o200k` (the exact tokenizer), `chars` (one token per
//! Unicode scalar value) or `words` (one token per whitespace-separated word).
//! `MEMCORE_BLESS=1 cargo test --test profile_fit_vectors` rewrites every `expected` from the
//! implementation — review the diff.

mod common;
mod tokens_support;

use common::{block_on, CharCounter, ScriptedModel, WordCounter};
use memcore::error::Result;
use memcore::host::TokenCounter;
use memcore::profile::fit::*;
use memcore::profile::tokens::{Encoding, Tokenizer};
use serde_json::{json, Value};
use std::path::PathBuf;

thread_local! {
    // Tests run on several threads; the tokenizer is not `Sync` (it reuses scratch space).
    static O200K: Tokenizer = tokens_support::tokenizer(Encoding::O200kBase);
}

/// The counter a vector names.
enum Counter {
    O200k,
    Chars,
    Words,
}

impl TokenCounter for Counter {
    fn count(&self, text: &str) -> Result<usize> {
        match self {
            Counter::O200k => O200K.with(|tokenizer| TokenCounter::count(tokenizer, text)),
            Counter::Chars => CharCounter.count(text),
            Counter::Words => WordCounter.count(text),
        }
    }
}

fn counter(case: &Value) -> Counter {
    match case["counter"].as_str().unwrap() {
        "o200k" => Counter::O200k,
        "chars" => Counter::Chars,
        "words" => Counter::Words,
        other => panic!("unknown counter {other}"),
    }
}

fn replay(name: &str, compute: impl Fn(&str, usize, &Counter) -> Value) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/vectors/fit")
        .join(name);
    let mut cases: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let bless = std::env::var("MEMCORE_BLESS").is_ok_and(|v| v == "1");
    for case in &mut cases {
        let input = case["input"].as_str().unwrap().to_string();
        let max_tokens = case["maxTokens"].as_u64().unwrap() as usize;
        let counter = counter(case);
        let actual = compute(&input, max_tokens, &counter);
        // Whatever the case expects, the invariant holds.
        let tokens_after = actual["tokensAfter"].as_u64().unwrap() as usize;
        let text = actual["text"].as_str().unwrap();
        assert_eq!(counter.count(text).unwrap(), tokens_after);
        let label = case["name"].as_str().unwrap_or("?").to_string();
        if bless {
            case["expected"] = actual;
        } else {
            assert_eq!(case["expected"], actual, "{name}: case `{label}`");
        }
    }
    if bless {
        std::fs::write(&path, serde_json::to_string_pretty(&cases).unwrap() + "\n").unwrap();
    }
}

#[test]
fn truncate_vectors() {
    replay("truncate.json", |input, max_tokens, counter| {
        let outcome = enforce_token_cap(input, max_tokens, counter).unwrap();
        assert!(outcome.tokens_after <= max_tokens);
        serde_json::to_value(outcome).unwrap()
    });
}

#[test]
fn condense_vectors() {
    replay("condense.json", |input, max_tokens, counter| {
        let outcome = condense_profile(input, max_tokens, counter).unwrap();
        serde_json::to_value(outcome).unwrap()
    });
}

#[test]
fn fit_vectors_without_model() {
    replay("fit.json", |input, max_tokens, counter| {
        let options = FitOptions {
            max_tokens,
            use_model: false,
            now: None,
        };
        let report =
            block_on(fit_profile::<ScriptedModel>(input, &options, counter, None)).unwrap();
        assert!(report.tokens_after <= max_tokens);
        let mut value = serde_json::to_value(&report).unwrap();
        // Shape check for the JS side: camelCase, model fields present and null.
        assert_eq!(value["modelUsage"], json!(null));
        assert_eq!(value["modelError"], json!(null));
        value.as_object_mut().unwrap().remove("modelUsage");
        value.as_object_mut().unwrap().remove("modelError");
        value
    });
}
