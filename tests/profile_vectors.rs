//! Replays the shared vectors in `tests/vectors/profile/` (the JS suite replays the same files).
//! `MEMCORE_BLESS=1 cargo test --test profile_vectors` rewrites the expected fields of the
//! generated files (parse, normalise, inject) from the implementation — review the diff.

use memcore::profile::*;
use serde_json::{json, Value};
use std::path::PathBuf;

fn vector_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/vectors/profile")
        .join(name)
}

fn load(name: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(vector_path(name)).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn blessing() -> bool {
    std::env::var("MEMCORE_BLESS").is_ok_and(|v| v == "1")
}

/// Compare (or, when blessing, write) the computed fields of every case.
fn replay(name: &str, compute: impl Fn(&Value) -> Value) {
    let mut cases = load(name);
    for case in &mut cases {
        let actual = compute(case);
        let label = case["name"].as_str().unwrap_or("?").to_string();
        let Value::Object(fields) = actual else {
            panic!("compute must return an object")
        };
        for (key, value) in fields {
            if blessing() {
                case[&key] = value;
            } else {
                assert_eq!(case[&key], value, "{name}: case `{label}`, field `{key}`");
            }
        }
    }
    if blessing() {
        let text = serde_json::to_string_pretty(&cases).unwrap() + "\n";
        std::fs::write(vector_path(name), text).unwrap();
    }
}

fn input(case: &Value) -> &str {
    case["input"].as_str().unwrap()
}

#[test]
fn parse_vectors() {
    replay("parse.json", |case| {
        let parsed = parse_profile(input(case));
        let diagnostics: Vec<Value> = parsed
            .diagnostics
            .iter()
            .map(|d| json!({ "code": d.code, "line": d.line, "severity": d.severity }))
            .collect();
        let frontmatter = &parsed.profile.frontmatter;
        json!({
            "rendered": render_profile(&parsed.profile),
            "diagnostics": diagnostics,
            "userId": frontmatter.user_id,
            "turnCount": frontmatter.turn_count,
            "extra": frontmatter.extra,
            "body": profile_body(input(case)),
        })
    });
}

#[test]
fn normalise_vectors() {
    replay("normalise.json", |case| {
        json!({
            "normalised": normalise_model_body(input(case)),
            "wellFormed": is_well_formed_body(input(case)),
        })
    });
}

#[test]
fn inject_vectors() {
    replay(
        "inject.json",
        |case| json!({ "section": memory_system_prompt_section(input(case)) }),
    );
}

fn opt_str(value: &Value) -> Option<&str> {
    value.as_str()
}

#[test]
fn paths_vectors() {
    for case in load("paths.json") {
        let name = &case["name"];
        let result = memory_path(
            case["userId"].as_str().unwrap(),
            opt_str(&case["rootFolder"]),
        );
        match (&case["path"], &case["error"]) {
            (Value::String(path), _) => {
                assert_eq!(result.as_deref().ok(), Some(path.as_str()), "{name}")
            }
            (_, Value::String(code)) => {
                assert_eq!(
                    result.err().map(|e| e.code.as_str()),
                    Some(code.as_str()),
                    "{name}"
                )
            }
            _ => panic!("{name}: case needs `path` or `error`"),
        }
    }
}

#[test]
fn enablement_vectors() {
    for case in load("enablement.json") {
        let name = &case["name"];
        let inputs: EnablementInputs = serde_json::from_value(case["inputs"].clone()).unwrap();
        let result = resolve_enablement(&inputs);
        assert_eq!(result.enabled, case["enabled"].as_bool().unwrap(), "{name}");
        assert_eq!(
            result.reason.as_str(),
            case["reason"].as_str().unwrap(),
            "{name}"
        );
        assert_eq!(
            result.tooltip.as_deref(),
            opt_str(&case["tooltip"]),
            "{name}"
        );
        let codes: Vec<&str> = result.warnings.iter().map(|w| w.code.as_str()).collect();
        let expected: Vec<&str> = case["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap())
            .collect();
        assert_eq!(codes, expected, "{name}");
    }
}

#[test]
fn edit_vectors() {
    for case in load("edit.json") {
        let name = &case["name"];
        let now = chrono::DateTime::parse_from_rfc3339(case["now"].as_str().unwrap())
            .unwrap()
            .with_timezone(&chrono::Utc);
        let options = EditOptions {
            user_id: case["userId"].as_str().unwrap().to_string(),
            now,
        };
        let result = apply_user_edit(
            opt_str(&case["existing"]),
            case["body"].as_str().unwrap(),
            &options,
        );
        if let Some(code) = case["error"].as_str() {
            assert_eq!(result.err().map(|e| e.code.as_str()), Some(code), "{name}");
            continue;
        }
        let result = result.unwrap();
        assert_eq!(result.text, case["text"].as_str().unwrap(), "{name}");
        let codes: Vec<&str> = result.diagnostics.iter().map(|d| d.code.as_str()).collect();
        let expected: Vec<&str> = case["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_str().unwrap())
            .collect();
        assert_eq!(codes, expected, "{name}");
    }
}
