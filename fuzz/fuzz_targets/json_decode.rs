//! The JSON wire decoder (`memcore::json::decode`) for the structured arguments the binding
//! decodes: any value, entries, the configurations, the turn and load inputs, profiles, Dream's
//! input, an export document, enablement and group-context inputs, properties, times, counts.
//!
//! Properties, besides no panic and linear work: an error is `(path, message)` with a message;
//! the error path can be read at any offset (`json_path_at`); a decoded value written back
//! (`to_json`) is ASCII and decodes to the same value (floats up to rounding), and the same for
//! an entry and a profile.
#![no_main]

use memcore::boundary::json::{decode, json_path_at, to_json, Count, Time};
use memcore::entries::config::parse_user_memory_config;
use memcore::entries::properties::LongTermProperty;
use memcore::entries::visibility::GroupContextInputs;
use memcore::entries::{Entry, UserMemoryConfig};
use memcore::migrate::MigrationOptions;
use memcore::profile::{EnablementInputs, FitOptions, Profile, RootInfo};
use memcore::rights::UserDataExport;
use memcore::turn::{ContextMemoryConfig, LoadInput, TurnInput};
use memcore_fuzz::{check, same_json, text_of, Bound};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// About twenty decodes of the same text: measured peaks ~200 bytes and ~1.2 allocations per
/// input byte (a `Value` tree per decode of many small objects); see docs/internals/fuzzing.md.
const BOUND: Bound = Bound {
    bytes_per_byte: 800,
    bytes_base: 256 * 1024,
    allocations_per_byte: 6,
    allocations_base: 4096,
};

/// Decode as `T`; an error must carry a message (the path may be empty: the value itself).
fn decoded<T: DeserializeOwned>(text: &str) -> Option<T> {
    match decode::<T>(text) {
        Ok(value) => Some(value),
        Err((path, message)) => {
            assert!(
                !message.is_empty(),
                "an error without a message at `{path}`"
            );
            None
        }
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check("json_decode", data, &BOUND, |data| {
        let text = text_of(data);
        for offset in [
            0,
            text.len() / 3,
            text.len() / 2,
            text.len(),
            text.len() + 1,
        ] {
            let _ = json_path_at(&text, offset);
        }
        if let Some(value) = decoded::<Value>(&text) {
            let written = to_json(&value).expect("a decoded value writes");
            assert!(written.is_ascii(), "to_json wrote non-ASCII");
            let again: Value = decode(&written).expect("what to_json wrote decodes");
            assert!(
                same_json(&value, &again),
                "Value round trip: {value} vs {again}"
            );
            let _ = parse_user_memory_config(&value);
        }
        if let Some(entry) = decoded::<Entry>(&text) {
            let written = to_json(&entry).expect("an entry writes");
            let again: Entry = decode(&written).expect("a written entry decodes");
            assert!(
                same_json(&entry.value, &again.value)
                    && Entry {
                        value: Value::Null,
                        ..entry
                    } == Entry {
                        value: Value::Null,
                        ..again
                    },
                "Entry round trip"
            );
        }
        if let Some(profile) = decoded::<Profile>(&text) {
            let written = to_json(&profile).expect("a profile writes");
            let again: Profile = decode(&written).expect("a written profile decodes");
            assert_eq!(profile, again, "Profile round trip");
        }
        let _ = decoded::<Vec<Entry>>(&text);
        let _ = decoded::<UserMemoryConfig>(&text);
        let _ = decoded::<ContextMemoryConfig>(&text);
        let _ = decoded::<TurnInput>(&text);
        let _ = decoded::<LoadInput>(&text);
        let _ = decoded::<memcore::dream::input::DreamInput>(&text);
        let _ = decoded::<UserDataExport>(&text);
        let _ = decoded::<EnablementInputs>(&text);
        let _ = decoded::<GroupContextInputs>(&text);
        let _ = decoded::<Vec<LongTermProperty>>(&text);
        let _ = decoded::<Vec<RootInfo>>(&text);
        let _ = decoded::<FitOptions>(&text);
        let _ = decoded::<MigrationOptions>(&text);
        let _ = decoded::<serde_json::Map<String, Value>>(&text);
        let _ = decoded::<Time>(&text);
        let _ = decoded::<Count>(&text);
        let _ = decoded::<Vec<String>>(&text);
    });
});
