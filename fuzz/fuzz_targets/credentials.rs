//! The credential scanner (SPEC §4.2) on any text and, when the text is JSON, on its value:
//! `detect_credential`, `redact_value`, `redact_text`.
//!
//! Properties, besides no panic and linear work: redaction is idempotent
//! (`redact(redact(x)) == redact(x)`); the detector finds nothing in a redacted value or text;
//! detection and redaction agree (a value the detector passes is left unchanged, one it flags is
//! changed); a found credential's path is set exactly when one is found.
#![no_main]

use memcore::migrate::credentials::{detect_credential, redact_text, redact_value};
use memcore_fuzz::{check, text_of, Bound};
use serde_json::Value;

/// A text scanned as a string and, when JSON, as a value, each detected, redacted and checked
/// again — about fourteen JSON trees of the input: measured peaks ~1,330 bytes per input byte (an
/// array of one-key objects, every object a B-tree node of ~650 bytes per tree) and ~2.5
/// allocations per input byte (URLs with a password and a token parameter every 23 bytes); see
/// docs/internals/fuzzing.md.
const BOUND: Bound = Bound {
    bytes_per_byte: 5000,
    bytes_base: 256 * 1024,
    allocations_per_byte: 12,
    allocations_base: 4096,
};

/// Detection and redaction of one value agree, and redaction leaves nothing to find.
fn holds(value: &Value) {
    let found = detect_credential(value);
    assert_eq!(found.found, found.path.is_some(), "found without a path");
    assert_eq!(found.found, found.kind.is_some(), "found without a kind");
    let clean = redact_value(value);
    if found.found {
        assert_ne!(
            &clean, value,
            "a credential ({:?}) was not redacted",
            found.kind
        );
    } else {
        assert_eq!(
            &clean, value,
            "redaction changed a value without a credential"
        );
    }
    let left = detect_credential(&clean);
    assert!(
        !left.found,
        "a redacted value still holds a credential: {:?} at {:?}",
        left.kind, left.path
    );
    assert_eq!(
        redact_value(&clean),
        clean,
        "redact_value is not idempotent"
    );
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check("credentials", data, &BOUND, |data| {
        let text = text_of(data);
        holds(&Value::String(text.clone()));
        let clean = redact_text(&text);
        assert_eq!(redact_text(&clean), clean, "redact_text is not idempotent");
        let left = detect_credential(&Value::String(clean));
        assert!(
            !left.found,
            "a redacted text still holds a credential: {:?}",
            left.kind
        );
        if let Ok(value) = serde_json::from_str::<Value>(&text) {
            holds(&value);
        }
    });
});
