//! The four LLM tools on the model's arguments: `call_tool` (the entry point `MemoryTools` and
//! the binding run) over an in-memory store seeded with entries of every visibility, under the
//! default configuration and a tight one (a small cap with eviction, short limits, two
//! categories). The arguments are the input as JSON when it is JSON, and the input as a JSON
//! string (models send their arguments as a string holding an object); each runs
//! `rememberFact`, `searchMemory`, `forgetFact`, `rememberFact`, `recallMemories`, and the input
//! as an unknown tool's name.
//!
//! Properties, besides no panic and linear work: every answer is non-empty text; an answer that
//! says it wrote nothing left the store as it was (access counts aside); the cap holds.
#![no_main]

use memcore::entries::config::parse_user_memory_config;
use memcore::entries::tools::{call_tool, ToolSession, TOOL_NAMES};
use memcore::entries::{Entry, InMemoryEntryStore, UserMemoryConfig};
use memcore::host::{Hosts, NoEmbedder, NoLogger, NoTimer, Parts};
use memcore_fuzz::{check, ready, text_of, Bound, CountingIds, SteppingClock};
use serde_json::{json, Value};

/// Two configurations × two argument forms × six calls over a seeded store (a string argument is
/// parsed again by every call): measured peaks ~870 bytes and ~2.3 allocations per input byte,
/// ~60 KiB fixed (the stores, the answers); see docs/internals/fuzzing.md.
const BOUND: Bound = Bound {
    bytes_per_byte: 4000,
    bytes_base: 1024 * 1024,
    allocations_per_byte: 10,
    allocations_base: 16384,
};

/// The session's user, agent and group.
const USER: &str = "u1";
const AGENT: &str = "a1";
const GROUP: &str = "g1";

/// An entry of `u1` as the store holds it.
fn entry(id: &str, key: &str, visibility: &str, agent: Option<&str>, groups: &[&str]) -> Entry {
    Entry {
        id: id.to_string(),
        user_id: USER.to_string(),
        key: key.to_string(),
        value: json!(format!("value of {key}")),
        category: "fact".to_string(),
        visibility: visibility.to_string(),
        source_agent_id: agent.map(str::to_string),
        group_ids: groups.iter().map(|g| g.to_string()).collect(),
        source_conversation_id: None,
        conflicted: false,
        access_count: 0,
        created_at: "2025-12-01T00:00:00Z".to_string(),
        updated_at: "2025-12-01T00:00:00Z".to_string(),
        written_by: None,
    }
}

/// A store holding one entry of each kind the tools tell apart.
fn seeded_store() -> InMemoryEntryStore {
    let store = InMemoryEntryStore::new();
    for e in [
        entry("s1", "dog_name", "self", Some(AGENT), &[]),
        entry("s2", "their_note", "self", Some("a2"), &[]),
        entry("g1", "team", "group", Some(AGENT), &[GROUP]),
        entry("w1", "home_city", "global", None, &[]),
    ] {
        store
            .upsert_now(&e)
            .expect("the in-memory store takes an entry");
    }
    store
}

/// The default configuration and a tight one.
fn configs() -> [UserMemoryConfig; 2] {
    let tight = json!({
        "maxEntriesPerUser": 4,
        "maxRecallEntries": 2,
        "onCapReached": "evict_oldest",
        "guardrails": {
            "maxKeyLength": 16,
            "maxValueLength": 64,
            "maxWritesPerTurn": 3,
            "allowedCategories": ["fact", "preference"]
        }
    });
    [
        UserMemoryConfig::default(),
        parse_user_memory_config(&tight).expect("the tight configuration is valid"),
    ]
}

/// The entries of the user with access counts zeroed, by id.
fn contents(store: &InMemoryEntryStore) -> Vec<Entry> {
    let mut entries = store.list_now(USER).expect("the in-memory store lists");
    for e in &mut entries {
        e.access_count = 0;
    }
    entries.sort_by(|a, b| a.id.cmp(&b.id));
    entries
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check("tool_args", data, &BOUND, |data| {
        let text = text_of(data);
        let parsed: Option<Value> = serde_json::from_str(&text).ok();
        let as_string = Value::String(text.clone());
        for config in configs() {
            let cap = config.max_entries_per_user;
            for args in parsed.iter().chain([&as_string]) {
                let store = seeded_store();
                let host = Parts {
                    clock: SteppingClock::default(),
                    ids: CountingIds::default(),
                    timer: NoTimer,
                    logger: NoLogger,
                    embedder: NoEmbedder,
                };
                let hosts: Hosts<'_, _, _> = Hosts {
                    entries: &store,
                    host: &host,
                    model: None,
                    embedder: None,
                };
                let mut session =
                    ToolSession::new(config.clone(), USER, AGENT).expect("ids are not blank");
                session.scope(Some(GROUP.to_string()), Some("c1".to_string()));
                let calls = [
                    TOOL_NAMES[0],
                    TOOL_NAMES[2],
                    TOOL_NAMES[3],
                    TOOL_NAMES[0],
                    TOOL_NAMES[1],
                    text.as_str(),
                ];
                for name in calls {
                    let before = contents(&store);
                    let answer = ready(call_tool(&mut session, &hosts, name, Some(args)));
                    assert!(!answer.text.is_empty(), "{name}: an empty answer");
                    let after = contents(&store);
                    if !answer.wrote {
                        assert_eq!(before, after, "{name} changed the store: {}", answer.text);
                    }
                    assert!(
                        after.len() as u64 <= cap.max(before.len() as u64),
                        "{name} went past the cap of {cap}: {}",
                        answer.text
                    );
                }
            }
        }
    });
});
