//! The turn pipeline under hostile hosts (issue 8): host calls that never settle time out and
//! release the user's lock; a deletion never waits behind a turn and wins over it; the first write
//! of a new profile is create-only, so two first turns lose nothing; `turn_count` saturates; the
//! cost of a turn over a huge stored profile is bounded by the budget.

mod common;

use common::turn_fakes::*;
use common::{block_on, WordCounter};
use memcore::host::{Purpose, Timer, TokenCounter};
use memcore::turn::*;
use std::cell::Cell;
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

const PATH: &str = "user-memory/u1/memory.md";
const FRONTMATTER: &str = "---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-01-01T00:00:00+00:00\nturn_count: 4\n---\n";

fn body(identity: &str) -> String {
    format!(
        "# User Memory\n\n## Identity\n{identity}\n\n## Communication Preferences\n_(empty)_\n\n## Work Context\n_(empty)_\n\n## Skills & Expertise\n_(empty)_\n\n## Recent Topics\n_(empty)_\n\n## Follow-ups\n_(empty)_\n"
    )
}

fn stored() -> String {
    format!("{FRONTMATTER}\n{}", body("- Name: Dana"))
}

type Memory<T, Ti> = ContextMemory<FakeHosts<T, Ti>>;

fn memory<T: TokenCounter, Ti: Timer>(
    store: VersionedStore,
    model: FnModel,
    counter: T,
    timer: Ti,
) -> Memory<T, Ti> {
    ContextMemory::new(
        ContextMemoryConfig::default(),
        FakeHosts {
            store,
            model: Some(model),
            counter,
            notifier: RecordingNotifier::default(),
            host: test_host(StepClock::at("2026-06-17T12:00:00Z", 5), timer),
        },
    )
    .unwrap()
}

/// A model that adds `- <user message>` to Identity.
fn adding_model() -> FnModel {
    FnModel::new(|request| {
        if request.purpose == Purpose::Gate {
            return Ok("UPDATE".into());
        }
        let fact = request
            .user
            .split("<user_message>\n")
            .nth(1)
            .and_then(|rest| rest.split('\n').next())
            .unwrap()
            .to_string();
        let current = request
            .user
            .split("<current_profile>\n")
            .nth(1)
            .and_then(|rest| rest.split("\n</current_profile>").next())
            .unwrap_or("")
            .to_string();
        let current = if current.contains("## Identity") {
            current
        } else {
            body("_(empty)_")
        };
        let mut out = Vec::new();
        for line in current.lines() {
            if line == "_(empty)_" && out.last().map(String::as_str) == Some("## Identity") {
                continue;
            }
            out.push(line.to_string());
            if line == "## Identity" {
                out.push(format!("- {fact}"));
            }
        }
        Ok(out.join("\n") + "\n")
    })
}

fn turn(message: &str) -> TurnInput {
    TurnInput {
        user_id: "u1".into(),
        enabled: Some(true),
        user_message: message.into(),
        assistant_message: "ok".into(),
        conversation_id: None,
        at: None,
        group_id: None,
    }
}

struct Noop;
impl Wake for Noop {
    fn wake(self: Arc<Self>) {}
}

fn poll_once<F: Future>(future: std::pin::Pin<&mut F>) -> Poll<F::Output> {
    let waker = Waker::from(Arc::new(Noop));
    future.poll(&mut Context::from_waker(&waker))
}

#[test]
fn a_model_that_never_answers_times_out_and_releases_the_lock() {
    let store = VersionedStore::with(PATH, &stored());
    let model = adding_model();
    model.held.set(true);
    let m = memory(store.clone(), model, WordCounter, ExpiredTimer);
    let report = block_on(m.after_turn(&turn("Likes tea"))).unwrap();
    // The gate timed out and failed open; the consolidation timed out: nothing written.
    assert_eq!(report.gate, Some(GateDecision::Update));
    assert!(report
        .gate_error
        .unwrap()
        .contains("did not answer within 60000 ms"));
    assert_eq!(report.outcome, TurnOutcome::ModelFailed);
    assert!(report
        .reason
        .unwrap()
        .contains("model.complete did not answer"));
    assert_eq!(store.text(PATH).unwrap(), stored());
    // The notice was shown and cleared all the same.
    assert_eq!(m.hosts().notifier.notices.borrow().len(), 2);
    // The lock was released: the next turn of the same user and a Settings edit both finish.
    m.hosts().model.as_ref().unwrap().held.set(false);
    let next = block_on(m.after_turn(&turn("Likes tea"))).unwrap();
    assert_eq!(next.outcome, TurnOutcome::Updated);
    block_on(m.update_my_context_memory("u1", &body("- Edited"))).unwrap();
}

#[test]
fn storage_and_notice_calls_that_never_settle_time_out() {
    let store = VersionedStore::with(PATH, &stored());
    store.hang.borrow_mut().push("write");
    let m = memory(store.clone(), adding_model(), WordCounter, ExpiredTimer);
    let report = block_on(m.after_turn(&turn("Likes tea"))).unwrap();
    assert_eq!(report.outcome, TurnOutcome::WriteFailed);
    assert!(report
        .reason
        .unwrap()
        .contains("storage.write did not answer"));
    store.hang.borrow_mut().clear();

    store.hang.borrow_mut().push("read");
    let load = block_on(m.load("u1", true));
    assert_eq!(load.outcome, LoadOutcome::NoMemory);
    assert!(load.reason.unwrap().contains("storage.read did not answer"));
    let error = block_on(m.get_my_context_memory("u1")).unwrap_err();
    assert!(error.message.contains("storage.read did not answer"));
    store.hang.borrow_mut().clear();

    m.hosts().notifier.hang.set(true);
    let report = block_on(m.after_turn(&turn("Likes coffee"))).unwrap();
    assert_eq!(
        report.outcome,
        TurnOutcome::Updated,
        "a hung notice never blocks a turn"
    );
    assert!(m
        .hosts()
        .host
        .logger
        .names()
        .contains(&"memory.notice.failed".to_string()));
}

#[test]
fn a_deletion_never_waits_behind_a_turn_and_the_turn_writes_nothing_afterwards() {
    let store = VersionedStore::with(PATH, &stored());
    let model = adding_model();
    model.held.set(true);
    let held = model.held.clone();
    let m = memory(store.clone(), model, WordCounter, ManualTimer::default());
    let input = turn("Likes tea");
    let mut running = pin!(m.after_turn(&input));
    for _ in 0..10 {
        assert!(
            poll_once(running.as_mut()).is_pending(),
            "the turn waits on the model"
        );
    }
    // The deletion completes while the turn holds the user's lock and waits on its model call.
    let mut deletion = pin!(m.delete_context_memory("u1"));
    assert_eq!(poll_once(deletion.as_mut()), Poll::Ready(Ok(true)));
    assert_eq!(store.text(PATH), None);
    held.set(false);
    let report = loop {
        if let Poll::Ready(report) = poll_once(running.as_mut()) {
            break report.unwrap();
        }
    };
    assert_eq!(report.outcome, TurnOutcome::WriteFailed);
    assert_eq!(report.reason.as_deref(), Some("profile-deleted"));
    assert_eq!(
        store.text(PATH),
        None,
        "the deleted profile is not re-created"
    );
    assert_eq!(store.write_count(), 0);
}

#[test]
fn a_turn_in_another_instance_does_not_recreate_a_deleted_profile() {
    let store = VersionedStore::with(PATH, &stored());
    let turn_side = memory(
        store.clone(),
        adding_model(),
        WordCounter,
        ManualTimer::default(),
    );
    let other = memory(
        store.clone(),
        adding_model(),
        WordCounter,
        ManualTimer::default(),
    );
    let held = turn_side.hosts().model.as_ref().unwrap().held.clone();
    held.set(true);
    let input = turn("Likes tea");
    let mut running = pin!(turn_side.after_turn(&input));
    assert!(poll_once(running.as_mut()).is_pending());
    // Another process deletes the profile: this instance's deletion count does not change, so
    // only the lost conditional write and the re-read tell the turn.
    assert_eq!(block_on(other.delete_context_memory("u1")), Ok(true));
    held.set(false);
    let report = loop {
        if let Poll::Ready(report) = poll_once(running.as_mut()) {
            break report.unwrap();
        }
    };
    assert_eq!(report.outcome, TurnOutcome::WriteFailed);
    assert_eq!(report.reason.as_deref(), Some("profile-deleted"));
    assert_eq!(store.text(PATH), None);
}

#[test]
fn the_first_write_of_a_new_profile_is_create_only_so_two_first_turns_lose_nothing() {
    for round in 0..10 {
        let store = VersionedStore::default();
        store.pend.set(true);
        let a = memory(
            store.clone(),
            adding_model(),
            WordCounter,
            ManualTimer::default(),
        );
        let b = memory(
            store.clone(),
            adding_model(),
            WordCounter,
            ManualTimer::default(),
        );
        let first = turn(&format!("fact-a-{round}"));
        let second = turn(&format!("fact-b-{round}"));
        let reports = join_all(vec![
            Box::pin(a.after_turn(&first)) as std::pin::Pin<Box<dyn Future<Output = _>>>,
            Box::pin(b.after_turn(&second)),
        ]);
        for report in &reports {
            assert_eq!(report.as_ref().unwrap().outcome, TurnOutcome::Updated);
        }
        let text = store.text(PATH).unwrap();
        assert!(text.contains(&format!("fact-a-{round}")), "{text}");
        assert!(text.contains(&format!("fact-b-{round}")), "{text}");
        let writes = store.state.borrow().writes.clone();
        assert!(writes[0].2.if_absent, "the first write is create-only");
        assert_eq!(writes[0].2.if_version, None);
        assert!(!writes[1].2.if_absent);
        assert!(writes[1].2.if_version.is_some());
        let attempts: u32 = reports.iter().map(|r| r.as_ref().unwrap().attempts).sum();
        assert_eq!(
            attempts, 3,
            "exactly one re-consolidation after losing the creation"
        );
    }
}

#[test]
fn a_turn_count_beyond_two_to_the_fifty_three_saturates_and_never_wraps() {
    for stored_count in [
        "18446744073709551615",
        "18446744073709551616",
        "9007199254740993",
    ] {
        let text = stored().replace("turn_count: 4", &format!("turn_count: {stored_count}"));
        let store = VersionedStore::with(PATH, &text);
        let m = memory(
            store.clone(),
            adding_model(),
            WordCounter,
            ManualTimer::default(),
        );
        let report = block_on(m.after_turn(&turn("Likes tea"))).unwrap();
        assert_eq!(report.outcome, TurnOutcome::Updated, "{stored_count}");
        assert_eq!(report.turn_count, Some(9_007_199_254_740_991));
        let written = store.text(PATH).unwrap();
        assert!(
            written.contains("turn_count: 9007199254740991\n"),
            "{written}"
        );
        let view = block_on(m.get_my_context_memory("u1")).unwrap();
        assert_eq!(view.turn_count, Some(9_007_199_254_740_991));
    }
}

/// Counts every byte it is asked to count.
struct MeteredCounter {
    bytes: Cell<usize>,
}

impl TokenCounter for MeteredCounter {
    fn count(&self, text: &str) -> memcore::error::Result<usize> {
        self.bytes.set(self.bytes.get() + text.len());
        WordCounter.count(text)
    }
}

#[test]
fn the_cost_of_a_turn_over_a_huge_stored_profile_is_bounded_by_the_budget() {
    let mut metered = Vec::new();
    for megabytes in [4usize, 16] {
        let line = "x".repeat(megabytes << 20);
        let text = format!("{FRONTMATTER}\n# User Memory\n\n## Identity\n- {line}\n");
        let store = VersionedStore::with(PATH, &text);
        let m = memory(
            store.clone(),
            FnModel::scripted("UPDATE", &body("- Rewritten")),
            MeteredCounter {
                bytes: Cell::new(0),
            },
            ManualTimer::default(),
        );
        let load = block_on(m.load("u1", true));
        assert_eq!(load.outcome, LoadOutcome::Loaded);
        let fit = load.fit.unwrap();
        assert!(fit.truncated && fit.tokens_after <= 2000);
        assert_eq!(
            fit.tokens_before, None,
            "a file beyond the window is not counted"
        );
        let after_load = m.hosts().counter.bytes.get();
        let report = block_on(m.after_turn(&turn("Likes tea"))).unwrap();
        assert_eq!(report.outcome, TurnOutcome::Updated);
        metered.push((after_load, m.hosts().counter.bytes.get()));
    }
    // The same work for a 4 MB and a 16 MB file, and a few windows of it at most.
    assert_eq!(metered[0], metered[1]);
    let window = 2000 * 128 + 64 * 1024;
    assert!(metered[0].0 <= 4 * window, "{metered:?}");
}
