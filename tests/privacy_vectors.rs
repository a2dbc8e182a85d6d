//! The shared privacy vectors (tests/vectors/privacy/detect.json, migration.json): detection,
//! redaction, migration plans and the legacy cleanup, as the JS suite replays them.

use memcore::entries::Entry;
use memcore::migrate::credentials::{detect_credential, holds_credential, redact_value};
use memcore::migrate::legacy::{plan_legacy_cleanup, plan_properties_migration, MigrationOptions};
use serde_json::Value;
use std::collections::BTreeMap;

/// A vector file with its '¦' splice marks removed from every string (keys included).
fn vectors(name: &str) -> Value {
    let path = format!(
        "{}/tests/vectors/privacy/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    unsplice(serde_json::from_str(&text).unwrap())
}

fn unsplice(value: Value) -> Value {
    match value {
        Value::String(s) => Value::String(s.replace('¦', "")),
        Value::Array(items) => Value::Array(items.into_iter().map(unsplice).collect()),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k.replace('¦', ""), unsplice(v)))
                .collect(),
        ),
        other => other,
    }
}

/// `actual == expected`, or a failure that shows both *redacted*: a test failure message must not
/// print a credential either.
fn same(actual: &Value, expected: &Value, name: &str) {
    assert!(
        actual == expected,
        "{name}: got {} expected {}",
        redact_value(actual),
        redact_value(expected)
    );
}

#[test]
fn detect_vectors() {
    let v = vectors("detect.json");
    for case in v["detect"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let found = serde_json::to_value(detect_credential(&case["value"])).unwrap();
        assert_eq!(found["found"], case["found"], "{name}");
        if case["found"] == true {
            assert_eq!(found["path"], case["path"], "{name}");
            assert_eq!(found["kind"], case["kind"], "{name}");
        } else {
            assert_eq!(
                (&found["path"], &found["kind"]),
                (&Value::Null, &Value::Null),
                "{name}"
            );
        }
        assert!(
            !holds_credential(&redact_value(&case["value"])),
            "{name}: redaction left one"
        );
    }
}

#[test]
fn redact_vectors() {
    let v = vectors("detect.json");
    for case in v["redact"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let redacted = redact_value(&case["value"]);
        assert_eq!(redacted, case["redacted"], "{name}");
        assert_eq!(
            redact_value(&redacted),
            redacted,
            "{name}: redaction is idempotent"
        );
    }
}

fn options(case: &Value) -> MigrationOptions {
    match case.get("options") {
        Some(o) => serde_json::from_value(o.clone()).unwrap(),
        None => MigrationOptions::default(),
    }
}

#[test]
fn migration_plan_vectors() {
    let v = vectors("migration.json");
    for case in v["plans"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let documents = case["documents"].as_array().unwrap();
        let existing: BTreeMap<String, Vec<String>> =
            serde_json::from_value(case["existingKeysByUser"].clone()).unwrap_or_default();
        let plan = plan_properties_migration(documents, &existing, &options(case));
        same(&serde_json::to_value(&plan).unwrap(), &case["plan"], name);
        // Idempotent: with what the plan inserts now existing, a second plan inserts nothing.
        let mut after = existing.clone();
        for insert in &plan.inserts {
            after
                .entry(insert.user_id.clone())
                .or_default()
                .push(insert.key.clone());
        }
        let again = plan_properties_migration(documents, &after, &options(case));
        assert!(
            again.inserts.is_empty() && again.may_rename,
            "{name}: second run"
        );
    }
}

#[test]
fn legacy_cleanup_vectors() {
    let v = vectors("migration.json");
    for case in v["cleanup"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let entries: Vec<Entry> = serde_json::from_value(case["entries"].clone()).unwrap();
        let plan = plan_legacy_cleanup(&entries, &options(case));
        assert_eq!(
            serde_json::to_value(&plan).unwrap(),
            case["expected"],
            "{name}"
        );
    }
}

/// Fragments that start, end or fake a credential shape.
const FRAGMENTS: &[&str] = &[
    "password=",
    "\"token\": \"",
    "api_key=",
    "?",
    "&",
    "Bearer ",
    "Basic ",
    "sk-",
    "_live_",
    "eyJ",
    ".",
    "://",
    "@",
    ":",
    " ",
    "\"",
    "'",
    "=",
    ";",
    "[REDACTED]",
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----",
    "{\"a\":",
    "}",
    "[",
    "]",
    "\n",
    "AKIA",
    "xoxb-",
    "ü",
    "…",
];

/// 20,000 texts glued from fragments and random runs (a fixed seed, no shrinking library:
/// a failure names the case number, never the text).
#[test]
fn redaction_leaves_nothing_to_find_and_is_idempotent() {
    let mut x: u32 = 20_261_201;
    let mut next = move |n: usize| {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        (x as usize) % n
    };
    const RUN: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-";
    for case in 0..20_000 {
        let mut text = String::new();
        for _ in 0..next(24) {
            if next(3) == 0 {
                let len = 1 + next(24);
                text.extend((0..len).map(|_| RUN[next(RUN.len())] as char));
            } else {
                text.push_str(FRAGMENTS[next(FRAGMENTS.len())]);
            }
        }
        let value = Value::String(text);
        let clean = redact_value(&value);
        assert!(
            !holds_credential(&clean),
            "case {case}: redaction left a credential"
        );
        assert!(
            redact_value(&clean) == clean,
            "case {case}: redaction is not idempotent"
        );
    }
}

proptest::proptest! {
    #[test]
    fn any_text_is_scanned_without_a_panic(text in "\\PC{0,300}") {
        let _ = detect_credential(&Value::String(text.clone()));
        let _ = memcore::migrate::credentials::redact_text(&text);
    }
}
