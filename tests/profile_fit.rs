//! Budget fitting behaviours (SPEC §1.4, §1.5): validation, the model step and its failure modes,
//! byte-for-byte frontmatter, the prompt, and a 10 MB profile.

mod common;
mod tokens_support;

use common::{block_on, CharCounter, ScriptedModel};
use memcore::host::{Purpose, TokenCounter};
use memcore::profile::fit::*;
use memcore::profile::tokens::Encoding;
use memcore::ErrorCode;

const FRONTMATTER: &str = "---\nuser_id:  user_123\nturn_count: 7\nextra_key: kept as is\n---\n";

fn long_profile(facts: usize) -> String {
    let mut text = format!("{FRONTMATTER}\n# User Memory\n\n## Identity\n- Name: Dana\n\n## Communication Preferences\n- Short answers\n\n## Work Context\n");
    for i in 0..facts {
        text.push_str(&format!(
            "- Fact {i}: maintains dashboard number {i} for revenue\n"
        ));
    }
    text.push_str("\n## Skills & Expertise\n_(empty)_\n\n## Recent Topics\n_(empty)_\n\n## Follow-ups\n_(empty)_\n");
    text
}

const SHORT_BODY: &str = "# User Memory\n\n## Identity\n- Name: Dana\n\n## Communication Preferences\n- Short answers\n\n## Work Context\n- Maintains revenue dashboards\n\n## Skills & Expertise\n_(empty)_\n\n## Recent Topics\n_(empty)_\n\n## Follow-ups\n_(empty)_\n";

fn options(max_tokens: usize) -> FitOptions {
    FitOptions {
        max_tokens,
        use_model: true,
        now: Some("2026-06-17 12:00 UTC".to_string()),
    }
}

#[test]
fn max_tokens_outside_500_to_8000_is_a_config_error() {
    assert_eq!(DEFAULT_MAX_TOKENS, 2000);
    for ok in [500, 2000, 8000] {
        assert_eq!(validate_max_tokens(ok).unwrap(), ok);
    }
    for bad in [0, 499, 8001, usize::MAX] {
        let error = validate_max_tokens(bad).unwrap_err();
        assert_eq!(error.code, ErrorCode::Config);
        assert_eq!(error.details.unwrap()["path"], "maxTokens");
    }
    let text = long_profile(3);
    let error = block_on(fit_profile::<ScriptedModel>(
        &text,
        &options(100),
        &CharCounter,
        None,
    ))
    .unwrap_err();
    assert_eq!(error.code, ErrorCode::Config);
}

#[test]
fn condense_target_is_floor_of_ninety_percent() {
    assert_eq!(condense_target(2000), 1800);
    assert_eq!(condense_target(555), 499);
    assert_eq!(condense_target(15), 13);
    assert_eq!(condense_target(usize::MAX), usize::MAX / 10 * 9 + 4);
}

#[test]
fn good_model_answer_replaces_body_and_keeps_frontmatter() {
    let text = long_profile(40);
    let model = ScriptedModel::answering(&format!("```markdown\n{SHORT_BODY}```"));
    let report = block_on(fit_profile(
        &text,
        &options(600),
        &CharCounter,
        Some(&model),
    ))
    .unwrap();
    assert!(report.model_condensed);
    assert!(!report.truncated);
    assert_eq!(report.model_error, None);
    assert_eq!(report.model_usage.unwrap().output_tokens, 50);
    assert_eq!(report.text, format!("{FRONTMATTER}\n{SHORT_BODY}"));
    assert_eq!(report.tokens_after, report.text.chars().count());
    let requests = model.requests.borrow();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].purpose, Purpose::Condense);
    assert_eq!(requests[0].max_output_tokens, 800);
}

#[test]
fn model_error_is_reported_and_fit_truncates() {
    let text = long_profile(40);
    let model = ScriptedModel::failing();
    let report = block_on(fit_profile(
        &text,
        &options(600),
        &CharCounter,
        Some(&model),
    ))
    .unwrap();
    assert!(!report.model_condensed);
    assert!(report.truncated);
    assert!(report.model_error.unwrap().contains("model unavailable"));
    assert!(report.tokens_after <= 600);
    assert!(report.text.starts_with(FRONTMATTER));
    assert!(report.text.ends_with(TRUNCATION_MARKER));
}

#[test]
fn malformed_model_answer_is_ignored() {
    let text = long_profile(40);
    let model = ScriptedModel::answering("Here is the profile:\n## Identity\n- Dana");
    let report = block_on(fit_profile(
        &text,
        &options(600),
        &CharCounter,
        Some(&model),
    ))
    .unwrap();
    assert!(!report.model_condensed);
    assert!(report.truncated);
    assert!(report.model_error.unwrap().contains("well-formed"));
    assert!(report.tokens_after <= 600);
}

#[test]
fn model_answer_that_is_not_smaller_is_ignored() {
    let text = long_profile(40);
    let bigger = profile_body_of(&long_profile(60));
    let model = ScriptedModel::answering(&bigger);
    let report = block_on(fit_profile(
        &text,
        &options(600),
        &CharCounter,
        Some(&model),
    ))
    .unwrap();
    assert!(!report.model_condensed);
    assert!(report.model_error.unwrap().contains("not smaller"));
    assert!(report.truncated);
}

#[test]
fn model_is_not_called_when_disabled_or_when_condensing_suffices() {
    let text = long_profile(40);
    let model = ScriptedModel::answering(SHORT_BODY);
    let mut opts = options(600);
    opts.use_model = false;
    let report = block_on(fit_profile(&text, &opts, &CharCounter, Some(&model))).unwrap();
    assert!(report.truncated);
    assert!(model.requests.borrow().is_empty());

    let within = long_profile(1);
    let report = block_on(fit_profile(
        &within,
        &options(2000),
        &CharCounter,
        Some(&model),
    ))
    .unwrap();
    assert_eq!(report.text, within);
    assert!(!report.condensed && !report.model_condensed && !report.truncated);
    assert!(model.requests.borrow().is_empty());
}

#[test]
fn condense_prompt_sanitises_the_block_and_states_the_rules() {
    let body = "# User Memory\n\n## Identity\n- likes </profile> tags\n";
    let request = build_condense_prompt(body, 1800, 2000, Some("2026-06-17 12:00 UTC"));
    assert_eq!(request.purpose, Purpose::Condense);
    assert_eq!(request.max_output_tokens, 2200);
    assert!(request.user.contains("< /profile> tags"));
    assert_eq!(request.user.matches("</profile>").count(), 1);
    assert!(request.user.contains("2026-06-17 12:00 UTC"));
    assert!(request.system.contains("1800 tokens"));
    assert!(request.system.contains("## Identity, ## Communication Preferences, ## Work Context, ## Skills & Expertise, ## Recent Topics, ## Follow-ups"));
    assert!(request.system.contains("_(empty)_"));
    assert_eq!(sanitise_block("a</b"), "a< /b");
}

#[test]
fn fit_report_serialises_camel_case() {
    let report = block_on(fit_profile::<ScriptedModel>(
        &long_profile(1),
        &FitOptions::default(),
        &CharCounter,
        None,
    ))
    .unwrap();
    let value = serde_json::to_value(&report).unwrap();
    for key in [
        "text",
        "condensed",
        "modelCondensed",
        "truncated",
        "tokensBefore",
        "tokensAfter",
        "removedDuplicates",
        "removedTopics",
        "modelUsage",
        "modelError",
    ] {
        assert!(value.get(key).is_some(), "missing {key}");
    }
    let options: FitOptions = serde_json::from_str(r#"{"maxTokens": 900}"#).unwrap();
    assert_eq!(options.max_tokens, 900);
    assert!(options.use_model);
}

#[test]
fn ten_megabyte_profile_fits_with_the_exact_tokenizer() {
    let tokenizer = tokens_support::tokenizer(Encoding::O200kBase);
    let mut text =
        format!("{FRONTMATTER}\n# User Memory\n\n## Identity\n- Name: Dana\n\n## Work Context\n");
    let mut i = 0usize;
    while text.len() < 10 * 1024 * 1024 {
        text.push_str(&format!(
            "- Fact {i}: maintains dashboard {} — 東京 🧠\n",
            i % 977
        ));
        text.push_str("- Fact repeated: maintains THE dashboard.\n");
        i += 1;
    }
    text.push_str("\n## Recent Topics\n");
    for day in 1..=28 {
        text.push_str(&format!("- 2026-02-{day:02} 10:00 UTC: topic {day}\n"));
    }
    let report = block_on(fit_profile::<ScriptedModel>(
        &text,
        &FitOptions::default(),
        &tokenizer,
        None,
    ))
    .unwrap();
    assert!(report.condensed && report.truncated);
    // Fitting looks at the first `maxTokens × 128 + 64 KiB` bytes only: the input is not counted,
    // duplicates are merged within that window, and the dated topics at the end of the 10 MB lie
    // beyond it (they are cut, not condensed).
    assert_eq!(report.tokens_before, None);
    assert_eq!(report.removed_topics, 0);
    assert!(
        report.removed_duplicates > 1_000,
        "{}",
        report.removed_duplicates
    );
    assert!(report.tokens_after <= DEFAULT_MAX_TOKENS);
    assert_eq!(
        TokenCounter::count(&tokenizer, &report.text).unwrap(),
        report.tokens_after
    );
    assert!(report.text.starts_with(FRONTMATTER));
    assert!(report.text.ends_with(TRUNCATION_MARKER));

    // One huge line: the in-line cut gallops instead of counting the line again and again.
    let line = "東京🧠 word ".repeat(700_000);
    let cut = enforce_token_cap(&line, 2000, &tokenizer).unwrap();
    assert!(cut.truncated && cut.tokens_after <= 2000);
    assert!(
        cut.tokens_after > 1900,
        "keeps nearly the whole budget: {}",
        cut.tokens_after
    );
}

fn profile_body_of(text: &str) -> String {
    memcore::profile::profile_body(text)
}
