//! Dream beyond the shared vectors: what is logged at which level, metrics in the Prometheus
//! text format, misuse as errors, the answer reader, the cost estimate, transient failures,
//! deadlines and schedule validation.

mod common;

use common::dream_fakes::DreamSetup;
use common::dream_fakes::{Faulty, ListIds, ScriptModel};
use common::turn_fakes::{ExpiredTimer, RecordingLogger};
use common::*;
use memcore::dream::answer::{cut, parse_dream_answer, AnswerItem};
use memcore::dream::cost::{charged_tokens, cost_usd, is_transient};
use memcore::dream::{dream, validate_dream_schedule, DreamInput, DreamMetrics, Price, SkipReason};
use memcore::entries::config::Guardrails;
use memcore::entries::Entry;
use memcore::host::{Completion, CompletionRequest, LogLevel, NoTimer, Purpose, Timer, Usage};
use memcore::{Error, ErrorCode};
use serde_json::{json, Value};

const NOW: &str = "2026-06-17T12:00:00Z";

fn entry(id: &str, key: &str, value: Value, agent: &str) -> Entry {
    entry_from(&json!({
        "id": id, "userId": "user-1", "key": key, "value": value, "visibility": "self",
        "sourceAgentId": agent, "createdAt": "2026-06-01T00:00:00Z", "updatedAt": "2026-06-01T00:00:00Z",
    }))
}

fn input(config: Value) -> DreamInput {
    serde_json::from_value(
        json!({ "userId": "user-1", "agentId": "agent-1", "now": NOW, "config": config }),
    )
    .unwrap()
}

type Hosts<T> = DreamSetup<Faulty<MemStore>, ScriptModel, TestClock, ListIds, T>;

fn hosts_with<T: Timer>(
    entries: Vec<Entry>,
    answers: Vec<memcore::error::Result<Completion>>,
    timer: T,
) -> Hosts<T> {
    DreamSetup {
        store: Faulty::new(MemStore::with(entries)),
        model: Some(ScriptModel::new(answers)),
        host: memcore::host::Parts {
            clock: TestClock::at(NOW),
            ids: ListIds::default(),
            timer,
            logger: RecordingLogger::default(),
            embedder: memcore::host::NoEmbedder,
        },
    }
}

fn text(answer: &str) -> memcore::error::Result<Completion> {
    Ok(Completion {
        text: answer.to_string(),
        usage: None,
    })
}

#[test]
fn contradictions_log_key_and_agents_at_info_and_values_only_at_debug() {
    let hosts = hosts_with(
        vec![
            entry("e1", "language", json!("English"), "agent-1"),
            entry("e2", "language", json!("German"), "agent-2"),
        ],
        vec![],
        NoTimer,
    );
    let report = block_on(dream(
        &hosts.hosts(),
        &input(json!({"dream": {"enabled": true, "detectContradictions": true}})),
        None,
    ))
    .unwrap();
    assert_eq!(report.contradictions.len(), 1);
    let events = hosts.logger().events.borrow();
    for event in events.iter() {
        let fields = serde_json::to_string(&event.fields).unwrap();
        if event.level != LogLevel::Debug {
            assert!(
                !fields.contains("English") && !fields.contains("German"),
                "{event:?}"
            );
        }
    }
    let info = events
        .iter()
        .find(|e| e.event == "dream.contradiction")
        .unwrap();
    assert_eq!(info.level, LogLevel::Info);
    assert_eq!(info.fields["key"], "language");
    assert_eq!(info.fields["agents"], json!(["agent-1", "agent-2"]));
    let debug = events
        .iter()
        .find(|e| e.event == "dream.contradiction.values")
        .unwrap();
    assert_eq!(debug.level, LogLevel::Debug);
    assert!(serde_json::to_string(&debug.fields)
        .unwrap()
        .contains("German"));
    assert!(events
        .iter()
        .all(|e| e.user_id.as_deref() == Some("user-1")));
}

#[test]
fn no_value_reaches_an_info_warn_or_error_event_of_a_consolidation() {
    let entries: Vec<Entry> = (0..6)
        .map(|i| {
            entry(
                &format!("e{i}"),
                &format!("k{i}"),
                json!(format!("secret{i}")),
                "agent-1",
            )
        })
        .collect();
    let hosts = hosts_with(
        entries,
        vec![text(r#"[{"key":"s","value":"secret summary"}]"#)],
        NoTimer,
    );
    let config = json!({"dream": {"enabled": true, "summarizeInteractions": true}});
    let report = block_on(dream(&hosts.hosts(), &input(config), None)).unwrap();
    assert_eq!(report.summarized, 5);
    for event in hosts.logger().events.borrow().iter() {
        let fields = serde_json::to_string(&event.fields).unwrap();
        assert!(!fields.contains("secret"), "{event:?}");
    }
    let names = hosts.logger().names();
    assert!(
        names.contains(&"dream.group.writes".to_string())
            && names.contains(&"dream.completed".to_string()),
        "{names:?}"
    );
}

#[test]
fn metrics_accumulate_across_runs_and_print_prometheus_text() {
    let metrics = DreamMetrics::new();
    let stale = entry_from(
        &json!({"id": "old", "userId": "user-1", "key": "k", "value": "v", "sourceAgentId": "agent-1", "updatedAt": "2026-01-01T00:00:00Z"}),
    );
    let config = json!({"dream": {"enabled": true, "pruneStaleAfterDays": 30}});
    let hosts = hosts_with(vec![stale], vec![], NoTimer);
    block_on(dream(
        &hosts.hosts(),
        &input(config.clone()),
        Some(&metrics),
    ))
    .unwrap();
    block_on(dream(&hosts.hosts(), &input(config), Some(&metrics))).unwrap();
    block_on(dream(&hosts.hosts(), &input(json!({})), Some(&metrics))).unwrap(); // disabled: refused
    let snapshot = metrics.snapshot();
    assert_eq!(
        (
            snapshot.users_processed,
            snapshot.entries_pruned,
            snapshot.cycles_failed,
            snapshot.duration_count
        ),
        (2, 1, 1, 2)
    );
    let text = metrics.prometheus();
    for name in [
        "users_processed",
        "entries_pruned",
        "contradictions_found",
        "entries_summarized",
        "cycles_failed",
        "summarization_failed",
    ] {
        assert!(
            text.contains(&format!("# HELP memcore_dream_{name}_total ")),
            "{text}"
        );
        assert!(
            text.contains(&format!("# TYPE memcore_dream_{name}_total counter\n")),
            "{text}"
        );
    }
    assert!(text.contains("memcore_dream_entries_pruned_total 1\n"));
    assert!(text.contains("memcore_dream_users_processed_total 2\n"));
    assert!(
        text.contains(
            "# TYPE memcore_dream_duration_seconds summary\nmemcore_dream_duration_seconds_count 2\n"
        ),
        "{text}"
    );
    assert!(text.ends_with('\n'));
}

#[test]
fn metric_names_follow_the_prefix_and_a_bad_prefix_is_an_argument_error() {
    let eddi = DreamMetrics::with_prefix("eddi_").unwrap();
    let hosts = hosts_with(vec![], vec![], NoTimer);
    let config = json!({"dream": {"enabled": true, "pruneStaleAfterDays": 30}});
    block_on(dream(&hosts.hosts(), &input(config), Some(&eddi))).unwrap();
    let text = eddi.prometheus();
    assert!(
        text.contains("\neddi_dream_users_processed_total 1\n"),
        "{text}"
    );
    assert!(!text.contains("memcore_"), "{text}");
    assert_eq!(DreamMetrics::new().prefix(), "memcore_");
    for bad in ["", "1x", "a-b", "sp ace", "é_", &"x".repeat(65)] {
        let error = DreamMetrics::with_prefix(bad).unwrap_err();
        assert_eq!(error.code, ErrorCode::Argument, "{bad:?}");
        assert!(
            error.message.contains("options.prefix"),
            "{}",
            error.message
        );
    }
    assert!(DreamMetrics::with_prefix("my_app:").is_ok());
}

#[test]
fn misuse_is_an_error_and_touches_nothing() {
    let hosts = hosts_with(
        vec![entry("e1", "k", json!("v"), "agent-1")],
        vec![],
        NoTimer,
    );
    let cases = [
        (
            json!({"dream": {"enabled": true, "summarizeGroupBy": "weekly"}}),
            None,
            "dream.summarizeGroupBy",
        ),
        (
            json!({"dream": {"enabled": true}}),
            Some(json!({"inputPerMTok": -1, "outputPerMTok": 1})),
            "price.inputPerMTok",
        ),
    ];
    for (config, price, path) in cases {
        let mut raw =
            json!({ "userId": "user-1", "agentId": "agent-1", "now": NOW, "config": config });
        if let Some(price) = price {
            raw["price"] = price;
        }
        let input: DreamInput = serde_json::from_value(raw).unwrap();
        let error = block_on(dream(&hosts.hosts(), &input, None)).unwrap_err();
        assert_eq!(
            (error.code, error.details.unwrap()["path"].clone()),
            (ErrorCode::Config, json!(path))
        );
    }
    let mut no_model = hosts_with(vec![], vec![], NoTimer);
    no_model.model = None;
    let error = block_on(dream(
        &no_model.hosts(),
        &input(json!({"dream": {"enabled": true, "summarizeInteractions": true}})),
        None,
    ))
    .unwrap_err();
    assert_eq!(error.details.unwrap()["path"], "model");
    assert_eq!(hosts.store.total(), 0);
    let input: Result<DreamInput, _> =
        serde_json::from_value(json!({ "userId": "u", "agentId": "a", "now": NOW, "tipo": 1 }));
    assert!(input.is_err(), "unknown options are refused");
}

#[test]
fn a_model_that_never_answers_times_out_as_a_transient_failure() {
    struct Hanging;
    impl memcore::host::LanguageModel for Hanging {
        async fn complete(&self, _r: &CompletionRequest) -> memcore::error::Result<Completion> {
            std::future::pending().await
        }
    }
    let entries: Vec<Entry> = (0..6)
        .map(|i| entry(&format!("e{i}"), &format!("k{i}"), json!("v"), "agent-1"))
        .collect();
    let hosts = DreamSetup {
        store: Faulty::new(MemStore::with(entries)),
        model: Some(Hanging),
        host: memcore::host::Parts {
            clock: TestClock::at(NOW),
            ids: ListIds::default(),
            timer: ExpiredTimer,
            logger: RecordingLogger::default(),
            embedder: memcore::host::NoEmbedder,
        },
    };
    let config = json!({"dream": {"enabled": true, "summarizeInteractions": true}});
    let report = block_on(dream(&hosts.hosts(), &input(config), None)).unwrap();
    assert_eq!(report.groups_skipped[0].reason, SkipReason::ModelTransient);
    assert!(report.error.is_none());
    assert_eq!(hosts.store.count("delete"), 0);
}

#[test]
fn answers_are_read_like_eddi_reads_them() {
    let g = Guardrails::default();
    let item = |k: &str, v: &str| AnswerItem {
        key: k.into(),
        value: v.into(),
    };
    assert_eq!(
        parse_dream_answer(r#"[{"key":"k1","value":"v1"}]"#, &g),
        Some(vec![item("k1", "v1")])
    );
    for bad in [
        "",
        "   ",
        "no array",
        "[{broken json}]",
        "[]",
        "[1, 2]",
        r#"{"key":"k","value":"v"}"#,
    ] {
        assert_eq!(parse_dream_answer(bad, &g), None, "{bad:?}");
    }
    let fenced = "```json\n[{\"key\": \"k\", \"value\": \"v\"}]\n```";
    assert_eq!(parse_dream_answer(fenced, &g), Some(vec![item("k", "v")]));
    let prose = "See [1] below:\n[{\"key\": \"k\", \"value\": {\"a\": 1}}] and [2].";
    assert_eq!(
        parse_dream_answer(prose, &g),
        Some(vec![item("k", r#"{"a":1}"#)])
    );
    let long = format!(
        r#"[{{"key":"{}","value":"{}"}}]"#,
        "k".repeat(200),
        "v".repeat(2000)
    );
    let cut_item = &parse_dream_answer(&long, &g).unwrap()[0];
    assert_eq!(
        (cut_item.key.chars().count(), cut_item.value.chars().count()),
        (100, 1000)
    );
    assert!(cut_item.key.ends_with('…') && cut_item.value.ends_with('…'));
    assert_eq!(cut("héllo wörld", 5), "héll…");
    assert_eq!(cut("abc", 3), "abc");
    assert_eq!(cut("abc", 0), "");
}

#[test]
fn the_cost_estimate_is_four_characters_per_token_at_ten_dollars_per_million() {
    let request = CompletionRequest {
        purpose: Purpose::Dream,
        system: "s".repeat(200),
        user: "ü".repeat(201),
        max_output_tokens: 9,
    };
    let tokens = charged_tokens(None, &request, "abcde");
    assert_eq!((tokens.input_tokens, tokens.output_tokens), (101, 2));
    assert!((cost_usd(tokens, None) - 103.0 * 10.0 / 1e6).abs() < 1e-15);
    let zero = Some(Usage {
        input_tokens: 0,
        output_tokens: 0,
    });
    assert_eq!(
        charged_tokens(zero, &request, "abcde"),
        tokens,
        "zero usage is no usage"
    );
    let reported = Usage {
        input_tokens: 1_000_000,
        output_tokens: 2_000_000,
    };
    let price = Price {
        input_per_m_tok: 0.15,
        output_per_m_tok: 0.6,
    };
    assert!((cost_usd(reported, Some(price)) - 1.35).abs() < 1e-12);
}

#[test]
fn transient_failures_follow_details_then_status_then_the_message() {
    let error = |m: &str, d: Option<Value>| {
        let e = Error::new(ErrorCode::Host, m);
        match d {
            Some(d) => e.with_details(d),
            None => e,
        }
    };
    for transient in [
        "429 Too Many Requests",
        "status 503",
        "Overloaded",
        "read timed out",
        "Request timeout",
        "rate limit exceeded",
        "502 Bad Gateway",
        "error 529",
        "Service temporarily unavailable",
        "connect ECONNREFUSED 127.0.0.1:1",
        "socket hang up",
        "Connection reset by peer",
    ] {
        assert!(is_transient(&error(transient, None)), "{transient}");
    }
    for permanent in [
        "401 Unauthorized",
        "model 'nope' does not exist",
        "",
        "getaddrinfo ENOTFOUND api.example.invalid",
        "bad request",
    ] {
        assert!(!is_transient(&error(permanent, None)), "{permanent}");
    }
    assert!(!is_transient(&error(
        "429",
        Some(json!({"transient": false}))
    )));
    assert!(is_transient(&error(
        "401",
        Some(json!({"transient": true}))
    )));
    assert!(is_transient(&error("x", Some(json!({"status": 529})))));
    assert!(is_transient(&error("x", Some(json!({"status": 408})))));
    assert!(!is_transient(&error(
        "503 in the message",
        Some(json!({"status": 404}))
    )));
}

#[test]
fn dream_schedules_need_the_marker_a_real_user_and_an_agent_but_no_message() {
    let ok = json!({ "name": "nightly-dream", "triggerType": "CRON", "cronExpression": "0 3 * * *", "agentId": "agent-1",
                     "agentVersion": 1, "userId": "user-123", "metadata": { "dreamType": "dream_consolidation" } });
    assert!(validate_dream_schedule(&ok).is_empty());
    let fields = |s: &Value| {
        validate_dream_schedule(s)
            .into_iter()
            .map(|v| v.field)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        fields(&json!({})),
        ["metadata.dreamType", "userId", "agentId"]
    );
    let mut placeholder = ok.clone();
    placeholder["userId"] = json!("system:scheduler");
    assert_eq!(fields(&placeholder), ["userId"]);
    let mut other = ok.clone();
    other["metadata"]["dreamType"] = json!("something_else");
    other["agentId"] = json!("  ");
    other["cronExpression"] = json!("");
    assert_eq!(
        fields(&other),
        ["metadata.dreamType", "agentId", "cronExpression"]
    );
    assert_eq!(fields(&json!([1])), [""]);
}
