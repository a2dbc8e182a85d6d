//! The shape contract of the typings: the field names (and enum names) of every serde type that
//! crosses the JS boundary, read from the types themselves, blessed into
//! `tests/vectors/shapes.json`. `tests/js/shapes.test.mjs` compares the installed package's
//! `.d.ts` files with that list, so a field added, renamed or removed on either side fails a test.
//!
//! Regenerate after an intended change: `BLESS=1 cargo test --test shapes`.
//!
//! How the names are read, without a new dependency (the `serde_introspect` trick):
//! - a `Deserialize` struct asks its deserializer for `deserialize_struct(name, FIELDS, …)` — the
//!   list `deny_unknown_fields` quotes in "unknown field, expected one of …";
//! - a derived enum asks for `deserialize_enum(name, VARIANTS, …)`;
//! - a `Serialize`-only struct (reports) is serialized once by a recorder that keeps every key,
//!   the ones `skip_serializing_if` skips included (serde calls `skip_field` for them);
//! - a tagged union (`#[serde(tag = …)]`) is serialized one value per variant;
//! - the `stable_names!` enums have their `NAMES`.

use memcore::dream::metrics::MetricsSnapshot;
use memcore::dream::report::{Contradiction, DreamError, KeptOriginal, SkippedGroup};
use memcore::dream::{DreamErrorCode, DreamReport, SkipReason};
use memcore::entries::config::{DreamConfig, Guardrails};
use memcore::entries::memories::{DeleteOutcome, UpsertOutcome};
use memcore::entries::properties::{LongTermProperty, PersistReport};
use memcore::entries::visibility::GroupAttestation;
use memcore::entries::write_rules::Violation;
use memcore::entries::{
    Entry, OnCapReached, RecallOrder, SummarizeGroupBy, ToolAttachment, UserMemoryConfig,
    Visibility,
};
use memcore::host::{CompletionRequest, Purpose, Usage, WriteOptions};
use memcore::migrate::legacy::{
    DocumentSkip, DocumentSkipReason, InsertError, InsertOutcome, InsertReport, KeySkip,
    KeySkipReason, LegacyInsert, MigrationOptions, MigrationPlan, MigrationReport,
};
use memcore::migrate::CredentialKind;
use memcore::profile::tokens::Encoding;
use memcore::profile::{
    CondenseOutcome, Diagnostic, DiagnosticCode, EditResult, Enablement, EnablementInputs,
    EnablementReason, EnablementWarning, FitReport, Frontmatter, FrontmatterField, MemoryView,
    ParsedProfile, Profile, RootInfo, Section, Severity, TruncateOutcome,
};
use memcore::rights::{ErasureReport, ImportReport, RestrictionChange, UserDataExport};
use memcore::secrets::{SecretField, SecretPolicy};
use memcore::turn::config::Timeouts;
use memcore::turn::{
    Consolidation, ContextMemoryConfig, GateDecision, LoadOutcome, LoadResult, TurnOutcome,
    TurnReport, TurnTimings, TurnUsage,
};
use memcore::ErrorCode;
use serde::de::{self, Deserialize, Visitor};
use serde::ser::{self, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fmt;

// ─── Reading names from Deserialize ─────────────────────────────────────────────────────────────

#[derive(Debug)]
struct Stop;
impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("introspection stop")
    }
}
impl std::error::Error for Stop {}
impl de::Error for Stop {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Stop
    }
}
impl ser::Error for Stop {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Stop
    }
}

/// A deserializer that answers nothing and remembers the names it was asked for.
struct Names<'a>(&'a mut Option<&'static [&'static str]>);

impl<'de> de::Deserializer<'de> for Names<'_> {
    type Error = Stop;
    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        Err(Stop)
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Stop> {
        *self.0 = Some(fields);
        Err(Stop)
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Stop> {
        *self.0 = Some(variants);
        Err(Stop)
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map identifier ignored_any
    }
}

/// The field names of a `Deserialize` struct, or the variant names of a derived enum.
fn names<'de, T: Deserialize<'de>>() -> Vec<String> {
    let mut found = None;
    let _ = T::deserialize(Names(&mut found));
    found
        .unwrap_or_else(|| {
            panic!(
                "{} is not read as a struct or enum",
                std::any::type_name::<T>()
            )
        })
        .iter()
        .map(|s| (*s).to_string())
        .collect()
}

// ─── Reading keys from Serialize ────────────────────────────────────────────────────────────────

/// A serializer that keeps the keys of the one struct it is given, skipped ones included.
#[derive(Default)]
struct Keys(Vec<String>);

impl ser::SerializeStruct for &mut Keys {
    type Ok = ();
    type Error = Stop;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        _: &T,
    ) -> Result<(), Stop> {
        self.0.push(key.to_string());
        Ok(())
    }
    fn skip_field(&mut self, key: &'static str) -> Result<(), Stop> {
        self.0.push(key.to_string());
        Ok(())
    }
    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

macro_rules! refuse {
    ($($name:ident($($arg:ty),*)),* $(,)?) => {
        $(fn $name(self, $(_: $arg),*) -> Result<(), Stop> { Err(Stop) })*
    };
}

impl<'a> ser::Serializer for &'a mut Keys {
    type Ok = ();
    type Error = Stop;
    type SerializeSeq = ser::Impossible<(), Stop>;
    type SerializeTuple = ser::Impossible<(), Stop>;
    type SerializeTupleStruct = ser::Impossible<(), Stop>;
    type SerializeTupleVariant = ser::Impossible<(), Stop>;
    type SerializeMap = ser::Impossible<(), Stop>;
    type SerializeStruct = &'a mut Keys;
    type SerializeStructVariant = ser::Impossible<(), Stop>;
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Stop> {
        Ok(self)
    }
    refuse! {
        serialize_bool(bool), serialize_i8(i8), serialize_i16(i16), serialize_i32(i32),
        serialize_i64(i64), serialize_u8(u8), serialize_u16(u16), serialize_u32(u32),
        serialize_u64(u64), serialize_f32(f32), serialize_f64(f64), serialize_char(char),
        serialize_str(&str), serialize_bytes(&[u8]), serialize_none(), serialize_unit(),
        serialize_unit_struct(&'static str), serialize_unit_variant(&'static str, u32, &'static str),
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<(), Stop> {
        Err(Stop)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<(), Stop> {
        Err(Stop)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Stop> {
        Err(Stop)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Stop> {
        Err(Stop)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Stop> {
        Err(Stop)
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Stop> {
        Err(Stop)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Stop> {
        Err(Stop)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Stop> {
        Err(Stop)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Stop> {
        Err(Stop)
    }
}

/// The keys of a `Serialize` struct value (its own, not its nested values').
fn keys<T: Serialize>(value: &T) -> Vec<String> {
    let mut keys = Keys::default();
    value
        .serialize(&mut keys)
        .unwrap_or_else(|_| panic!("{} is not written as a struct", std::any::type_name::<T>()));
    keys.0
}

/// The variants of a tagged union: `{ tagValue: [keys…] }`, one value per variant.
fn tagged<T: Serialize>(tag: &str, values: &[T]) -> Value {
    let mut variants = serde_json::Map::new();
    for value in values {
        let Value::Object(object) = serde_json::to_value(value).expect("serializable") else {
            panic!("a tagged union is written as an object");
        };
        let name = object[tag].as_str().expect("a string tag").to_string();
        let fields: Vec<Value> = object.keys().map(|k| Value::from(k.as_str())).collect();
        variants.insert(name, Value::Array(fields));
    }
    Value::Object(variants)
}

/// `fields` with `field` replaced by the fields of its value, where they stand.
fn spread(fields: Vec<String>, field: &str, inner: Vec<String>) -> Vec<String> {
    assert!(fields.iter().any(|f| f == field), "no field `{field}`");
    fields
        .into_iter()
        .flat_map(|f| if f == field { inner.clone() } else { vec![f] })
        .collect()
}

fn strs(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| (*s).to_string()).collect()
}

// ─── Values for the Serialize-only types ────────────────────────────────────────────────────────

fn entry() -> Entry {
    serde_json::from_value(json!({
        "id": "e", "userId": "u", "key": "k", "value": 1, "category": "fact", "visibility": "self",
        "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z"
    }))
    .expect("an entry")
}

fn fit_report() -> FitReport {
    FitReport {
        text: String::new(),
        condensed: false,
        model_condensed: false,
        truncated: false,
        tokens_before: None,
        tokens_after: 0,
        removed_duplicates: 0,
        removed_topics: 0,
        model_usage: None,
        model_error: None,
    }
}

fn turn_report() -> TurnReport {
    TurnReport {
        outcome: TurnOutcome::Updated,
        reason: None,
        gate: None,
        gate_error: None,
        usage: TurnUsage::default(),
        timings: TurnTimings::default(),
        attempts: 0,
        turn_count: None,
        tokens: None,
        redacted_secrets: 0,
        learned: Some(memcore::learn::LearnReport::failed_with("")),
    }
}

/// Every shape of the contract, by the name the typings give it. A key `A.b` is the object
/// type of property `b` of `A`; `A.b[]` its element type.
fn shapes() -> BTreeMap<&'static str, Value> {
    let fields = |rust: &str, fields: Vec<String>| json!({ "rust": rust, "fields": fields });
    let variants = |rust: &str, names: Vec<String>| json!({ "rust": rust, "variants": names });
    let union = |rust: &str, tag: &str, members: Value| json!({ "rust": rust, "tag": tag, "members": members });
    let mut s = BTreeMap::new();

    // Errors
    s.insert(
        "MemcoreErrorCode",
        variants("memcore::ErrorCode", strs(ErrorCode::NAMES)),
    );

    // Profile format
    s.insert(
        "FrontmatterField",
        fields(
            "memcore::profile::FrontmatterField",
            names::<FrontmatterField>(),
        ),
    );
    s.insert(
        "Frontmatter",
        fields("memcore::profile::Frontmatter", names::<Frontmatter>()),
    );
    s.insert(
        "Section",
        fields("memcore::profile::Section", names::<Section>()),
    );
    s.insert(
        "Profile",
        fields("memcore::profile::Profile", names::<Profile>()),
    );
    s.insert(
        "ParsedProfile",
        fields(
            "memcore::profile::ParsedProfile, its `profile` spread (js/wire.js rebuilds it)",
            spread(names::<ParsedProfile>(), "profile", names::<Profile>()),
        ),
    );
    s.insert(
        "Diagnostic",
        fields("memcore::profile::Diagnostic", names::<Diagnostic>()),
    );
    s.insert(
        "Diagnostic.severity",
        variants("memcore::profile::Severity", names::<Severity>()),
    );
    s.insert(
        "DiagnosticCode",
        variants(
            "memcore::profile::DiagnosticCode",
            strs(DiagnosticCode::NAMES),
        ),
    );

    // Settings: paths, enablement, editing
    s.insert(
        "RootInfo",
        fields("memcore::profile::RootInfo", names::<RootInfo>()),
    );
    s.insert(
        "EnablementInputs",
        fields(
            "memcore::profile::EnablementInputs",
            names::<EnablementInputs>(),
        ),
    );
    s.insert(
        "EnablementInputs.allowWithWebSearch",
        fields(
            "memcore::profile::AllowWithWebSearch",
            names::<memcore::profile::AllowWithWebSearch>(),
        ),
    );
    s.insert(
        "EnablementReason",
        variants(
            "memcore::profile::EnablementReason",
            strs(EnablementReason::NAMES),
        ),
    );
    s.insert(
        "Enablement",
        fields("memcore::profile::Enablement", names::<Enablement>()),
    );
    s.insert(
        "EnablementWarning",
        fields(
            "memcore::profile::EnablementWarning",
            names::<EnablementWarning>(),
        ),
    );
    s.insert(
        "EnablementWarningCode",
        variants(
            "memcore::profile::EnablementWarningCode",
            strs(memcore::profile::EnablementWarningCode::NAMES),
        ),
    );
    s.insert(
        "MemoryView",
        fields("memcore::profile::MemoryView", names::<MemoryView>()),
    );
    s.insert(
        "EditResult",
        fields("memcore::profile::EditResult", names::<EditResult>()),
    );

    // Tokens and fitting
    let encodings: Vec<String> = [Encoding::O200kBase, Encoding::Cl100kBase]
        .iter()
        .map(|e| {
            // A new encoding fails to compile here, so it cannot be forgotten.
            match e {
                Encoding::O200kBase | Encoding::Cl100kBase => e.name().to_string(),
            }
        })
        .collect();
    s.insert(
        "Encoding",
        variants("memcore::profile::tokens::Encoding", encodings),
    );
    s.insert(
        "TruncateOutcome",
        fields(
            "memcore::profile::TruncateOutcome",
            keys(&TruncateOutcome {
                text: String::new(),
                truncated: false,
                tokens_before: None,
                tokens_after: 0,
            }),
        ),
    );
    s.insert(
        "CondenseOutcome",
        fields(
            "memcore::profile::CondenseOutcome",
            keys(&CondenseOutcome {
                text: String::new(),
                changed: false,
                removed_duplicates: 0,
                removed_topics: 0,
                tokens_before: None,
                tokens_after: None,
            }),
        ),
    );
    s.insert(
        "FitReport",
        fields("memcore::profile::FitReport", keys(&fit_report())),
    );
    s.insert(
        "ModelRequest",
        fields(
            "memcore::host::CompletionRequest",
            names::<CompletionRequest>(),
        ),
    );
    s.insert(
        "ModelRequest.purpose",
        variants("memcore::host::Purpose", names::<Purpose>()),
    );
    s.insert(
        "ModelUsage",
        fields("memcore::host::Usage", names::<Usage>()),
    );

    // Entry memory
    s.insert("Entry", fields("memcore::entries::Entry", names::<Entry>()));
    s.insert(
        "Visibility",
        variants("memcore::entries::Visibility", names::<Visibility>()),
    );
    s.insert(
        "RecallOrder",
        variants("memcore::entries::RecallOrder", names::<RecallOrder>()),
    );
    s.insert(
        "OnCapReached",
        variants("memcore::entries::OnCapReached", names::<OnCapReached>()),
    );
    s.insert(
        "SecretPolicy",
        variants("memcore::secrets::SecretPolicy", strs(SecretPolicy::NAMES)),
    );
    s.insert(
        "UserMemoryConfig",
        fields(
            "memcore::entries::UserMemoryConfig",
            names::<UserMemoryConfig>(),
        ),
    );
    s.insert(
        "UserMemoryConfigInput",
        fields(
            "memcore::entries::UserMemoryConfig",
            names::<UserMemoryConfig>(),
        ),
    );
    s.insert(
        "UserMemoryConfig.guardrails",
        fields(
            "memcore::entries::config::Guardrails",
            names::<Guardrails>(),
        ),
    );
    s.insert(
        "UserMemoryConfigInput.guardrails",
        fields(
            "memcore::entries::config::Guardrails",
            names::<Guardrails>(),
        ),
    );
    s.insert(
        "DreamConfig",
        fields(
            "memcore::entries::config::DreamConfig",
            names::<DreamConfig>(),
        ),
    );
    s.insert(
        "DreamMode",
        variants(
            "memcore::entries::config::DreamMode",
            names::<memcore::entries::config::DreamMode>(),
        ),
    );
    s.insert(
        "DreamConfig.summarizeGroupBy",
        variants(
            "memcore::entries::SummarizeGroupBy",
            names::<SummarizeGroupBy>(),
        ),
    );
    s.insert(
        "GroupAttestation",
        fields(
            "memcore::entries::visibility::GroupAttestation",
            names::<GroupAttestation>(),
        ),
    );
    s.insert(
        "Violation",
        fields(
            "memcore::entries::write_rules::Violation",
            keys(&Violation {
                field: String::new(),
                message: String::new(),
            }),
        ),
    );
    s.insert(
        "ToolAttachment",
        fields(
            "memcore::entries::ToolAttachment",
            names::<ToolAttachment>(),
        ),
    );
    s.insert(
        "LongTermProperty",
        fields(
            "memcore::entries::properties::LongTermProperty",
            names::<LongTermProperty>(),
        ),
    );
    s.insert(
        "PersistReport",
        fields(
            "memcore::entries::properties::PersistReport",
            names::<PersistReport>(),
        ),
    );

    // The entry-store host protocol
    s.insert(
        "RecallQuery",
        fields(
            "memcore::entries::store::RecallQuery",
            keys(&memcore::entries::store::RecallQuery {
                user_id: "",
                agent_id: "",
                group_id: None,
                order: RecallOrder::MostRecent,
                limit: 0,
            }),
        ),
    );
    s.insert(
        "OwnEntriesQuery",
        fields(
            "memcore::entries::store::OwnQuery",
            keys(&memcore::entries::store::OwnQuery {
                user_id: "",
                agent_id: "",
                limit: 0,
            }),
        ),
    );
    s.insert(
        "CapWrite",
        fields(
            "memcore::entries::store::CapWrite",
            names::<memcore::entries::store::CapWrite>(),
        ),
    );

    // Data-subject rights
    s.insert(
        "UserDataExport",
        fields("memcore::rights::UserDataExport", names::<UserDataExport>()),
    );
    s.insert(
        "ErasureStoreReport",
        fields(
            "memcore::rights::ErasureReport",
            keys(&ErasureReport {
                user_id: String::new(),
                entries: None,
                profile: None,
                history: None,
                episodes: None,
            }),
        ),
    );
    s.insert(
        "IndexColumns",
        fields(
            "memcore::entries::index_columns::IndexColumns",
            keys(&memcore::entries::index_columns::index_columns(
                "k", "", "1",
            )),
        ),
    );
    s.insert(
        "PrefilterTest",
        fields(
            "memcore::entries::index_columns::PrefilterTest",
            keys(
                &memcore::entries::index_columns::search_prefilter("dog")
                    .long
                    .remove(0),
            ),
        ),
    );
    s.insert(
        "RestrictionChange",
        fields(
            "memcore::rights::RestrictionChange",
            keys(&RestrictionChange {
                restricted: false,
                changed: false,
            }),
        ),
    );
    s.insert(
        "ImportReport",
        fields(
            "memcore::rights::ImportReport",
            keys(&ImportReport {
                entries: 0,
                profile: false,
                secrets: Vec::new(),
                history: memcore::rights::import::ImportedHistory::default(),
                vectors: memcore::rights::import::ImportedVectors::default(),
                episodes: 0,
            }),
        ),
    );
    s.insert(
        "ImportedHistory",
        fields(
            "memcore::rights::import::ImportedHistory",
            keys(&memcore::rights::import::ImportedHistory::default()),
        ),
    );
    s.insert(
        "ImportedVectors",
        fields(
            "memcore::rights::import::ImportedVectors",
            keys(&memcore::rights::import::ImportedVectors::default()),
        ),
    );
    s.insert(
        "ImportedSecret",
        fields(
            "memcore::rights::import::ImportedSecret",
            keys(&memcore::rights::import::ImportedSecret {
                entry_id: None,
                field: SecretField::Key,
                path: String::new(),
                kind: CredentialKind::Jwt,
            }),
        ),
    );
    s.insert(
        "ImportedSecret.field",
        variants(
            "memcore::secrets::SecretField",
            vec![
                serde_json::to_value(SecretField::Key)
                    .expect("a name")
                    .as_str()
                    .expect("text")
                    .to_string(),
                serde_json::to_value(SecretField::Value)
                    .expect("a name")
                    .as_str()
                    .expect("text")
                    .to_string(),
                serde_json::to_value(SecretField::Body)
                    .expect("a name")
                    .as_str()
                    .expect("text")
                    .to_string(),
            ],
        ),
    );

    // The surface operations
    s.insert(
        "UpsertOutcome",
        union(
            "memcore::entries::memories::UpsertOutcome",
            "outcome",
            tagged(
                "outcome",
                &[
                    UpsertOutcome::Stored {
                        entry: entry(),
                        created: true,
                        evicted: Vec::new(),
                    },
                    UpsertOutcome::Unchanged { entry: entry() },
                    UpsertOutcome::Invalid {
                        violations: Vec::new(),
                    },
                    UpsertOutcome::Full {
                        message: String::new(),
                    },
                    UpsertOutcome::Restricted {
                        message: String::new(),
                    },
                    UpsertOutcome::Secret {
                        field: String::new(),
                        kind: CredentialKind::Jwt,
                        message: String::new(),
                    },
                    UpsertOutcome::Conflict {
                        message: String::new(),
                    },
                ],
            ),
        ),
    );
    s.insert(
        "DeleteOutcome",
        union(
            "memcore::entries::memories::DeleteOutcome",
            "outcome",
            tagged(
                "outcome",
                &[
                    DeleteOutcome::Deleted {
                        entry: Box::new(entry()),
                    },
                    DeleteOutcome::NotFound,
                    DeleteOutcome::Reserved,
                    DeleteOutcome::Foreign,
                ],
            ),
        ),
    );

    // Credentials and the legacy migration
    s.insert(
        "CredentialKind",
        variants(
            "memcore::migrate::CredentialKind",
            strs(CredentialKind::NAMES),
        ),
    );
    s.insert(
        "LegacyKeySkipReason",
        variants(
            "memcore::migrate::legacy::KeySkipReason",
            strs(KeySkipReason::NAMES),
        ),
    );
    s.insert(
        "LegacyDocumentSkipReason",
        variants(
            "memcore::migrate::legacy::DocumentSkipReason",
            strs(DocumentSkipReason::NAMES),
        ),
    );
    s.insert(
        "LegacyInsertOutcome",
        variants(
            "memcore::migrate::legacy::InsertOutcome",
            strs(InsertOutcome::NAMES),
        ),
    );
    s.insert(
        "LegacyKeySkip",
        fields(
            "memcore::migrate::legacy::KeySkip",
            keys(&KeySkip {
                key: String::new(),
                reason: KeySkipReason::SkipKey,
                kind: None,
                count: 0,
            }),
        ),
    );
    s.insert(
        "LegacyMigrationOptions",
        fields(
            "memcore::migrate::legacy::MigrationOptions",
            names::<MigrationOptions>(),
        ),
    );
    s.insert(
        "PropertiesMigrationPlan",
        fields(
            "memcore::migrate::legacy::MigrationPlan",
            keys(&MigrationPlan {
                inserts: Vec::new(),
                skipped_keys: Vec::new(),
                skipped_documents: Vec::new(),
                may_rename: false,
            }),
        ),
    );
    s.insert(
        "PropertiesMigrationPlan.inserts[]",
        fields(
            "memcore::migrate::legacy::LegacyInsert",
            names::<LegacyInsert>(),
        ),
    );
    s.insert(
        "PropertiesMigrationPlan.skippedDocuments[]",
        fields(
            "memcore::migrate::legacy::DocumentSkip",
            keys(&DocumentSkip {
                index: 0,
                id: None,
                reason: DocumentSkipReason::NoUserId,
            }),
        ),
    );
    s.insert(
        "PropertiesMigrationReport",
        fields(
            "memcore::migrate::legacy::MigrationReport",
            keys(&MigrationReport::default()),
        ),
    );
    s.insert(
        "PropertiesMigrationReport.outcomes[]",
        fields(
            "memcore::migrate::legacy::InsertReport",
            keys(&InsertReport {
                user_id: String::new(),
                key: String::new(),
                outcome: InsertOutcome::Inserted,
                id: None,
                error: None,
            }),
        ),
    );
    s.insert(
        "PropertiesMigrationReport.outcomes[].error",
        fields(
            "memcore::migrate::legacy::InsertError",
            keys(&InsertError {
                code: String::new(),
                message: String::new(),
            }),
        ),
    );

    // Dream
    s.insert(
        "DreamSkipReason",
        variants("memcore::dream::SkipReason", strs(SkipReason::NAMES)),
    );
    s.insert(
        "DreamErrorCode",
        variants(
            "memcore::dream::DreamErrorCode",
            strs(DreamErrorCode::NAMES),
        ),
    );
    s.insert(
        "DreamContradiction",
        fields(
            "memcore::dream::report::Contradiction",
            keys(&Contradiction {
                key: String::new(),
                agents: Vec::new(),
                entry_ids: Vec::new(),
                overwritten_at: None,
            }),
        ),
    );
    s.insert(
        "DreamReport",
        fields("memcore::dream::DreamReport", keys(&DreamReport::default())),
    );
    s.insert(
        "DreamReport.groupsSkipped[]",
        fields(
            "memcore::dream::report::SkippedGroup",
            keys(&SkippedGroup {
                group: String::new(),
                reason: SkipReason::Stopped,
            }),
        ),
    );
    s.insert(
        "DreamReport.originalsKept[]",
        fields(
            "memcore::dream::report::KeptOriginal",
            keys(&KeptOriginal {
                group: String::new(),
                entry_id: String::new(),
                code: String::new(),
                message: String::new(),
            }),
        ),
    );
    s.insert(
        "DreamReport.error",
        fields(
            "memcore::dream::report::DreamError",
            keys(&DreamError {
                code: DreamErrorCode::Disabled,
                message: String::new(),
            }),
        ),
    );
    s.insert(
        "ModelPrice",
        fields(
            "memcore::dream::input::Price",
            names::<memcore::dream::input::Price>(),
        ),
    );
    s.insert(
        "DreamOptions",
        fields(
            "memcore::dream::input::DreamInput",
            names::<memcore::dream::input::DreamInput>(),
        ),
    );
    s.insert(
        "DreamMetricsSnapshot",
        fields(
            "memcore::dream::metrics::MetricsSnapshot",
            keys(&MetricsSnapshot::default()),
        ),
    );

    // Profile memory: the turn pipeline
    s.insert(
        "ProfileWriteOptions",
        fields("memcore::host::WriteOptions", names::<WriteOptions>()),
    );
    s.insert(
        "Notice",
        union(
            "memcore::host::Notice",
            "kind",
            tagged(
                "kind",
                &[
                    memcore::host::Notice::Show {
                        text: String::new(),
                    },
                    memcore::host::Notice::Clear,
                ],
            ),
        ),
    );
    s.insert(
        "ContextMemoryConfig",
        fields(
            "memcore::turn::ContextMemoryConfig",
            names::<ContextMemoryConfig>(),
        ),
    );
    s.insert(
        "ContextMemoryConfig.timeouts",
        fields("memcore::turn::config::Timeouts", names::<Timeouts>()),
    );
    s.insert(
        "RelevantMemories",
        fields(
            "memcore::entries::relevant::Relevant",
            keys(&memcore::entries::relevant::Relevant::empty()),
        ),
    );
    s.insert(
        "ReindexReport",
        fields(
            "memcore::entries::embedding::Reindexed",
            keys(&memcore::entries::embedding::Reindexed {
                embedded: 0,
                missing: 0,
                error: Some(String::new()),
            }),
        ),
    );
    // Learning (SPEC §8.6)
    {
        use memcore::entries::config::{AnswersConfig, LearnConfig};
        use memcore::learn::{FactAction, LearnOutcome, LearnReport, LearnedFact};
        let fact = LearnedFact {
            key: "k".into(),
            action: FactAction::Added,
            entry_id: Some("e".into()),
            reason: Some("r".into()),
        };
        let report = LearnReport {
            outcome: LearnOutcome::Learned,
            reason: Some("r".into()),
            facts: vec![fact.clone()],
            ignored: 0,
            episodes: Vec::new(),
            usage: Some(memcore::host::Usage::default()),
        };
        s.insert(
            "AnswersConfig",
            fields(
                "memcore::entries::config::AnswersConfig",
                names::<AnswersConfig>(),
            ),
        );
        s.insert(
            "LearnConfig",
            fields(
                "memcore::entries::config::LearnConfig",
                names::<LearnConfig>(),
            ),
        );
        s.insert(
            "LearnReport",
            fields("memcore::learn::LearnReport", keys(&report)),
        );
        s.insert(
            "LearnedFact",
            fields("memcore::learn::LearnedFact", keys(&fact)),
        );
        s.insert(
            "LearnOutcome",
            variants("memcore::learn::LearnOutcome", names::<LearnOutcome>()),
        );
        use memcore::entries::episode::{Episode, EpisodeHit};
        s.insert(
            "Episode",
            fields("memcore::entries::episode::Episode", names::<Episode>()),
        );
        s.insert(
            "EpisodeHit",
            fields(
                "memcore::entries::episode::EpisodeHit",
                keys(&EpisodeHit {
                    id: String::new(),
                    conversation_id: String::new(),
                    role: String::new(),
                    text: String::new(),
                    at: String::new(),
                    score: 0.0,
                }),
            ),
        );
        s.insert(
            "LearnedFactAction",
            variants("memcore::learn::FactAction", names::<FactAction>()),
        );
    }
    // History (SPEC §8.3)
    {
        use memcore::entries::config::HistoryConfig;
        use memcore::entries::history::{
            AuditQuery, AuditRecord, Author, AuthorKind, History, HistoryAppend, HistorySize,
            Operation, Reason, Source, Version, VersionQuery,
        };
        use memcore::entries::restore::RestoreOutcome;
        s.insert(
            "HistoryConfig",
            fields(
                "memcore::entries::config::HistoryConfig",
                names::<HistoryConfig>(),
            ),
        );
        s.insert(
            "ChangeAuthor",
            fields("memcore::entries::history::Author", names::<Author>()),
        );
        s.insert(
            "ChangeAuthor.kind",
            variants(
                "memcore::entries::history::AuthorKind",
                names::<AuthorKind>(),
            ),
        );
        s.insert(
            "ChangeReason",
            variants("memcore::entries::history::Reason", names::<Reason>()),
        );
        s.insert(
            "EntryVersion",
            fields("memcore::entries::history::Version", names::<Version>()),
        );
        s.insert(
            "HistoryAppend",
            fields(
                "memcore::entries::history::HistoryAppend",
                keys(&HistoryAppend {
                    user_id: "",
                    versions: &[],
                    audit: &[],
                    max_versions_per_entry: 0,
                    not_before: String::new(),
                }),
            ),
        );
        s.insert(
            "AuditRecord",
            fields(
                "memcore::entries::history::AuditRecord",
                names::<AuditRecord>(),
            ),
        );
        s.insert(
            "AuditOperation",
            variants("memcore::entries::history::Operation", names::<Operation>()),
        );
        s.insert(
            "LearnedSource",
            fields("memcore::entries::history::Source", names::<Source>()),
        );
        s.insert(
            "AuditQuery",
            fields(
                "memcore::entries::history::AuditQuery",
                keys(&AuditQuery {
                    user_id: Some(""),
                    since: Some(""),
                    after_seq: Some(0),
                    limit: 0,
                }),
            ),
        );
        s.insert(
            "RestoreOutcome",
            union(
                "memcore::entries::restore::RestoreOutcome",
                "outcome",
                tagged(
                    "outcome",
                    &[
                        RestoreOutcome::Restored {
                            entry: Box::new(entry()),
                        },
                        RestoreOutcome::Unchanged {
                            entry: Box::new(entry()),
                        },
                        RestoreOutcome::NotFound,
                        RestoreOutcome::Conflict {
                            entry: Some(Box::new(entry())),
                            message: String::new(),
                        },
                        RestoreOutcome::Full {
                            message: String::new(),
                        },
                        RestoreOutcome::Restricted {
                            message: String::new(),
                        },
                    ],
                ),
            ),
        );
        s.insert(
            "HistorySize",
            fields(
                "memcore::entries::history::HistorySize",
                names::<HistorySize>(),
            ),
        );
        s.insert(
            "HistoryErasure",
            fields(
                "memcore::entries::history::HistoryErasure",
                names::<memcore::entries::history::HistoryErasure>(),
            ),
        );
        s.insert(
            "HistoryRenamed",
            fields(
                "memcore::entries::history::Renamed",
                names::<memcore::entries::history::Renamed>(),
            ),
        );
        s.insert(
            "HistoryRenames",
            fields(
                "memcore::entries::history::HistoryRenames",
                keys(&memcore::entries::history::HistoryRenames {
                    pseudonym: String::new(),
                    versions: Vec::new(),
                }),
            ),
        );
        s.insert(
            "VersionRename",
            fields(
                "memcore::entries::history::VersionRename",
                keys(&memcore::entries::history::VersionRename {
                    replaces: String::new(),
                    version: Version::of(
                        &entry(),
                        String::new(),
                        &Author::new(AuthorKind::Rest, None),
                        Reason::Updated,
                        None,
                    ),
                }),
            ),
        );
        s.insert(
            "IdHolder",
            fields(
                "memcore::entries::store::IdHolder",
                names::<memcore::entries::store::IdHolder>(),
            ),
        );
        s.insert(
            "VersionQuery",
            fields(
                "memcore::entries::history::VersionQuery",
                keys(&VersionQuery {
                    user_id: "",
                    entry_id: Some(""),
                    key: Some(""),
                }),
            ),
        );
        s.insert(
            "EntryHistory",
            fields(
                "memcore::entries::history::History",
                keys(&History {
                    current: Vec::new(),
                    versions: Vec::new(),
                }),
            ),
        );
    }
    s.insert(
        "SearchMode",
        variants(
            "memcore::entries::config::SearchMode",
            strs(memcore::entries::config::SearchMode::NAMES),
        ),
    );
    s.insert(
        "SearchConfigInput",
        fields(
            "memcore::entries::config::SearchConfig",
            keys(&memcore::entries::config::SearchConfig::default()),
        ),
    );
    s.insert(
        "UnembeddedQuery",
        fields(
            "memcore::entries::store::UnembeddedQuery",
            keys(&memcore::entries::store::UnembeddedQuery {
                model: "m",
                user_id: Some("u"),
                after: Some("a"),
                limit: 1,
            }),
        ),
    );
    s.insert(
        "LoadOutcome",
        variants("memcore::turn::LoadOutcome", strs(LoadOutcome::NAMES)),
    );
    s.insert(
        "LoadResult",
        fields(
            "memcore::turn::LoadResult",
            keys(&LoadResult {
                profile: None,
                system_prompt_section: String::new(),
                fit: None,
                version: None,
                outcome: LoadOutcome::Loaded,
                reason: None,
                relevant: Some(memcore::entries::relevant::Relevant::empty()),
            }),
        ),
    );
    s.insert(
        "TurnOutcome",
        variants("memcore::turn::TurnOutcome", strs(TurnOutcome::NAMES)),
    );
    s.insert(
        "TurnReport",
        fields("memcore::turn::TurnReport", keys(&turn_report())),
    );
    s.insert(
        "TurnReport.gate",
        variants("memcore::turn::GateDecision", names::<GateDecision>()),
    );
    s.insert(
        "TurnReport.usage",
        fields("memcore::turn::TurnUsage", keys(&TurnUsage::default())),
    );
    s.insert(
        "TurnReport.timings",
        fields("memcore::turn::TurnTimings", keys(&TurnTimings::default())),
    );

    // Turn prompts
    s.insert(
        "Consolidation",
        union(
            "memcore::turn::Consolidation",
            "kind",
            tagged(
                "kind",
                &[
                    Consolidation::Noop,
                    Consolidation::Body {
                        body: String::new(),
                    },
                    Consolidation::Invalid {
                        reason: String::new(),
                    },
                ],
            ),
        ),
    );
    s
}

#[test]
fn the_blessed_shapes_equal_the_serde_types() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/shapes.json");
    let mut text = serde_json::to_string_pretty(&shapes()).expect("JSON");
    text.push('\n');
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, &text).expect("tests/vectors/shapes.json is writable");
        return;
    }
    let blessed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        blessed == text,
        "tests/vectors/shapes.json differs from the serde types: update the typings \
         (js/types/*.d.ts) with the Rust change, then run `BLESS=1 cargo test --test shapes` \
         (tests/js/shapes.test.mjs compares the typings with the blessed list)"
    );
}

#[test]
fn the_introspection_reads_what_serde_reads() {
    // `deny_unknown_fields` quotes the same list in its error.
    let error = serde_json::from_value::<ContextMemoryConfig>(json!({ "nope": 1 }))
        .unwrap_err()
        .to_string();
    let quoted: Vec<String> = names::<ContextMemoryConfig>()
        .iter()
        .map(|name| format!("`{name}`"))
        .collect();
    assert!(error.contains(&quoted.join(", ")), "{error}");
    // A skipped key is kept: DreamReport's `error` is written only when present.
    assert!(keys(&DreamReport::default()).contains(&"error".to_string()));
    assert!(!serde_json::to_value(DreamReport::default())
        .expect("JSON")
        .as_object()
        .expect("object")
        .contains_key("error"));
}
