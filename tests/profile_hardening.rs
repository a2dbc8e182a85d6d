//! Hostile profiles (issue 8): lone `\r` line ends, frontmatter that is not valid YAML as a whole
//! (duplicate keys, integers beyond 64 bits) read key by key, `turn_count` beyond 2^53 − 1, a
//! frontmatter block pasted into an edit, user ids every storage can hold, and fitting whose cost
//! is bounded by the budget with the built-in tokenizer.

mod tokens_support;

use chrono::{TimeZone, Utc};
use memcore::profile::fit::{
    condense_profile, enforce_token_cap, fit_profile, FitOptions, TRUNCATION_MARKER,
};
use memcore::profile::tokens::{Encoding, Tokenizer};
use memcore::profile::*;
use memcore::ErrorCode;
use proptest::prelude::*;

fn tokenizer() -> &'static Tokenizer {
    thread_local! {
        static TOKENIZER: &'static Tokenizer =
            Box::leak(Box::new(tokens_support::tokenizer(Encoding::O200kBase)));
    }
    TOKENIZER.with(|t| *t)
}

fn codes(parsed: &ParsedProfile) -> Vec<&'static str> {
    parsed.diagnostics.iter().map(|d| d.code.as_str()).collect()
}

#[test]
fn a_lone_cr_ends_a_line_everywhere() {
    let cr = "---\ruser_id: u1\rturn_count: 3\r---\r## Identity\r- a\r## Work Context\r- w\r";
    let lf = cr.replace('\r', "\n");
    let parsed = parse_profile(cr);
    assert_eq!(parsed.profile, parse_profile(&lf).profile);
    assert_eq!(parsed.profile.frontmatter.turn_count, 3);
    assert_eq!(parsed.profile.sections[0].lines, vec!["- a"]);
    assert_eq!(parsed.profile.sections[2].lines, vec!["- w"]);
    let rendered = render_profile(&parsed.profile);
    assert!(!rendered.contains('\r'), "{rendered:?}");
    assert!(!profile_body(cr).contains('\r'));
    assert_eq!(profile_body(cr), profile_body(&lf));
    assert!(is_well_formed_body(
        "# User Memory\r\r## Identity\r\r## Communication Preferences\r\r## Work Context\r\r## Skills & Expertise\r\r## Recent Topics\r\r## Follow-ups\r"
    ));
    // Mixed line ends: `\r\n`, `\n` and `\r` are one line end each.
    let mixed = "## Identity\r\n- a\n- b\r- c\r\n";
    assert_eq!(
        parse_profile(mixed).profile.sections[0].lines,
        vec!["- a", "- b", "- c"]
    );
    let edit = apply_user_edit(
        None,
        "# User Memory\r## Identity\r- z\r",
        &EditOptions {
            user_id: "u1".into(),
            now: Utc.with_ymd_and_hms(2026, 6, 17, 12, 0, 0).unwrap(),
        },
    )
    .unwrap();
    assert!(!edit.text.contains('\r'));
    assert!(edit.text.ends_with("# User Memory\n## Identity\n- z\n"));
}

#[test]
fn the_hard_cut_keeps_whole_lines_of_a_cr_only_file() {
    let line = "- a bullet line with a few words in it";
    let text = format!("## Identity{}", format!("\r{line}").repeat(400));
    let cut = enforce_token_cap(&text, 500, tokenizer()).unwrap();
    assert!(cut.truncated && cut.tokens_after <= 500);
    let kept = cut.text.strip_suffix(TRUNCATION_MARKER).unwrap();
    assert!(
        kept.ends_with(line),
        "whole lines are kept: {:?}",
        &kept[kept.len() - 60..]
    );
}

#[test]
fn a_duplicate_key_keeps_every_other_field_and_the_first_value() {
    let text = "---\nuser_id: u1\nturn_count: 7\nteam: platform\nteam: other\nlast_updated: 2026-01-01T00:00:00+00:00\n---\n## Identity\n- a\n";
    let parsed = parse_profile(text);
    let fm = &parsed.profile.frontmatter;
    assert_eq!(fm.user_id.as_deref(), Some("u1"));
    assert_eq!(fm.turn_count, 7);
    assert_eq!(
        fm.last_updated.as_deref(),
        Some("2026-01-01T00:00:00+00:00")
    );
    assert_eq!(fm.extra.len(), 1);
    assert_eq!(fm.extra[0].key, "team");
    assert_eq!(fm.extra[0].value, "platform");
    let duplicate = parsed
        .diagnostics
        .iter()
        .find(|d| d.code == DiagnosticCode::DuplicateFrontmatterKey)
        .unwrap();
    assert_eq!(duplicate.line, 5);
    assert!(duplicate.message.contains("`team`"));
    // The next rewrite keeps them.
    let rendered = render_profile(&parsed.profile);
    assert!(rendered.starts_with("---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-01-01T00:00:00+00:00\nturn_count: 7\nteam: platform\n---\n"), "{rendered}");
}

#[test]
fn an_integer_beyond_sixty_four_bits_costs_only_its_own_key() {
    let text = "---\nuser_id: u1\nturn_count: 7\nbig: 99999999999999999999\nlist:\n- a\n- b\n---\n## Identity\n";
    let parsed = parse_profile(text);
    let fm = &parsed.profile.frontmatter;
    assert_eq!(fm.user_id.as_deref(), Some("u1"));
    assert_eq!(fm.turn_count, 7);
    let keys: Vec<&str> = fm.extra.iter().map(|f| f.key.as_str()).collect();
    assert_eq!(keys, vec!["big", "list"]);
    assert_eq!(fm.extra[0].value, "99999999999999999999");
    assert_eq!(fm.extra[1].value, "- a\n- b");
    let broken = parsed
        .diagnostics
        .iter()
        .find(|d| d.code == DiagnosticCode::InvalidYaml)
        .unwrap();
    assert_eq!(broken.line, 4);
    assert!(broken.message.contains("`big`") && broken.message.contains("kept as text"));
    let rendered = render_profile(&parsed.profile);
    assert_eq!(render_profile(&parse_profile(&rendered).profile), rendered);
    assert!(
        rendered.contains("big: '99999999999999999999'"),
        "{rendered}"
    );
}

#[test]
fn a_turn_count_beyond_two_to_the_fifty_three_is_a_diagnostic_and_saturates() {
    for (written, diagnostic) in [
        ("9007199254740991", None),
        ("9007199254740992", Some("turn-count-out-of-range")),
        ("18446744073709551615", Some("turn-count-out-of-range")),
        ("18446744073709551616", Some("turn-count-out-of-range")),
        (
            "'123456789012345678901234567890'",
            Some("turn-count-out-of-range"),
        ),
        ("-1", Some("invalid-turn-count")),
    ] {
        let text = format!(
            "---\nuser_id: u1\nschema_version: 1\nturn_count: {written}\n---\n## Identity\n"
        );
        let parsed = parse_profile(&text);
        let expected = if diagnostic == Some("invalid-turn-count") {
            0
        } else {
            MAX_TURN_COUNT
        };
        assert_eq!(parsed.profile.frontmatter.turn_count, expected, "{written}");
        assert_eq!(
            codes(&parsed)
                .into_iter()
                .find(|c| c.contains("turn-count")),
            diagnostic,
            "{written}"
        );
        let view = memory_view(Some(&text));
        assert_eq!(view.turn_count, Some(expected));
    }
    let mut profile = parse_profile("## Identity\n").profile;
    profile.frontmatter.turn_count = u64::MAX;
    let rendered = render_profile(&profile);
    assert!(rendered.contains("turn_count: 9007199254740991\n"));
    assert_eq!(render_profile(&parse_profile(&rendered).profile), rendered);
}

use memcore::profile::format::MAX_TURN_COUNT;

#[test]
fn a_frontmatter_block_pasted_into_an_edit_is_dropped_with_a_diagnostic() {
    let stored = "---\nuser_id: u1\nschema_version: 1\nturn_count: 3\ncustom: kept\n---\n\n# User Memory\n\n## Identity\n- old\n";
    let options = EditOptions {
        user_id: "u1".into(),
        now: Utc.with_ymd_and_hms(2026, 6, 17, 12, 0, 0).unwrap(),
    };
    let pasted = "---\nuser_id: evil\nturn_count: 99\n---\n\n# User Memory\n\n## Identity\n- new\n";
    let edit = apply_user_edit(Some(stored), pasted, &options).unwrap();
    assert!(edit.text.starts_with(
        "---\nuser_id: u1\nschema_version: 1\nturn_count: 3\ncustom: kept\n---\n\n# User Memory\n"
    ));
    assert_eq!(edit.text.matches("---\n").count(), 2, "{}", edit.text);
    assert!(edit.text.contains("- new"));
    let found = edit
        .diagnostics
        .iter()
        .find(|d| d.code == DiagnosticCode::FrontmatterInBody)
        .unwrap();
    assert_eq!(found.line, 1);
    // Body diagnostics keep the line numbers of what was submitted.
    let renamed =
        apply_user_edit(Some(stored), &format!("{pasted}## Hobbies\n"), &options).unwrap();
    let unknown = renamed
        .diagnostics
        .iter()
        .find(|d| d.code == DiagnosticCode::UnknownSection)
        .unwrap();
    assert_eq!(unknown.line, 10);
    // A rule line followed by text is the user's text, kept.
    let rule = apply_user_edit(
        Some(stored),
        "---\nnotes before the title\n# User Memory\n",
        &options,
    )
    .unwrap();
    assert!(rule.text.contains("notes before the title"));
    assert!(rule
        .diagnostics
        .iter()
        .all(|d| d.code != DiagnosticCode::FrontmatterInBody));
}

#[test]
fn user_ids_are_ones_every_bundled_storage_can_hold() {
    for bad in [
        " ", "\t", " u1", "u1 ", "u1\u{a0}", "CON", "nul.txt", "Com1", "LPT9.log",
    ] {
        assert_eq!(
            validate_user_id(bad).unwrap_err().code,
            ErrorCode::InvalidUserId,
            "{bad:?}"
        );
    }
    assert!(validate_user_id(&"a".repeat(255)).is_ok());
    assert!(validate_user_id(&"a".repeat(256)).is_err());
    for good in [
        "console",
        "com10",
        "auth0|5f7c8ec7c33c6c004bbafe82",
        "a b",
        "système:scheduler",
    ] {
        assert!(validate_user_id(good).is_ok(), "{good:?}");
    }
    // Root folders: one rule for memoryPath and the ContextMemory configuration.
    for bad in ["/abs", "a\\b", "a/../b", "./x", ""] {
        assert_eq!(
            memory_path("u1", Some(bad)).unwrap_err().code,
            ErrorCode::Config
        );
        let config = memcore::turn::ContextMemoryConfig {
            root_folder: bad.into(),
            ..Default::default()
        };
        assert_eq!(
            config.validate().unwrap_err().details.unwrap()["path"],
            "rootFolder"
        );
    }
}

#[test]
fn a_long_run_of_one_character_is_cut_near_the_budget_without_counting_the_file() {
    let text = "x".repeat(4 << 20);
    let cut = enforce_token_cap(&text, 2000, tokenizer()).unwrap();
    assert!(cut.truncated);
    assert_eq!(cut.tokens_before, None);
    assert!(cut.tokens_after <= 2000);
    assert!(
        cut.tokens_after > 1990,
        "keeps nearly the whole budget: {}",
        cut.tokens_after
    );
    assert_eq!(tokenizer().count(&cut.text), cut.tokens_after);
    let report = block_on(fit_profile::<NoModel>(
        &text,
        &FitOptions::default(),
        tokenizer(),
        None,
    ))
    .unwrap();
    assert_eq!(report.text, cut.text);
    let condensed = condense_profile(&text, 2000, tokenizer()).unwrap();
    assert!(!condensed.changed);
    assert_eq!(condensed.tokens_before, None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn counting_up_to_a_limit_agrees_with_counting(
        parts in proptest::collection::vec(
            prop_oneof![
                "[ -~]{0,40}",
                "[xX ]{0,300}",
                "(ab){0,200}",
                "[\u{4e00}-\u{4e20}]{0,30}",
                "[ \n]{0,200}",
            ],
            0..6,
        ),
        limit in 0usize..400,
    ) {
        let text = parts.concat();
        let count = tokenizer().count(&text);
        let expected = (count <= limit).then_some(count);
        prop_assert_eq!(tokenizer().count_up_to(&text, limit), expected);
    }
}

struct NoModel;
impl memcore::host::LanguageModel for NoModel {
    async fn complete(
        &self,
        _request: &memcore::host::CompletionRequest,
    ) -> memcore::error::Result<memcore::host::Completion> {
        unreachable!("no model")
    }
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    use std::sync::Arc;
    use std::task::{Context, Poll, Wake, Waker};
    struct Noop;
    impl Wake for Noop {
        fn wake(self: Arc<Self>) {}
    }
    let waker = Waker::from(Arc::new(Noop));
    let mut future = std::pin::pin!(future);
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut Context::from_waker(&waker)) {
            return out;
        }
    }
}
