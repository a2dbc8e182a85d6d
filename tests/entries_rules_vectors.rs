//! Replays the pure-function vectors in `tests/vectors/entries/` (config, tool attachment,
//! search, write rules, context) — the same files the JS suite replays.

mod common;

use common::*;
use memcore::entries::config::{parse_user_memory_config, resolve_memory_tools};
use memcore::entries::search::{matches_query, search_terms};
use memcore::entries::visibility::{
    filter_client_context, resolve_group_context, GroupAttestation,
};
use memcore::entries::write_rules::{normalize_memory_write, validate_memory_write, Surface};
use memcore::ErrorCode;
use serde_json::{json, Value};

#[test]
fn config_vectors() {
    for case in vector("config.json")["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let parsed = parse_user_memory_config(&case["input"]);
        match case.get("errorPath") {
            Some(path) => {
                let err = parsed.expect_err(name);
                assert_eq!(err.code, ErrorCode::Config, "{name}");
                assert_eq!(err.details.unwrap()["path"], *path, "{name}");
            }
            None => {
                let got = serde_json::to_value(parsed.expect(name)).unwrap();
                assert_eq!(got, case["expect"], "{name}");
            }
        }
    }
}

#[test]
fn tool_attachment_vectors() {
    for case in vector("tool_attachment.json")["cases"].as_array().unwrap() {
        let got = resolve_memory_tools(&case["agent"], &case["task"]);
        let name = case["name"].as_str().unwrap();
        assert_eq!(got.attached, case["attached"].as_bool().unwrap(), "{name}");
        assert_eq!(got.warning.as_deref(), case["warning"].as_str(), "{name}");
    }
}

#[test]
fn search_vectors() {
    let file = vector("search.json");
    for case in file["terms"].as_array().unwrap() {
        let want: Vec<String> = serde_json::from_value(case["terms"].clone()).unwrap();
        assert_eq!(
            search_terms(case["query"].as_str().unwrap()),
            want,
            "{case}"
        );
    }
    for case in file["matches"].as_array().unwrap() {
        let entry = entry_from(&json!({"id": "s", "key": case["key"], "value": case["value"]}));
        let got = matches_query(case["query"].as_str().unwrap(), &entry);
        assert_eq!(got, case["matches"].as_bool().unwrap(), "{case}");
    }
}

#[test]
fn write_rule_vectors() {
    for case in vector("write_rules.json")["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let surface = match case["surface"].as_str().unwrap() {
            "mcp" => Surface::Mcp,
            _ => Surface::Rest,
        };
        let fields: Vec<String> = validate_memory_write(&case["request"], surface)
            .into_iter()
            .map(|v| v.field)
            .collect();
        let want: Vec<String> = serde_json::from_value(case["fields"].clone()).unwrap();
        assert_eq!(fields, want, "{name}");
        if let Some(normalized) = case.get("normalized") {
            let got = normalize_memory_write(&case["request"], surface).unwrap();
            assert_eq!(serde_json::to_value(got).unwrap(), *normalized, "{name}");
        }
    }
}

#[test]
fn context_vectors() {
    let file = vector("context.json");
    for case in file["filter"].as_array().unwrap() {
        let got = filter_client_context(case["input"].as_object().unwrap());
        assert_eq!(Value::Object(got), case["output"]);
    }
    for case in file["group"].as_array().unwrap() {
        let attestation: Option<GroupAttestation> =
            serde_json::from_value(case["attestation"].clone()).unwrap();
        let got = resolve_group_context(
            case["injected"].as_str(),
            case["earlier"].as_str(),
            attestation.as_ref(),
        );
        assert_eq!(got.as_deref(), case["group"].as_str(), "{}", case["name"]);
    }
}

#[test]
fn write_violations_carry_messages() {
    let v = validate_memory_write(
        &json!({"userId": "u", "key": "k", "visibility": "self"}),
        Surface::Mcp,
    );
    assert_eq!(v.len(), 1);
    assert_eq!(
        v[0].message,
        "agentId is required for self and group entries"
    );
}
