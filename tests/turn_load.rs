//! `load` (SPEC §1.7 step 1) and the settings functions (SPEC §1.10) of `ContextMemory`.

mod common;

use common::turn_fakes::*;
use common::{block_on, WordCounter};
use memcore::host::NoTimer;
use memcore::turn::*;
use memcore::ErrorCode;

const PATH: &str = "user-memory/u1/memory.md";
const BODY: &str = "# User Memory\n\n## Identity\n- Name: Dana\n\n## Communication Preferences\n_(empty)_\n\n## Work Context\n_(empty)_\n\n## Skills & Expertise\n_(empty)_\n\n## Recent Topics\n_(empty)_\n\n## Follow-ups\n_(empty)_\n";
const FRONTMATTER: &str =
    "---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-01-01T00:00:00+00:00\nturn_count: 4\n---\n";

type Memory = ContextMemory<FakeHosts>;

fn memory(store: VersionedStore, max_tokens: usize) -> Memory {
    ContextMemory::new(
        ContextMemoryConfig {
            max_tokens,
            ..Default::default()
        },
        FakeHosts {
            store,
            model: Some(FnModel::scripted("UPDATE", "NOOP")),
            counter: WordCounter,
            notifier: RecordingNotifier::default(),
            host: test_host(StepClock::at("2026-06-17T12:00:00Z", 0), NoTimer),
        },
    )
    .unwrap()
}

fn stored() -> String {
    format!("{FRONTMATTER}\n{BODY}")
}

#[test]
fn load_reads_fits_and_builds_the_section() {
    let m = memory(VersionedStore::with(PATH, &stored()), 2000);
    let loaded = block_on(m.load("u1", true));
    assert_eq!(loaded.outcome, LoadOutcome::Loaded);
    assert_eq!(loaded.profile.as_deref(), Some(stored().as_str()));
    assert_eq!(loaded.version.as_deref(), Some("v1"));
    assert!(loaded
        .system_prompt_section
        .starts_with("# What I know about you\n"));
    assert!(loaded.system_prompt_section.contains("- Name: Dana"));
    assert!(!loaded.system_prompt_section.contains("turn_count"));
    let fit = loaded.fit.unwrap();
    assert!(!fit.truncated && !fit.condensed);
    let json = serde_json::to_value(block_on(m.load("u1", true))).unwrap();
    assert_eq!(json["outcome"], "loaded");
    assert!(json["systemPromptSection"].is_string());
    assert!(json["fit"]["tokensAfter"].is_u64());
}

#[test]
fn load_fits_an_over_budget_profile_without_writing_it_back_or_calling_the_model() {
    let mut facts = String::new();
    for i in 0..400 {
        facts.push_str(&format!("- Distinct fact number {i}\n"));
    }
    let big = format!("{FRONTMATTER}\n{}", BODY.replace("- Name: Dana\n", &facts));
    let m = memory(VersionedStore::with(PATH, &big), 500);
    let loaded = block_on(m.load("u1", true));
    assert_eq!(loaded.outcome, LoadOutcome::Loaded);
    let profile = loaded.profile.unwrap();
    assert!(profile.len() < big.len());
    assert!(
        profile.starts_with(FRONTMATTER),
        "frontmatter kept byte for byte"
    );
    assert!(loaded.fit.unwrap().truncated);
    assert_eq!(m.hosts().store.write_count(), 0);
    assert_eq!(m.hosts().store.text(PATH), Some(big));
    assert!(m
        .hosts()
        .model
        .as_ref()
        .unwrap()
        .requests
        .borrow()
        .is_empty());
}

#[test]
fn load_outcomes_without_memory() {
    let store = VersionedStore::with(PATH, &stored());
    let m = memory(store.clone(), 2000);
    let disabled = block_on(m.load("u1", false));
    assert_eq!(disabled.outcome, LoadOutcome::Disabled);
    assert_eq!(store.state.borrow().reads, 0);
    assert_eq!(disabled.system_prompt_section, "");

    let missing = block_on(m.load("u2", true));
    assert_eq!(missing.outcome, LoadOutcome::NoProfile);
    assert_eq!(missing.profile, None);
    assert_eq!(missing.system_prompt_section, "");

    let invalid = block_on(m.load("../u1", true));
    assert_eq!(invalid.outcome, LoadOutcome::NoMemory);
    assert!(invalid.reason.unwrap().starts_with("E_INVALID_USER_ID"));

    store.fail.borrow_mut().push("read");
    let failed = block_on(m.load("u1", true));
    assert_eq!(failed.outcome, LoadOutcome::NoMemory);
    assert_eq!(
        failed.reason.as_deref(),
        Some("storage read failed: E_HOST: storage read unavailable")
    );
    assert_eq!(
        serde_json::to_value(failed.outcome).unwrap(),
        serde_json::json!("no-memory")
    );
    assert_eq!(
        serde_json::to_value(LoadOutcome::NoProfile).unwrap(),
        serde_json::json!("no-profile")
    );
}

#[test]
fn get_my_context_memory_is_read_only() {
    let store = VersionedStore::default();
    let m = memory(store.clone(), 2000);
    let view = block_on(m.get_my_context_memory("u1")).unwrap();
    assert!(!view.exists);
    assert_eq!(view.body, "");
    assert!(store.state.borrow().roots.is_empty());
    assert_eq!(store.write_count(), 0);

    store.put(PATH, &stored());
    let view = block_on(m.get_my_context_memory("u1")).unwrap();
    assert!(view.exists);
    assert_eq!(view.body, BODY);
    assert_eq!(view.turn_count, Some(4));
    assert_eq!(
        view.last_updated.as_deref(),
        Some("2026-01-01T00:00:00+00:00")
    );
    assert_eq!(
        block_on(m.get_my_context_memory("a/b")).unwrap_err().code,
        ErrorCode::InvalidUserId
    );
}

#[test]
fn update_my_context_memory_keeps_the_frontmatter_and_creates_when_missing() {
    let store = VersionedStore::with(PATH, &stored());
    let m = memory(store.clone(), 2000);
    let edited = BODY.replace("- Name: Dana", "- Name: Dana K.");
    let result = block_on(m.update_my_context_memory("u1", &edited)).unwrap();
    assert!(result.diagnostics.is_empty());
    assert_eq!(
        store.text(PATH).unwrap(),
        format!("{FRONTMATTER}\n{edited}")
    );
    assert_eq!(
        store.state.borrow().writes[0].2.if_version.as_deref(),
        Some("v1")
    );
    assert_eq!(store.state.borrow().roots, vec!["user-memory".to_string()]);

    block_on(m.update_my_context_memory("u9", &edited)).unwrap();
    let created = store.text("user-memory/u9/memory.md").unwrap();
    assert!(created.starts_with("---\nuser_id: u9\nschema_version: 1\n"));
    assert!(created.contains("turn_count: 0\n"));
}

#[test]
fn update_my_context_memory_reports_renamed_headings_and_still_saves() {
    let store = VersionedStore::with(PATH, &stored());
    let m = memory(store.clone(), 2000);
    let edited = BODY.replace("## Identity", "## About me");
    let result = block_on(m.update_my_context_memory("u1", &edited)).unwrap();
    assert!(!result.diagnostics.is_empty());
    assert!(store.text(PATH).unwrap().contains("## About me"));
}

#[test]
fn update_my_context_memory_refuses_over_one_mebibyte_without_touching_storage() {
    let store = VersionedStore::with(PATH, &stored());
    let m = memory(store.clone(), 2000);
    let huge = "x".repeat(1_048_577);
    let error = block_on(m.update_my_context_memory("u1", &huge)).unwrap_err();
    assert_eq!(error.code, ErrorCode::TooLarge);
    assert_eq!(store.state.borrow().reads, 0);
    assert_eq!(store.write_count(), 0);
    let exact = "x".repeat(1_048_576);
    assert!(block_on(m.update_my_context_memory("u1", &exact)).is_ok());
}

#[test]
fn update_my_context_memory_retries_a_conflict_and_surfaces_exhaustion() {
    let store = VersionedStore::with(PATH, &stored());
    let m = memory(store.clone(), 2000);
    store.inject_conflicts.set(1);
    assert!(block_on(m.update_my_context_memory("u1", BODY)).is_ok());
    store.inject_conflicts.set(10);
    let error = block_on(m.update_my_context_memory("u1", BODY)).unwrap_err();
    assert_eq!(error.code, ErrorCode::VersionConflict);
}

#[test]
fn delete_context_memory_removes_the_profile() {
    let store = VersionedStore::with(PATH, &stored());
    let m = memory(store.clone(), 2000);
    assert!(block_on(m.delete_context_memory("u1")).unwrap());
    assert_eq!(store.text(PATH), None);
    assert_eq!(store.state.borrow().removed, vec![PATH.to_string()]);
    assert!(!block_on(m.delete_context_memory("u1")).unwrap());
    store.fail.borrow_mut().push("remove");
    assert_eq!(
        block_on(m.delete_context_memory("u1")).unwrap_err().code,
        ErrorCode::Host
    );
}

#[test]
fn a_custom_root_folder_is_used_for_every_path() {
    let store = VersionedStore::default();
    let m = ContextMemory::new(
        ContextMemoryConfig {
            root_folder: "memories/profiles".into(),
            ..Default::default()
        },
        FakeHosts {
            store: store.clone(),
            model: Some(FnModel::scripted("UPDATE", "NOOP")),
            counter: WordCounter,
            notifier: RecordingNotifier::default(),
            host: test_host(StepClock::at("2026-06-17T12:00:00Z", 0), NoTimer),
        },
    )
    .unwrap();
    block_on(m.update_my_context_memory("u1", BODY)).unwrap();
    assert!(store.text("memories/profiles/u1/memory.md").is_some());
    assert_eq!(
        store.state.borrow().roots,
        vec!["memories/profiles".to_string()]
    );
}

#[test]
fn an_invalid_configuration_is_refused_at_construction() {
    let result = ContextMemory::new(
        ContextMemoryConfig {
            max_tokens: 100,
            ..Default::default()
        },
        FakeHosts {
            store: VersionedStore::default(),
            model: Some(FnModel::scripted("UPDATE", "NOOP")),
            counter: WordCounter,
            notifier: RecordingNotifier::default(),
            host: test_host(StepClock::at("2026-06-17T12:00:00Z", 0), NoTimer),
        },
    );
    let error = result.err().unwrap();
    assert_eq!(error.code, ErrorCode::Config);
    assert_eq!(error.details.unwrap()["path"], "maxTokens");
}
