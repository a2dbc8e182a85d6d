//! The cross-language contracts are single-sourced in Rust ([`memcore::names`]-declared enums);
//! this fails when a string union of the typings (`js/types/*.d.ts`, re-exported by
//! `js/index.d.ts`) drifts from them.

use memcore::dream::{DreamErrorCode, SkipReason};
use memcore::migrate::legacy::{DocumentSkipReason, InsertOutcome, KeySkipReason};
use memcore::migrate::CredentialKind;
use memcore::profile::{DiagnosticCode, EnablementReason};
use memcore::turn::{LoadOutcome, TurnOutcome};
use memcore::ErrorCode;

/// Every section file of the typings, concatenated.
fn typings() -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("js/types");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("js/types exists")
        .map(|entry| entry.expect("a readable entry").path())
        .filter(|path| path.to_string_lossy().ends_with(".d.ts"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|path| std::fs::read_to_string(path).expect("a readable typings file"))
        .collect()
}

/// The string members of `export type <name> = 'a' | 'b' …;` in the typings.
fn union(name: &str) -> Vec<String> {
    let typings = typings();
    let start = format!("export type {name} =");
    let at = typings
        .find(&start)
        .unwrap_or_else(|| panic!("js/types/*.d.ts declares no `{start}`"));
    let rest = &typings[at + start.len()..];
    let body = &rest[..rest.find(';').expect("the union ends with `;`")];
    body.split('|')
        .map(|member| member.trim().trim_matches('\'').to_string())
        .filter(|member| !member.is_empty())
        .collect()
}

fn same(name: &str, rust: &[&str]) {
    let typings = union(name);
    let rust: Vec<String> = rust.iter().map(|s| (*s).to_string()).collect();
    assert_eq!(
        typings, rust,
        "`{name}` in js/types/*.d.ts vs the Rust enum (same members, same order)"
    );
}

#[test]
fn typings_unions_equal_the_rust_enums() {
    same("MemcoreErrorCode", ErrorCode::NAMES);
    same("DiagnosticCode", DiagnosticCode::NAMES);
    same("TurnOutcome", TurnOutcome::NAMES);
    same("LoadOutcome", LoadOutcome::NAMES);
    same("EnablementReason", EnablementReason::NAMES);
    same("DreamSkipReason", SkipReason::NAMES);
    same("DreamErrorCode", DreamErrorCode::NAMES);
    same("CredentialKind", CredentialKind::NAMES);
    same("LegacyKeySkipReason", KeySkipReason::NAMES);
    same("LegacyDocumentSkipReason", DocumentSkipReason::NAMES);
    same("LegacyInsertOutcome", InsertOutcome::NAMES);
}

#[test]
fn names_round_trip_through_serde_and_parse() {
    for code in ErrorCode::ALL {
        assert_eq!(serde_json::to_value(code).unwrap(), code.as_str());
        assert_eq!(ErrorCode::parse(code.as_str()), Some(*code));
        let back: ErrorCode = serde_json::from_value(code.as_str().into()).unwrap();
        assert_eq!(back, *code);
    }
    for code in DiagnosticCode::ALL {
        assert_eq!(serde_json::to_value(code).unwrap(), code.as_str());
    }
    let error = serde_json::from_str::<TurnOutcome>("\"nope\"")
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("unknown variant `nope`, expected one of `disabled`"),
        "{error}"
    );
}
