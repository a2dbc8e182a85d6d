//! The REST body as it reaches the core: the bytes decoded as JSON (`memcore::json::decode`, as
//! the binding decodes what the JS reader parsed), then the upsert rules of REST `PUT` and MCP
//! `upsert_user_memory` (`validate_memory_write`, `normalize_memory_write`). The JS reader itself
//! (`js/server/http.js`) is not fuzzed here.
//!
//! Properties, besides no panic and linear work: `validate` is empty exactly when `normalize`
//! accepts; every violation names a field of the request (or `""`) and says what is wrong; an
//! accepted write keeps SPEC §2.6 (a trimmed, non-empty, unreserved key of at most 255
//! characters, a value of at most 64 KiB as JSON, a write category, groups for a group entry, the
//! agent for self and group entries) and becomes an entry that survives the wire.
#![no_main]

use memcore::boundary::json::{decode, to_json};
use memcore::entries::config::Visibility;
use memcore::entries::names_reserved_key;
use memcore::entries::write_rules::{
    normalize_memory_write, validate_memory_write, Surface, MAX_KEY_CHARS, MAX_VALUE_BYTES,
    WRITE_CATEGORIES,
};
use memcore::entries::Entry;
use memcore_fuzz::{check, same_json, text_of, Bound};
use serde_json::Value;

/// One decode, two surfaces, the value written once per check: measured peaks ~100 bytes and
/// ~0.7 allocations per input byte; see docs/internals/fuzzing.md.
const BOUND: Bound = Bound {
    bytes_per_byte: 400,
    bytes_base: 256 * 1024,
    allocations_per_byte: 4,
    allocations_base: 4096,
};

/// The request fields a violation may name.
const FIELDS: [&str; 11] = [
    "",
    "userId",
    "key",
    "value",
    "visibility",
    "sourceAgentId",
    "agentId",
    "groupIds",
    "category",
    "id",
    "sourceConversationId",
];

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check("rest_body", data, &BOUND, |data| {
        let text = text_of(data);
        let Ok(request) = decode::<Value>(&text) else {
            return;
        };
        for surface in [Surface::Rest, Surface::Mcp] {
            let violations = validate_memory_write(&request, surface);
            let normalized = normalize_memory_write(&request, surface);
            assert_eq!(
                violations.is_empty(),
                normalized.is_ok(),
                "validate and normalize disagree"
            );
            match normalized {
                Err(list) => {
                    assert!(!list.is_empty(), "refused without a violation");
                    assert_eq!(
                        list, violations,
                        "validate and normalize report differently"
                    );
                    for v in &list {
                        assert!(
                            FIELDS.contains(&v.field.as_str()),
                            "unknown field {:?}",
                            v.field
                        );
                        assert!(!v.message.is_empty(), "a violation without a message");
                    }
                }
                Ok(write) => {
                    assert_eq!(write.key.trim(), write.key, "the key is not trimmed");
                    assert!(!write.key.is_empty(), "an empty key was accepted");
                    assert!(write.key.chars().count() <= MAX_KEY_CHARS, "a long key");
                    assert!(
                        !names_reserved_key(&write.key),
                        "a reserved key was accepted"
                    );
                    assert!(
                        write.value.to_string().len() <= MAX_VALUE_BYTES,
                        "a large value"
                    );
                    assert!(
                        WRITE_CATEGORIES.contains(&write.category.as_str()),
                        "a category"
                    );
                    if write.visibility == Visibility::Group {
                        assert!(!write.group_ids.is_empty(), "a group entry without groups");
                    }
                    if write.visibility != Visibility::Global {
                        assert!(
                            write.source_agent_id.is_some(),
                            "no agent for a scoped entry"
                        );
                    }
                    let entry = write.into_entry("id0".to_string(), "2026-01-01T00:00:00Z");
                    let written = to_json(&entry).expect("an entry writes");
                    let again: Entry = decode(&written).expect("a written entry decodes");
                    assert!(
                        same_json(&entry.value, &again.value),
                        "the value changed on the wire"
                    );
                    assert_eq!(
                        Entry {
                            value: Value::Null,
                            ..entry
                        },
                        Entry {
                            value: Value::Null,
                            ..again
                        },
                        "the entry changed on the wire"
                    );
                }
            }
        }
    });
});
