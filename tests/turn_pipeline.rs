//! The turn pipeline (SPEC §1.7): every outcome, gate and consolidation answers, storage faults,
//! the notice, blank turns, frontmatter rules, fitting and the write options.

mod common;

use common::turn_fakes::*;
use common::{block_on, CharCounter, WordCounter};
use memcore::host::{NoTimer, Notice, Purpose, TokenCounter};
use memcore::turn::*;
use memcore::{Error, ErrorCode};

pub const PATH: &str = "user-memory/u1/memory.md";
const FRONTMATTER: &str = "---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-01-01T00:00:00+00:00\nturn_count: 4\nteam: platform\n---\n";

fn body(identity: &str) -> String {
    format!(
        "# User Memory\n\n## Identity\n{identity}\n\n## Communication Preferences\n- Short answers\n\n## Work Context\n_(empty)_\n\n## Skills & Expertise\n_(empty)_\n\n## Recent Topics\n_(empty)_\n\n## Follow-ups\n_(empty)_\n"
    )
}

fn stored() -> String {
    format!("{FRONTMATTER}\n{}", body("- Name: Dana"))
}

fn updated_body() -> String {
    body("- Name: Dana\n- Role: data engineer")
}

type Memory<T = WordCounter> = ContextMemory<FakeHosts<T>>;

fn memory_with<T: TokenCounter>(
    store: VersionedStore,
    model: FnModel,
    counter: T,
    config: ContextMemoryConfig,
) -> Memory<T> {
    ContextMemory::new(
        config,
        FakeHosts {
            store,
            model: Some(model),
            counter,
            notifier: RecordingNotifier::default(),
            host: test_host(StepClock::at("2026-06-17T12:00:00Z", 5), NoTimer),
        },
    )
    .unwrap()
}

fn memory(store: VersionedStore, model: FnModel) -> Memory {
    memory_with(store, model, WordCounter, ContextMemoryConfig::default())
}

fn turn(user_message: &str) -> TurnInput {
    TurnInput {
        user_id: "u1".into(),
        enabled: Some(true),
        user_message: user_message.into(),
        assistant_message: "Noted.".into(),
        conversation_id: None,
        at: None,
        group_id: None,
    }
}

fn run<T: TokenCounter>(memory: &Memory<T>, input: TurnInput) -> TurnReport {
    block_on(memory.after_turn(&input)).unwrap()
}

fn show() -> Notice {
    Notice::Show {
        text: "🧠 Updating context memory…".into(),
    }
}

#[test]
fn gate_noop_answers_skip_the_consolidation_and_the_notice() {
    for answer in ["NOOP", " noop.", "NOOPE", "noop because nothing new"] {
        let m = memory(
            VersionedStore::with(PATH, &stored()),
            FnModel::scripted(answer, &updated_body()),
        );
        let report = run(&m, turn("thanks!"));
        assert_eq!(report.outcome, TurnOutcome::GateNoop, "{answer:?}");
        assert_eq!(report.gate, Some(GateDecision::Noop));
        assert_eq!(
            m.hosts().model.as_ref().unwrap().purposes(),
            vec![Purpose::Gate]
        );
        assert!(m.hosts().notifier.notices.borrow().is_empty());
        assert_eq!(m.hosts().store.write_count(), 0);
        assert_eq!(report.usage.gate.map(|u| u.input_tokens), Some(10));
        assert_eq!(report.attempts, 0);
    }
}

#[test]
fn gate_update_empty_and_junk_answers_run_the_consolidation() {
    for answer in ["UPDATE", "", "   ", "maybe?", "update."] {
        let m = memory(
            VersionedStore::with(PATH, &stored()),
            FnModel::scripted(answer, &updated_body()),
        );
        let report = run(&m, turn("I am a data engineer now"));
        assert_eq!(report.outcome, TurnOutcome::Updated, "{answer:?}");
        assert_eq!(report.gate, Some(GateDecision::Update));
        assert_eq!(report.gate_error, None);
        assert_eq!(
            m.hosts().model.as_ref().unwrap().purposes(),
            vec![Purpose::Gate, Purpose::Consolidate]
        );
        assert!(m
            .hosts()
            .store
            .text(PATH)
            .unwrap()
            .contains("- Role: data engineer"));
    }
}

#[test]
fn gate_fails_open_on_model_error_and_timeout() {
    for message in ["model unavailable", "request timed out after 10000 ms"] {
        let failing = message.to_string();
        let model = FnModel::new(move |request| match request.purpose {
            Purpose::Gate => Err(Error::new(ErrorCode::Host, failing.clone())),
            _ => Ok(updated_body()),
        });
        let m = memory(VersionedStore::with(PATH, &stored()), model);
        let report = run(&m, turn("I am a data engineer now"));
        assert_eq!(report.outcome, TurnOutcome::Updated);
        assert_eq!(report.gate, Some(GateDecision::Update));
        assert_eq!(report.gate_error, Some(format!("E_HOST: {message}")));
        assert_eq!(report.usage.gate, None);
        assert!(m
            .hosts()
            .host
            .logger
            .names()
            .contains(&"memory.gate.fail-open".to_string()));
    }
}

#[test]
fn disabled_gate_goes_straight_to_the_consolidation() {
    let config = ContextMemoryConfig {
        gate_enabled: false,
        ..Default::default()
    };
    let m = memory_with(
        VersionedStore::with(PATH, &stored()),
        FnModel::scripted("NOOP", &updated_body()),
        WordCounter,
        config,
    );
    let report = run(&m, turn("I am a data engineer now"));
    assert_eq!(report.outcome, TurnOutcome::Updated);
    assert_eq!(report.gate, None);
    assert_eq!(
        m.hosts().model.as_ref().unwrap().purposes(),
        vec![Purpose::Consolidate]
    );
}

#[test]
fn consolidation_noop_answers_write_nothing_and_clear_the_notice() {
    for answer in ["NOOP", "NOOP.", "  noop.  \n", "Noop"] {
        let m = memory(
            VersionedStore::with(PATH, &stored()),
            FnModel::scripted("UPDATE", answer),
        );
        let report = run(&m, turn("hello"));
        assert_eq!(report.outcome, TurnOutcome::ModelNoop, "{answer:?}");
        assert_eq!(m.hosts().store.write_count(), 0);
        assert_eq!(
            *m.hosts().notifier.notices.borrow(),
            vec![show(), Notice::Clear]
        );
        assert_eq!(m.hosts().store.text(PATH), Some(stored()));
        assert_eq!(report.turn_count, Some(4));
    }
}

#[test]
fn fenced_body_is_unwrapped_and_stored_with_app_frontmatter() {
    let fenced = format!("```markdown\n{}```", updated_body());
    let m = memory(
        VersionedStore::with(PATH, &stored()),
        FnModel::scripted("UPDATE", &fenced),
    );
    let report = run(&m, turn("I am a data engineer now"));
    assert_eq!(report.outcome, TurnOutcome::Updated);
    let text = m.hosts().store.text(PATH).unwrap();
    assert!(!text.contains("```"));
    assert_eq!(
        text,
        format!(
            "---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-06-17T12:00:00+00:00\nturn_count: 5\nteam: platform\n---\n\n{}",
            updated_body()
        )
    );
    assert_eq!(report.turn_count, Some(5));
}

#[test]
fn model_frontmatter_is_discarded() {
    let answer = format!(
        "---\nuser_id: attacker\nturn_count: 999\nevil: yes\n---\n{}",
        updated_body()
    );
    let m = memory(
        VersionedStore::with(PATH, &stored()),
        FnModel::scripted("UPDATE", &answer),
    );
    assert_eq!(run(&m, turn("role")).outcome, TurnOutcome::Updated);
    let text = m.hosts().store.text(PATH).unwrap();
    assert!(
        text.starts_with("---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-06-17T12:00:")
    );
    assert!(text.contains("turn_count: 5\nteam: platform\n---\n\n# User Memory\n"));
    assert!(!text.contains("attacker") && !text.contains("999") && !text.contains("evil"));
}

#[test]
fn body_without_title_is_accepted_and_stored_with_it() {
    let answer = updated_body().replace("# User Memory\n\n", "");
    let m = memory(
        VersionedStore::with(PATH, &stored()),
        FnModel::scripted("UPDATE", &answer),
    );
    assert_eq!(run(&m, turn("role")).outcome, TurnOutcome::Updated);
    assert!(m
        .hosts()
        .store
        .text(PATH)
        .unwrap()
        .ends_with(&updated_body()));
}

#[test]
fn malformed_bodies_are_invalid_output_and_leave_the_store_unchanged() {
    let good = updated_body();
    let cases = [
        good.replace("## Follow-ups\n_(empty)_\n", ""),
        format!("{good}\n## Hobbies\n- chess\n"),
        good.replace("## Identity", "## Identityx"),
        good.replace(
            "## Work Context\n_(empty)_\n\n## Skills & Expertise",
            "## Skills & Expertise\n_(empty)_\n\n## Work Context",
        ),
        format!("Here is the updated profile:\n{good}"),
        "I could not do that.".to_string(),
    ];
    for answer in cases {
        let m = memory(
            VersionedStore::with(PATH, &stored()),
            FnModel::scripted("UPDATE", &answer),
        );
        let report = run(&m, turn("role"));
        assert_eq!(report.outcome, TurnOutcome::InvalidOutput, "{answer}");
        assert!(report
            .reason
            .unwrap()
            .starts_with("not a well-formed profile body"));
        assert_eq!(m.hosts().store.write_count(), 0);
        assert_eq!(m.hosts().store.text(PATH), Some(stored()));
        assert_eq!(
            *m.hosts().notifier.notices.borrow(),
            vec![show(), Notice::Clear]
        );
    }
}

#[test]
fn identical_body_is_unchanged_without_a_write() {
    for answer in [
        body("- Name: Dana"),
        body("- Name: Dana").replace("\n\n", "\n\n\n"),
        format!("```\n{}```", body("- Name: Dana")),
    ] {
        let m = memory(
            VersionedStore::with(PATH, &stored()),
            FnModel::scripted("UPDATE", &answer),
        );
        let report = run(&m, turn("hi"));
        assert_eq!(report.outcome, TurnOutcome::Unchanged);
        assert_eq!(report.reason.as_deref(), Some("same-body"));
        assert_eq!(m.hosts().store.write_count(), 0);
        assert_eq!(report.turn_count, Some(4));
    }
}

#[test]
fn a_body_over_budget_is_fitted_before_the_write() {
    let mut topics = String::new();
    for i in 0..60 {
        topics.push_str(&format!(
            "- 2026-01-{:02} 10:00 UTC: discussed dashboard number {i} at length\n",
            i % 28 + 1
        ));
    }
    let big = body("- Name: Dana").replace(
        "## Recent Topics\n_(empty)_",
        &format!("## Recent Topics\n{}", topics.trim_end()),
    );
    let config = ContextMemoryConfig {
        max_tokens: 500,
        ..Default::default()
    };
    let m = memory_with(
        VersionedStore::with(PATH, &stored()),
        FnModel::scripted("UPDATE", &big),
        WordCounter,
        config,
    );
    let report = run(&m, turn("lots of dashboards"));
    assert_eq!(report.outcome, TurnOutcome::Updated);
    let text = m.hosts().store.text(PATH).unwrap();
    let tokens = WordCounter.count(&text).unwrap();
    assert!(tokens <= 500, "{tokens}");
    assert_eq!(report.tokens, Some(tokens));
    assert!(text.contains("- Name: Dana"));
    assert!(
        !text.contains("dashboard number 0 "),
        "oldest topic dropped"
    );
    assert!(text.contains("turn_count: 5"));
}

#[test]
fn model_condensing_and_truncation_keep_the_result_within_budget() {
    // Nothing deterministic to drop: the model's condense answer is malformed, so the text is
    // hard-truncated; the condense call's usage is reported. The answer is over the budget but
    // within twice its output cap (700 tokens here), so it is not refused for its size.
    let mut facts = String::new();
    for i in 0..45 {
        facts.push_str(&format!("- Skill {i}: advanced\n"));
    }
    let big = body("- Name: Dana").replace(
        "## Skills & Expertise\n_(empty)_",
        &format!("## Skills & Expertise\n{}", facts.trim_end()),
    );
    let model = FnModel::new(move |request| {
        Ok(match request.purpose {
            Purpose::Gate => "UPDATE".into(),
            Purpose::Consolidate => big.clone(),
            _ => "not a profile".into(),
        })
    });
    let config = ContextMemoryConfig {
        max_tokens: 500,
        ..Default::default()
    };
    let m = memory_with(
        VersionedStore::with(PATH, &stored()),
        model,
        CharCounter,
        config,
    );
    let report = run(&m, turn("skills"));
    assert_eq!(report.outcome, TurnOutcome::Updated);
    let text = m.hosts().store.text(PATH).unwrap();
    assert!(CharCounter.count(&text).unwrap() <= 500);
    assert!(text.ends_with("<!-- truncated to fit memory budget -->"));
    assert!(text.starts_with("---\nuser_id: u1\n"));
    assert_eq!(
        m.hosts().model.as_ref().unwrap().purposes(),
        vec![Purpose::Gate, Purpose::Consolidate, Purpose::Condense]
    );
    assert!(report.usage.condense.is_some());
}

#[test]
fn current_profile_is_hard_truncated_before_the_consolidation() {
    let mut facts = String::new();
    for i in 0..300 {
        facts.push_str(&format!("- Distinct fact number {i}\n"));
    }
    let big = format!("{FRONTMATTER}\n{}", body(&facts));
    let config = ContextMemoryConfig {
        max_tokens: 500,
        ..Default::default()
    };
    let m = memory_with(
        VersionedStore::with(PATH, &big),
        FnModel::scripted("UPDATE", "NOOP"),
        WordCounter,
        config,
    );
    assert_eq!(run(&m, turn("x")).outcome, TurnOutcome::ModelNoop);
    let requests = m.hosts().model.as_ref().unwrap().requests.borrow();
    let consolidate = &requests[1];
    assert!(consolidate
        .user
        .contains("<!-- truncated to fit memory budget -->"));
    assert!(!consolidate.user.contains("Distinct fact number 299"));
    assert!(
        !consolidate.user.contains("turn_count"),
        "frontmatter is not shown"
    );
    assert_eq!(consolidate.max_output_tokens, 700);
}

#[test]
fn storage_read_failure_is_no_memory_without_model_calls() {
    let store = VersionedStore::with(PATH, &stored());
    store.fail.borrow_mut().push("read");
    let m = memory(store, FnModel::scripted("UPDATE", &updated_body()));
    let report = run(&m, turn("role"));
    assert_eq!(report.outcome, TurnOutcome::NoMemory);
    assert_eq!(
        report.reason.as_deref(),
        Some("storage read failed: E_HOST: storage read unavailable")
    );
    assert!(m
        .hosts()
        .model
        .as_ref()
        .unwrap()
        .requests
        .borrow()
        .is_empty());
}

#[test]
fn storage_write_failure_keeps_the_old_profile() {
    let store = VersionedStore::with(PATH, &stored());
    store.fail.borrow_mut().push("write");
    let m = memory(store, FnModel::scripted("UPDATE", &updated_body()));
    let report = run(&m, turn("role"));
    assert_eq!(report.outcome, TurnOutcome::WriteFailed);
    assert_eq!(
        report.reason.as_deref(),
        Some("storage write failed: E_HOST: storage write unavailable")
    );
    assert_eq!(m.hosts().store.text(PATH), Some(stored()));
    assert_eq!(report.turn_count, Some(4));
    assert!(m
        .hosts()
        .host
        .logger
        .names()
        .contains(&"memory.write.failed".to_string()));
    assert_eq!(
        *m.hosts().notifier.notices.borrow(),
        vec![show(), Notice::Clear]
    );
}

#[test]
fn a_new_profile_provisions_the_root_and_starts_at_turn_one() {
    let m = memory(
        VersionedStore::default(),
        FnModel::scripted("UPDATE", &updated_body()),
    );
    let report = run(&m, turn("I am Dana, a data engineer"));
    assert_eq!(report.outcome, TurnOutcome::Updated);
    assert_eq!(report.turn_count, Some(1));
    let state = m.hosts().store.state.borrow();
    assert_eq!(state.roots, vec!["user-memory".to_string()]);
    let (path, text, options) = &state.writes[0];
    assert_eq!(path, PATH);
    assert!(text.contains("turn_count: 1\n"));
    assert_eq!(options.if_version, None);
    assert_eq!(options.content_type, "text/markdown");
    assert!(options.skip_ingestion && options.hide_in_chat);
    // The model saw an empty profile block.
    let requests = m.hosts().model.as_ref().unwrap().requests.borrow();
    assert!(requests[1]
        .user
        .contains("<current_profile>\n\n</current_profile>"));
}

#[test]
fn ensure_root_failure_is_write_failed() {
    let store = VersionedStore::default();
    store.fail.borrow_mut().push("ensureRoot");
    let m = memory(store, FnModel::scripted("UPDATE", &updated_body()));
    let report = run(&m, turn("x"));
    assert_eq!(report.outcome, TurnOutcome::WriteFailed);
    assert_eq!(m.hosts().store.write_count(), 0);
}

#[test]
fn writes_carry_the_profile_options_and_the_read_version() {
    let m = memory(
        VersionedStore::with(PATH, &stored()),
        FnModel::scripted("UPDATE", &updated_body()),
    );
    assert_eq!(run(&m, turn("role")).outcome, TurnOutcome::Updated);
    let state = m.hosts().store.state.borrow();
    let options = &state.writes[0].2;
    assert_eq!(options.if_version.as_deref(), Some("v1"));
    assert_eq!(options.content_type, "text/markdown");
    assert!(options.skip_ingestion);
    assert!(options.hide_in_chat);
}

#[test]
fn hosts_without_versions_write_unconditionally() {
    let store = VersionedStore::with(PATH, &stored());
    store.unversioned.set(true);
    let m = memory(store, FnModel::scripted("UPDATE", &updated_body()));
    assert_eq!(run(&m, turn("role")).outcome, TurnOutcome::Updated);
    assert_eq!(m.hosts().store.state.borrow().writes[0].2.if_version, None);
}

#[test]
fn notice_is_cleared_when_the_model_errors() {
    let model = FnModel::new(|request| match request.purpose {
        Purpose::Gate => Ok("UPDATE".into()),
        _ => Err(Error::new(ErrorCode::Host, "upstream 503")),
    });
    let m = memory(VersionedStore::with(PATH, &stored()), model);
    let report = run(&m, turn("role"));
    assert_eq!(report.outcome, TurnOutcome::ModelFailed);
    assert_eq!(
        report.reason.as_deref(),
        Some("model call failed: E_HOST: upstream 503")
    );
    assert_eq!(
        *m.hosts().notifier.notices.borrow(),
        vec![show(), Notice::Clear]
    );
    assert_eq!(m.hosts().store.write_count(), 0);
}

#[test]
fn a_failing_notifier_neither_breaks_the_turn_nor_skips_the_clear() {
    let m = memory(
        VersionedStore::with(PATH, &stored()),
        FnModel::scripted("UPDATE", &updated_body()),
    );
    m.hosts().notifier.fail.set(true);
    let report = run(&m, turn("role"));
    assert_eq!(report.outcome, TurnOutcome::Updated);
    assert_eq!(
        *m.hosts().notifier.notices.borrow(),
        vec![show(), Notice::Clear]
    );
    let names = m.hosts().host.logger.names();
    assert_eq!(
        names
            .iter()
            .filter(|n| *n == "memory.notice.failed")
            .count(),
        2
    );
}

#[test]
fn notice_text_is_byte_exact() {
    assert_eq!(
        UPDATING_NOTICE.as_bytes(),
        "\u{1f9e0} Updating context memory\u{2026}".as_bytes()
    );
    assert_eq!(
        serde_json::to_value(show()).unwrap(),
        serde_json::json!({ "kind": "show", "text": "🧠 Updating context memory…" })
    );
    assert_eq!(
        serde_json::to_value(Notice::Clear).unwrap(),
        serde_json::json!({ "kind": "clear" })
    );
}

#[test]
fn blank_turn_makes_no_model_call_and_no_write() {
    let m = memory(
        VersionedStore::with(PATH, &stored()),
        FnModel::scripted("UPDATE", &updated_body()),
    );
    let mut input = turn("  \n\t");
    input.assistant_message = " ".into();
    let report = run(&m, input);
    assert_eq!(report.outcome, TurnOutcome::Unchanged);
    assert_eq!(report.reason.as_deref(), Some("blank-turn"));
    assert!(m
        .hosts()
        .model
        .as_ref()
        .unwrap()
        .requests
        .borrow()
        .is_empty());
    assert_eq!(m.hosts().store.write_count(), 0);
    assert_eq!(m.hosts().store.state.borrow().reads, 0);
}

#[test]
fn disabled_memory_reads_and_writes_nothing() {
    let m = memory(
        VersionedStore::with(PATH, &stored()),
        FnModel::scripted("UPDATE", &updated_body()),
    );
    let mut input = turn("role");
    input.enabled = Some(false);
    let report = run(&m, input);
    assert_eq!(report.outcome, TurnOutcome::Disabled);
    assert_eq!(m.hosts().store.state.borrow().reads, 0);
    assert!(m
        .hosts()
        .model
        .as_ref()
        .unwrap()
        .requests
        .borrow()
        .is_empty());
}

#[test]
fn invalid_user_id_is_no_memory() {
    let m = memory(
        VersionedStore::default(),
        FnModel::scripted("UPDATE", &updated_body()),
    );
    for id in ["", "..", "a/b", "x\u{0}"] {
        let mut input = turn("role");
        input.user_id = id.into();
        let report = run(&m, input);
        assert_eq!(report.outcome, TurnOutcome::NoMemory);
        assert!(report.reason.unwrap().starts_with("E_INVALID_USER_ID"));
    }
    assert!(m
        .hosts()
        .model
        .as_ref()
        .unwrap()
        .requests
        .borrow()
        .is_empty());
}

#[test]
fn turn_count_increments_only_on_a_real_change() {
    let m = memory(
        VersionedStore::with(PATH, &stored()),
        FnModel::scripted("UPDATE", &updated_body()),
    );
    assert_eq!(run(&m, turn("role")).turn_count, Some(5));
    // The same answer again is the current body now: no rewrite, no increment.
    let report = run(&m, turn("role again"));
    assert_eq!(report.outcome, TurnOutcome::Unchanged);
    assert_eq!(report.turn_count, Some(5));
    assert_eq!(m.hosts().store.write_count(), 1);
    let text = m.hosts().store.text(PATH).unwrap();
    assert!(text.contains("turn_count: 5\nteam: platform\n"));
}

#[test]
fn unknown_frontmatter_keys_are_carried_over_in_order() {
    let original = format!(
        "---\nuser_id: u1\nzeta: 1\nschema_version: 1\nalpha: [a, b]\nturn_count: nonsense\n---\n\n{}",
        body("- Name: Dana")
    );
    let m = memory(
        VersionedStore::with(PATH, &original),
        FnModel::scripted("UPDATE", &updated_body()),
    );
    let report = run(&m, turn("role"));
    assert_eq!(
        report.turn_count,
        Some(1),
        "unparsable turn_count reads as 0"
    );
    let text = m.hosts().store.text(PATH).unwrap();
    let zeta = text.find("zeta: 1").unwrap();
    let alpha = text.find("alpha:").unwrap();
    assert!(text.find("turn_count: 1").unwrap() < zeta && zeta < alpha);
}

#[test]
fn report_timings_come_from_the_clock_and_the_json_is_camel_case() {
    let m = memory(
        VersionedStore::with(PATH, &stored()),
        FnModel::scripted("UPDATE", &updated_body()),
    );
    let report = run(&m, turn("role"));
    assert!(report.timings.gate_ms >= 5);
    assert!(report.timings.consolidate_ms >= 5);
    assert!(report.timings.write_ms >= 5);
    assert!(report.timings.total_ms > report.timings.gate_ms + report.timings.consolidate_ms);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["outcome"], "updated");
    assert_eq!(json["gate"], "update");
    assert_eq!(json["attempts"], 1);
    assert_eq!(json["turnCount"], 5);
    assert_eq!(json["usage"]["consolidate"]["inputTokens"], 10);
    assert!(json["timings"]["totalMs"].is_u64());
    let outcomes = [
        (TurnOutcome::Disabled, "disabled"),
        (TurnOutcome::NoMemory, "no-memory"),
        (TurnOutcome::GateNoop, "gate-noop"),
        (TurnOutcome::ModelNoop, "model-noop"),
        (TurnOutcome::Unchanged, "unchanged"),
        (TurnOutcome::InvalidOutput, "invalid-output"),
        (TurnOutcome::Updated, "updated"),
        (TurnOutcome::WriteFailed, "write-failed"),
        (TurnOutcome::ModelFailed, "model-failed"),
    ];
    for (outcome, name) in outcomes {
        assert_eq!(serde_json::to_value(outcome).unwrap(), name);
    }
}

#[test]
fn logs_never_carry_profile_content_or_messages() {
    let m = memory(
        VersionedStore::with(PATH, &stored()),
        FnModel::scripted("UPDATE", &updated_body()),
    );
    run(&m, turn("my secret project is Falcon"));
    let events = serde_json::to_string(&*m.hosts().host.logger.events.borrow()).unwrap();
    assert!(!events.contains("Falcon"));
    assert!(!events.contains("Dana"));
    assert!(events.contains("memory.gate") && events.contains("memory.turn"));
}
