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
