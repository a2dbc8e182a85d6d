//! Long-term properties and the legacy flat view (SPEC §2.7), tool definitions, and the
//! ordering/visibility properties that must hold for any input.

mod common;

use common::*;
use memcore::entries::config::{RecallOrder, UserMemoryConfig, Visibility};
use memcore::entries::properties::*;
use memcore::entries::recall::order_for_recall;
use memcore::entries::tools::tool_definitions;
use memcore::entries::visibility::is_visible;
use memcore::secrets::SecretPolicy;
use memcore::ErrorCode;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

fn scope(group: Option<&str>) -> PropertyScope {
    PropertyScope {
        user_id: "u1".into(),
        agent_id: "agent-a".into(),
        group: group.map(str::to_string),
        conversation_id: Some("conv-1".into()),
    }
}

fn prop(name: &str, value: Value, visibility: Option<Visibility>) -> LongTermProperty {
    LongTermProperty {
        name: name.into(),
        value,
        visibility,
    }
}

#[test]
fn long_term_properties_use_default_visibility_and_group_falls_back_to_self() {
    let store = MemStore::default();
    let clock = TestClock::at("2026-06-17T12:00:00Z");
    let ids = CounterIds::default();
    let config = UserMemoryConfig {
        default_visibility: Visibility::SelfOnly,
        ..Default::default()
    };
    let props = [
        prop("city", json!("Berlin"), None),
        prop("team", json!("blue"), Some(Visibility::Group)),
        prop("lang", json!("de"), Some(Visibility::Global)),
        prop("_gdpr_x", json!(1), Some(Visibility::Global)),
    ];
    let report = block_on(persist_long_term_properties(
        &store,
        &clock,
        &ids,
        &config,
        &scope(None),
        &props,
    ))
    .unwrap();
    assert_eq!(report.stored, ["city", "team", "lang"]);
    assert_eq!(report.refused.len(), 1);
    assert_eq!(report.refused[0].0, "_gdpr_x");
    let stored = store.snapshot();
    let vis = |k: &str| {
        stored
            .iter()
            .find(|e| e.key == k)
            .unwrap()
            .visibility
            .clone()
    };
    assert_eq!(vis("city"), "self");
    assert_eq!(vis("team"), "self");
    assert_eq!(vis("lang"), "global");
    assert!(stored.iter().all(|e| e.category == "property"));

    // Same values again: nothing rewritten. In a group, `team` becomes a group entry.
    let again = block_on(persist_long_term_properties(
        &store,
        &clock,
        &ids,
        &config,
        &scope(Some("G1")),
        &props,
    ))
    .unwrap();
    assert_eq!(again.unchanged, ["city", "lang"]);
    assert_eq!(again.stored, ["team"]);
    let team = store
        .snapshot()
        .into_iter()
        .find(|e| e.key == "team")
        .unwrap();
    assert_eq!(
        (team.visibility.as_str(), team.group_ids),
        ("group", vec!["G1".to_string()])
    );
}

#[test]
fn self_property_never_touches_the_global_entry() {
    let store = MemStore::with(vec![entry_from(
        &json!({"id": "g", "key": "city", "value": "Paris", "visibility": "global", "sourceAgentId": "agent-b"}),
    )]);
    let clock = TestClock::at("2026-06-17T12:00:00Z");
    let props = [prop("city", json!("Berlin"), Some(Visibility::SelfOnly))];
    block_on(persist_long_term_properties(
        &store,
        &clock,
        &CounterIds::default(),
        &UserMemoryConfig::default(),
        &scope(None),
        &props,
    ))
    .unwrap();
    let stored = store.snapshot();
    assert_eq!(stored.len(), 2);
    assert_eq!(stored[0].value, json!("Paris"));
}

#[test]
fn restricted_user_gets_no_properties() {
    let store = MemStore::with(vec![entry_from(
        &json!({"id": "r", "key": "_gdpr_processing_restricted", "value": true}),
    )]);
    let clock = TestClock::at("2026-06-17T12:00:00Z");
    let report = block_on(persist_long_term_properties(
        &store,
        &clock,
        &CounterIds::default(),
        &UserMemoryConfig::default(),
        &scope(None),
        &[prop("a", json!(1), None)],
    ))
    .unwrap();
    assert!(report.restricted);
    assert_eq!(store.snapshot().len(), 1);
}

#[test]
fn legacy_flat_view_reads_merges_and_deletes_global_entries_only() {
    let writing = Writing::default();
    let store = MemStore::with(vec![
        entry_from(&json!({"id": "1", "key": "lang", "value": "de", "category": "legacy"})),
        entry_from(
            &json!({"id": "2", "key": "note", "value": "x", "visibility": "self", "sourceAgentId": "a"}),
        ),
        entry_from(&json!({"id": "3", "key": "_gdpr_processing_restricted", "value": true})),
    ]);
    let clock = TestClock::at("2026-06-17T12:00:00Z");
    let ids = CounterIds::default();
    assert_eq!(
        block_on(read_properties(&store, "u1")).unwrap(),
        *json!({"lang": "de"}).as_object().unwrap()
    );

    let mut merge = Map::new();
    merge.insert("lang".into(), json!("en"));
    merge.insert("tz".into(), json!("CET"));
    assert_eq!(
        block_on(merge_properties(
            &store,
            writing.writer(&clock),
            &ids,
            "u1",
            &merge,
            SecretPolicy::Refuse
        ))
        .unwrap(),
        2
    );
    assert_eq!(
        block_on(read_properties(&store, "u1")).unwrap(),
        *json!({"lang": "en", "tz": "CET"}).as_object().unwrap()
    );
    let lang = store
        .snapshot()
        .into_iter()
        .find(|e| e.key == "lang")
        .unwrap();
    assert_eq!(lang.category, "legacy");

    let mut bad = Map::new();
    bad.insert("ok".into(), json!(1));
    bad.insert("_gdpr_processing_restricted".into(), json!(false));
    let err = block_on(merge_properties(
        &store,
        writing.writer(&clock),
        &ids,
        "u1",
        &bad,
        SecretPolicy::Refuse,
    ))
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Argument);
    assert!(store.snapshot().iter().all(|e| e.key != "ok"));

    assert_eq!(
        block_on(delete_properties(&store, writing.writer(&clock), "u1")).unwrap(),
        2
    );
    let keys: Vec<String> = store.snapshot().into_iter().map(|e| e.key).collect();
    assert_eq!(keys, ["note", "_gdpr_processing_restricted"]);
}

#[test]
fn tool_definitions_cover_three_formats() {
    let defs = tool_definitions();
    for (format, name_path) in [
        ("openai", "/function/name"),
        ("anthropic", "/name"),
        ("mcp", "/name"),
    ] {
        let names: Vec<&str> = defs[format]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.pointer(name_path).unwrap().as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "rememberFact",
                "recallMemories",
                "searchMemory",
                "forgetFact",
                "memoryHistory"
            ],
            "{format}"
        );
    }
    assert_eq!(
        defs["anthropic"][0]["input_schema"]["properties"]["category"]["enum"],
        json!(["preference", "fact", "context"])
    );
    assert_eq!(
        defs["mcp"][0]["inputSchema"]["required"],
        json!(["key", "value", "category"])
    );
}

fn arb_entry() -> impl Strategy<Value = memcore::entries::Entry> {
    (0u32..50, 0u64..5, 0u32..10, prop::sample::select(vec!["self", "group", "global"]), 0u8..3)
        .prop_map(|(id, access, minute, vis, agent)| {
            entry_from(&json!({
                "id": format!("e{id:02}"), "key": "k", "value": id, "visibility": vis,
                "sourceAgentId": format!("agent-{agent}"), "groupIds": if vis == "group" { json!(["G1"]) } else { json!([]) },
                "accessCount": access, "updatedAt": format!("2026-06-01T00:{minute:02}:00Z")
            }))
        })
}

proptest! {
    #[test]
    fn recall_never_duplicates_and_respects_the_limit(
        entries in prop::collection::vec(arb_entry(), 0..20), limit in 0usize..12, accessed in any::<bool>()
    ) {
        let mut unique = entries;
        unique.sort_by(|a, b| a.id.cmp(&b.id));
        unique.dedup_by(|a, b| a.id == b.id);
        let order = if accessed { RecallOrder::MostAccessed } else { RecallOrder::MostRecent };
        let out = order_for_recall(unique.clone(), order, limit);
        prop_assert_eq!(out.len(), limit.min(unique.len()));
        let mut ids: Vec<&str> = out.iter().map(|e| e.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        prop_assert_eq!(ids.len(), out.len());
    }

    #[test]
    fn visibility_matches_the_spec_table(entry in arb_entry(), agent in 0u8..3, in_group in any::<bool>()) {
        let agent = format!("agent-{agent}");
        let group = in_group.then_some("G1");
        let expected = match entry.visibility.as_str() {
            "global" => true,
            "self" => entry.source_agent_id.as_deref() == Some(agent.as_str()),
            _ => in_group,
        };
        prop_assert_eq!(is_visible(&entry, &agent, group), expected);
    }
}
