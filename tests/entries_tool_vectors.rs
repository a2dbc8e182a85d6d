//! Replays `tests/vectors/entries/tool_scenarios.json` — the tool scenarios the JS suite replays
//! too. Each scenario: optional `config` (a `userMemoryConfig` block), a session (`userId`,
//! `agentId`, `group`, `conversationId`), setup `entries` (partial, defaults filled), then `calls`
//! `{ tool, args, expect, agentId?, group?, newTurn?, failOn? }` — the clock reads
//! `now + i seconds` on call `i` — and an optional `expectStore` (partial entries; the store must
//! hold exactly that many, each matching one).

mod common;

use common::*;
use memcore::entries::config::parse_user_memory_config;
use memcore::entries::tools::ToolSession;
use memcore::entries::UserMemoryConfig;
use serde_json::Value;

fn run(scenario: &Value, defaults: &Value) {
    let name = scenario["name"].as_str().unwrap();
    let config = match scenario.get("config") {
        Some(c) => parse_user_memory_config(c).unwrap(),
        None => UserMemoryConfig::default(),
    };
    let field = |k: &str| scenario.get(k).or_else(|| defaults.get(k));
    let text = |k: &str| field(k).and_then(Value::as_str).map(str::to_string);
    let mut session =
        ToolSession::new(config, &text("userId").unwrap(), &text("agentId").unwrap()).unwrap();
    session.conversation_id = text("conversationId");
    let base_group = text("group");
    let entries = scenario
        .get("entries")
        .and_then(Value::as_array)
        .map(|list| list.iter().map(entry_from).collect())
        .unwrap_or_default();
    let store = MemStore::with(entries);
    let base = parse_time(&text("now").unwrap());
    let clock = TestClock(std::cell::Cell::new(base));
    let ids = CounterIds::default();
    let base_agent = session.agent_id.clone();

    for (i, call) in scenario["calls"].as_array().unwrap().iter().enumerate() {
        clock.0.set(base + chrono::Duration::seconds(i as i64));
        if call.get("newTurn").and_then(Value::as_bool) == Some(true) {
            session.writes_this_turn = 0;
        }
        session.agent_id = call
            .get("agentId")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| base_agent.clone());
        session.group = match call.get("group") {
            Some(g) => g.as_str().map(str::to_string),
            None => base_group.clone(),
        };
        *store.fail.borrow_mut() = call
            .get("failOn")
            .and_then(Value::as_array)
            .map(|l| {
                l.iter()
                    .filter_map(|f| f.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let tool = call["tool"].as_str().unwrap();
        let args = call.get("args").cloned().unwrap_or(Value::Null);
        let answer = block_on(call_tool_on(
            &mut session,
            &store,
            &clock,
            &ids,
            tool,
            Some(&args),
        ));
        assert_eq!(
            answer.text,
            call["expect"].as_str().unwrap(),
            "scenario '{name}', call {i} ({tool} {args})"
        );
        if let Some(wrote) = call.get("expectWrote").and_then(Value::as_bool) {
            assert_eq!(answer.wrote, wrote, "scenario '{name}', call {i}: wrote");
        }
    }
    store.fail.borrow_mut().clear();

    if let Some(expected) = scenario.get("expectStore").and_then(Value::as_array) {
        let stored = store.snapshot();
        assert_eq!(
            stored.len(),
            expected.len(),
            "scenario '{name}': store size, got {stored:#?}"
        );
        let mut used = vec![false; stored.len()];
        for want in expected {
            let hit = stored
                .iter()
                .enumerate()
                .position(|(j, e)| !used[j] && entry_matches(e, want));
            match hit {
                Some(j) => used[j] = true,
                None => {
                    panic!("scenario '{name}': no stored entry matches {want}; store: {stored:#?}")
                }
            }
        }
    }
}

#[test]
fn tool_scenarios_replay() {
    let file = vector("tool_scenarios.json");
    let defaults = &file["defaults"];
    let scenarios = file["scenarios"].as_array().unwrap();
    assert!(!scenarios.is_empty());
    for scenario in scenarios {
        run(scenario, defaults);
    }
}

#[test]
fn a_blank_id_names_its_field() {
    let field = |user: &str, agent: &str| {
        let error = ToolSession::new(UserMemoryConfig::default(), user, agent)
            .err()
            .unwrap();
        assert_eq!(error.code, memcore::ErrorCode::Argument);
        error.details.unwrap()["field"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(field(" ", "a"), "userId");
    assert_eq!(field("", ""), "userId");
    assert_eq!(field("u", "\t"), "agentId");
}
