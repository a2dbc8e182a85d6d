//! Replays `tests/vectors/entries/unchanged.json` — which the JS suite replays too: one rule
//! decides when a write changes nothing (`EntryWrite::is_unchanged_on`), and `rememberFact` and
//! `persistLongTermProperties` agree on it. Each case runs through both paths, over the
//! list-based test store and over the bundled `InMemoryEntryStore`.

mod common;

use common::*;
use memcore::entries::config::{parse_user_memory_config, Visibility};
use memcore::entries::properties::{persist_long_term_properties, LongTermProperty, PropertyScope};
use memcore::entries::tools::ToolSession;
use memcore::entries::{Entry, EntryStore, InMemoryEntryStore};
use serde_json::{json, Value};

/// Which path a case runs through.
#[derive(Debug, Clone, Copy)]
enum Path {
    Tool,
    Property,
}

fn run<S: EntryStore>(case: &Value, defaults: &Value, path: Path, store: &S) {
    let name = case["name"].as_str().unwrap();
    let text = |k: &str| defaults[k].as_str().unwrap().to_string();
    let config = parse_user_memory_config(&defaults["config"]).unwrap();
    let write = &case["write"];
    let key = write["key"].as_str().unwrap();
    let group = write["group"].as_str().map(str::to_string);
    let visibility: Visibility = serde_json::from_value(write["visibility"].clone()).unwrap();
    let clock = TestClock::at(&text("now"));
    let ids = CounterIds::default();
    match path {
        Path::Tool => {
            let mut session = ToolSession::new(config, &text("userId"), &text("agentId")).unwrap();
            session.group = group;
            session.conversation_id = Some(text("conversationId"));
            let args = json!({
                "key": key, "value": write["value"], "category": "property",
                "visibility": write["visibility"],
            });
            let answer = block_on(call_tool_on(
                &mut session,
                store,
                &clock,
                &ids,
                "rememberFact",
                Some(&args),
            ));
            assert_eq!(answer.text, case["tool"].as_str().unwrap(), "{name} (tool)");
            let unchanged = case["property"] == "unchanged";
            assert_eq!(answer.wrote, !unchanged, "{name} (tool): wrote");
            assert_eq!(session.writes_this_turn, u32::from(!unchanged), "{name}");
        }
        Path::Property => {
            let scope = PropertyScope {
                user_id: text("userId"),
                agent_id: text("agentId"),
                group,
                conversation_id: Some(text("conversationId")),
            };
            let property = LongTermProperty {
                name: key.to_string(),
                value: write["value"].clone(),
                visibility: Some(visibility),
            };
            let report = block_on(persist_long_term_properties(
                store,
                &clock,
                &ids,
                &config,
                &scope,
                &[property],
            ))
            .unwrap();
            let (hit, miss) = match case["property"].as_str().unwrap() {
                "stored" => (&report.stored, &report.unchanged),
                "unchanged" => (&report.unchanged, &report.stored),
                other => panic!("{name}: property must be stored or unchanged, not {other}"),
            };
            assert_eq!(hit, &[key.to_string()], "{name} (property): {report:?}");
            assert!(miss.is_empty() && report.refused.is_empty(), "{name}");
        }
    }
    let stored = block_on(store.list(&text("userId"))).unwrap();
    let expected = case["expectStore"].as_array().unwrap();
    assert_eq!(
        stored.len(),
        expected.len(),
        "{name} ({path:?}): {stored:#?}"
    );
    for want in expected {
        assert!(
            stored.iter().any(|e| entry_matches(e, want)),
            "{name} ({path:?}): no stored entry matches {want}; store: {stored:#?}"
        );
    }
}

#[test]
fn tool_and_property_writes_agree_on_unchanged() {
    let file = vector("unchanged.json");
    let cases = file["cases"].as_array().unwrap();
    assert!(cases.len() >= 4);
    for case in cases {
        let existing: Entry = entry_from(&case["existing"]);
        for path in [Path::Tool, Path::Property] {
            run(
                case,
                &file["defaults"],
                path,
                &MemStore::with(vec![existing.clone()]),
            );
            let in_memory = InMemoryEntryStore::new();
            in_memory.upsert_now(&existing).unwrap();
            run(case, &file["defaults"], path, &in_memory);
        }
    }
}
