//! The pure rules of learning (SPEC §8.6) natively: what the extraction is shown of a message,
//! how its answer is read, and the content ids of episodes. The whole pipeline is tested through
//! the package (tests/js/learn.test.mjs).

use memcore::entries::episode::episode_id;
use memcore::learn::answer::{parse_extraction, FactRequest, MAX_ANSWER_BYTES};
use memcore::learn::strip_injected;

#[test]
fn injected_sections_are_not_shown_to_the_extraction() {
    let text = "# What I know about you\n\nThe notes below…\n\n# User Memory\n\n## Identity\n- Ada\n\n# Relevant memories\n• city = Porto [fact, global]\n\n# Relevant conversation\n• (2026-05-01, user) we moved\n\nI adopted a cat yesterday.";
    assert_eq!(strip_injected(text), "I adopted a cat yesterday.");
    // A user's own level-1 heading ends the profile section; plain text is kept as written.
    assert_eq!(
        strip_injected("# What I know about you\n- x\n# My notes\nkeep me"),
        "# My notes\nkeep me"
    );
    assert_eq!(
        strip_injected("nothing injected\n• a bullet"),
        "nothing injected\n• a bullet"
    );
}

#[test]
fn answers_are_read_leniently_and_refused_when_unusable() {
    let facts = |text: &str| parse_extraction(text).map(|f| f.len());
    assert_eq!(facts(r#"{"facts":[{"key":"a","value":"b"}]}"#), Ok(1));
    assert_eq!(facts("```json\n{\"facts\":[]}\n```"), Ok(0));
    assert_eq!(
        facts(r#"Sure: [{"key":"a","value":1},{"key":"b","forget":true}]"#),
        Ok(2)
    );
    for bad in [
        "",
        "NOOP",
        r#"{"facts":"#,
        r#"{"facts":{}}"#,
        r#"{"other":[]}"#,
        "42",
    ] {
        assert!(parse_extraction(bad).is_err(), "{bad}");
    }
    let huge = format!(
        r#"{{"facts":[{{"key":"a","value":"{}"}}]}}"#,
        "x".repeat(MAX_ANSWER_BYTES)
    );
    assert!(parse_extraction(&huge).is_err());
    let items = parse_extraction(r#"{"facts":[{"key":" city ","forget":true},"x",null]}"#).unwrap();
    assert!(matches!(&items[0], FactRequest::Forget(_)));
    assert_eq!(items[0].key(), "city");
    assert_eq!(items[1], FactRequest::NotAnObject("string"));
    assert_eq!(items[2], FactRequest::NotAnObject("null"));
}

#[test]
fn episode_ids_are_content() {
    let id = episode_id("u1", "c1", "user", "2026-05-01T10:00:00.000Z", 0, "hello");
    assert_eq!(
        id,
        episode_id("u1", "c1", "user", "2026-05-01T10:00:00.000Z", 0, "hello")
    );
    assert!(id.starts_with("ep-") && id.len() == 19);
    for other in [
        episode_id("u2", "c1", "user", "2026-05-01T10:00:00.000Z", 0, "hello"),
        episode_id("u1", "c2", "user", "2026-05-01T10:00:00.000Z", 0, "hello"),
        episode_id(
            "u1",
            "c1",
            "assistant",
            "2026-05-01T10:00:00.000Z",
            0,
            "hello",
        ),
        episode_id("u1", "c1", "user", "2026-05-01T10:00:00.001Z", 0, "hello"),
        episode_id("u1", "c1", "user", "2026-05-01T10:00:00.000Z", 1, "hello"),
        episode_id("u1", "c1", "user", "2026-05-01T10:00:00.000Z", 0, "hello!"),
        // Length prefixes: moving text between fields is another content.
        episode_id("u1c", "1", "user", "2026-05-01T10:00:00.000Z", 0, "hello"),
    ] {
        assert_ne!(id, other);
    }
}
