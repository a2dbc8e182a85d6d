//! A turn counts each text once (issue 45): `load` counts the stored profile, `afterTurn` the
//! consolidation's answer, and the file assembled around that answer is counted from the
//! answer's count — its frontmatter and the answer's last piece are all that is counted again.
//! Asserted on the tokenizer's work steps (no timing), against one count of the profile, for
//! users whose turns interleave (more users than the tokenizer remembers texts of, so nothing
//! from an earlier turn is remembered) and for one user turn after turn.

mod common;
mod tokens_support;

use common::block_on;
use common::turn_fakes::*;
use memcore::host::{CompletionRequest, NoTimer, Purpose, TokenCounter};
use memcore::profile::tokens::{Encoding, Tokenizer};
use memcore::turn::*;
use std::cell::Cell;
use std::rc::Rc;

/// The built-in tokenizer, shared with the test so it can read the work done.
#[derive(Clone)]
struct Shared(Rc<Tokenizer>);

impl TokenCounter for Shared {
    fn count(&self, text: &str) -> memcore::error::Result<usize> {
        Ok(self.0.count(text))
    }
    fn count_within(&self, text: &str, limit: usize) -> memcore::error::Result<Option<usize>> {
        Ok(self.0.count_up_to(text, limit))
    }
}

fn block(text: &str, tag: &str) -> String {
    let open = format!("<{tag}>\n");
    let close = format!("\n</{tag}>");
    let start = text.find(&open).unwrap() + open.len();
    let end = start + text[start..].find(&close).unwrap();
    text[start..end].to_string()
}

/// A deterministic pseudo-random generator (fixed seed).
fn lcg(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    *seed >> 33
}

const WORDS: [&str; 24] = [
    "the",
    "weekend",
    "Lisbon",
    "coffee",
    "prefers",
    "short",
    "answers",
    "about",
    "Rust",
    "meetings",
    "on",
    "Tuesdays",
    "daughter",
    "plays",
    "violin",
    "running",
    "10k",
    "in",
    "March",
    "asked",
    "recipes",
    "vegetarian",
    "(again)",
    "deadline,",
];

/// A profile body of about `tokens` tokens of bullets (before the first turn renders it).
fn body(seed: u64, tokens: usize) -> String {
    let mut seed = seed;
    let mut sections: Vec<Vec<String>> = vec![Vec::new(); 6];
    let mut words = 0;
    let mut i = 0;
    while words < tokens * 3 / 4 {
        let n = 4 + lcg(&mut seed) as usize % 14;
        let line: Vec<&str> = (0..n)
            .map(|_| WORDS[lcg(&mut seed) as usize % WORDS.len()])
            .collect();
        sections[i % 6].push(format!("- {}", line.join(" ")));
        words += n;
        i += 1;
    }
    let headings = memcore::profile::format::SECTION_HEADINGS;
    let mut out = String::from("# User Memory\n\n");
    for (h, lines) in headings.iter().zip(sections) {
        out.push_str(&format!("## {h}\n{}\n\n", lines.join("\n")));
    }
    out
}

/// Gate UPDATE; the consolidation answers the body it was shown with one Recent Topics line
/// changed, ending with a line feed or not.
fn model(trailing_feed: bool) -> FnModel {
    let flip = Cell::new(0u32);
    FnModel::new(move |request: &CompletionRequest| {
        if request.purpose == Purpose::Gate {
            return Ok("UPDATE".into());
        }
        let shown = block(&request.user, "current_profile");
        let at = shown.find("## Recent Topics\n").unwrap() + "## Recent Topics\n".len();
        let end = at + shown[at..].find('\n').unwrap();
        flip.set(flip.get() + 1);
        let answer = format!(
            "{}- asked about the weekend plans ({}){}",
            &shown[..at],
            flip.get(),
            &shown[end..]
        );
        let answer = answer.trim_end().to_string();
        Ok(if trailing_feed { answer + "\n" } else { answer })
    })
}

fn memory(users: usize, trailing_feed: bool) -> (ContextMemory<FakeHosts<Shared>>, Rc<Tokenizer>) {
    let tokenizer = Rc::new(tokens_support::tokenizer(Encoding::O200kBase));
    let store = VersionedStore::default();
    for u in 0..users {
        store.put(
            &format!("user-memory/user{u}/memory.md"),
            &format!(
                "---\nuser_id: user{u}\nlast_updated: 2026-11-01T00:00:00+00:00\nturn_count: 3\n---\n\n{}",
                body(u as u64 + 1, 1900)
            ),
        );
    }
    let memory = ContextMemory::new(
        ContextMemoryConfig::default(),
        FakeHosts {
            store,
            model: Some(model(trailing_feed)),
            counter: Shared(tokenizer.clone()),
            notifier: RecordingNotifier::default(),
            host: test_host(StepClock::at("2026-06-17T12:00:00Z", 1), NoTimer),
        },
    )
    .unwrap();
    (memory, tokenizer)
}

/// One turn of `user`: load, then afterTurn; it must write.
fn turn(memory: &ContextMemory<FakeHosts<Shared>>, user: &str) {
    let loaded = block_on(memory.load(user, true));
    assert_eq!(loaded.outcome, LoadOutcome::Loaded);
    let input = TurnInput {
        user_id: user.into(),
        enabled: Some(true),
        user_message: "What should I cook tonight? Something quick.".into(),
        assistant_message: "A vegetable stir-fry takes fifteen minutes.".into(),
        conversation_id: None,
        at: None,
        group_id: None,
    };
    let report = block_on(memory.after_turn(&input)).unwrap();
    assert_eq!(report.outcome, TurnOutcome::Updated, "{report:?}");
}

/// The work of one fresh count of `text`.
fn one_count(text: &str) -> u64 {
    let fresh = tokens_support::tokenizer(Encoding::O200kBase);
    fresh.count(text);
    fresh.work_steps()
}

/// Steps per turn over `rounds` rotations of `users` users (after one warm-up rotation), and one
/// count of a profile.
fn measure(users: usize, rounds: usize, trailing_feed: bool) -> (u64, u64) {
    let (memory, tokenizer) = memory(users, trailing_feed);
    for u in 0..users {
        turn(&memory, &format!("user{u}"));
    }
    let before = tokenizer.work_steps();
    for _ in 0..rounds {
        for u in 0..users {
            turn(&memory, &format!("user{u}"));
        }
    }
    let per_turn = (tokenizer.work_steps() - before) / (users * rounds) as u64;
    let stored = memory
        .hosts()
        .store
        .text("user-memory/user0/memory.md")
        .unwrap();
    assert!(tokenizer.count(&stored) > 1500, "a profile of real size");
    (per_turn, one_count(&stored))
}

#[test]
fn interleaved_users_count_each_profile_twice_a_turn_at_most() {
    for trailing_feed in [false, true] {
        // 24 users: each turn remembers two texts, so a user's file is long forgotten by the
        // next load of it; the load counts it, afterTurn counts the answer, and the file is
        // counted from the answer.
        let (per_turn, one) = measure(24, 2, trailing_feed);
        println!("24 users, answer with a trailing line feed {trailing_feed}: {per_turn} steps a turn, one count {one}");
        assert!(
            per_turn * 10 <= one * 21,
            "{per_turn} steps a turn against {one} for one count (at most 2.1 counts)"
        );
    }
}

#[test]
fn one_user_turn_after_turn_counts_each_profile_once_a_turn_at_most() {
    for trailing_feed in [false, true] {
        // The load finds the file the last turn wrote remembered: only the answer is counted.
        let (per_turn, one) = measure(1, 10, trailing_feed);
        println!("one user, answer with a trailing line feed {trailing_feed}: {per_turn} steps a turn, one count {one}");
        assert!(
            per_turn * 10 <= one * 11,
            "{per_turn} steps a turn against {one} for one count (at most 1.1 counts)"
        );
    }
}
