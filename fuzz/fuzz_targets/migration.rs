//! The legacy migration planner (SPEC §4.1) on any JSON document, or list of documents:
//! `plan_properties_migration` with the default options and with `skipKeys` naming the first
//! key seen.
//!
//! Properties, besides no panic and linear work: no insert holds a credential, is empty,
//! reserved or skipped; every skipped document is one of the input's; `mayRename` holds exactly
//! when nothing is left to insert; the plan is idempotent (planning again with the inserted keys
//! in the store inserts nothing and may rename).
#![no_main]

use memcore::entries::names_reserved_key;
use memcore::migrate::{plan_properties_migration, MigrationOptions};
use memcore::secrets::find_entry_secret;
use memcore_fuzz::{check, text_of, Bound};
use serde_json::Value;
use std::collections::BTreeMap;

/// One decode and two plans per options (hash sets of keys, the skip tally): measured peaks
/// ~180 bytes and ~2 allocations per input byte; see docs/internals/fuzzing.md.
const BOUND: Bound = Bound {
    bytes_per_byte: 800,
    bytes_base: 256 * 1024,
    allocations_per_byte: 8,
    allocations_base: 4096,
};

/// The first key of the first document that is an object, if any.
fn first_key(documents: &[Value]) -> Option<String> {
    documents
        .iter()
        .find_map(|d| d.as_object().and_then(|o| o.keys().next().cloned()))
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check("migration", data, &BOUND, |data| {
        let text = text_of(data);
        let Ok(input) = serde_json::from_str::<Value>(&text) else {
            return;
        };
        let documents = match input {
            Value::Array(list) => list,
            one => vec![one],
        };
        let mut option_sets = vec![MigrationOptions::default()];
        if let Some(key) = first_key(&documents) {
            option_sets.push(MigrationOptions {
                skip_keys: vec![key],
            });
        }
        for options in option_sets {
            let plan = plan_properties_migration(&documents, &BTreeMap::new(), &options);
            assert_eq!(plan.may_rename, plan.inserts.is_empty(), "mayRename");
            for skip in &plan.skipped_documents {
                assert!(
                    skip.index < documents.len(),
                    "a skipped document out of range"
                );
            }
            let mut existing: BTreeMap<String, Vec<String>> = BTreeMap::new();
            for insert in &plan.inserts {
                assert!(!insert.key.is_empty(), "an empty key is inserted");
                assert_eq!(
                    insert.key.trim(),
                    insert.key,
                    "an untrimmed key is inserted"
                );
                assert!(
                    !names_reserved_key(&insert.key),
                    "a reserved key (or a look-alike) is inserted"
                );
                assert!(
                    !options.skip_keys.iter().any(|k| k.trim() == insert.key),
                    "a skipped key is inserted"
                );
                // The planner's rule is the write guard's: the value read under its key (a
                // structural key such as `orderId` exempts it from the entropy rule), and the
                // key itself.
                assert!(
                    find_entry_secret(&insert.key, &insert.value).is_none(),
                    "a credential is inserted under {:?}",
                    insert.key
                );
                existing
                    .entry(insert.user_id.clone())
                    .or_default()
                    .push(insert.key.clone());
            }
            let again = plan_properties_migration(&documents, &existing, &options);
            assert!(
                again.inserts.is_empty(),
                "planning again inserts {:?}",
                again.inserts.len()
            );
            assert!(again.may_rename, "planning again may not rename");
        }
    });
});
