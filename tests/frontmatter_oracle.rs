//! The frontmatter reader and writer against an oracle: serde_yaml (a dev-dependency only).
//! What we write is YAML other tools read as we mean it, byte for byte what serde_yaml writes for
//! typical values, and what serde_yaml writes we read back.

use memcore::profile::format::{Frontmatter, FrontmatterField};
use memcore::profile::frontmatter::{read_frontmatter_of, render_frontmatter};
use memcore::profile::*;
use proptest::prelude::*;
use serde_yaml::{Mapping, Value};

/// Values whose rendering must equal serde_yaml's byte for byte (and the issue's examples).
const TYPICAL: &[&str] = &[
    "user_123",
    "u1",
    "auth0|5f7c8ec7c33c6c004bbafe82",
    "alice@example.com",
    "système:scheduler",
    "2026-01-02T03:04:05+00:00",
    "2026-06-17T12:00:00+00:00",
    "zoë",
    "東京",
    "🧠 memory",
    "-abc",
    "?x",
    "a:b",
    "a#b",
    "a,b",
    "a'b",
    "say \"hi\"",
    "it's fine",
    "yes",
    "no",
    "on",
    "NaN",
    "inf",
    "1_000",
    "tRue",
    "=",
    "<<",
    "0x",
    "0xZZ",
    "1e400",
    "v1.2.3",
    "12:30",
    "C:\\path",
    "a | b",
    "a > b",
    "a]",
    "a}",
    "~/home",
    "a  b",
    "a: b",
    "a #b",
    "x:",
    "@x",
    "%x",
    "!x",
    "&x",
    "*x",
    "[a",
    "{a",
    "[]",
    "{}",
    "'a",
    "\"a",
    "",
    " a",
    "a ",
    "null",
    "Null",
    "NULL",
    "~",
    "true",
    "True",
    "FALSE",
    "1e3",
    "0x1F",
    "0o17",
    "0b101",
    "+0x1",
    "-0x1",
    "007",
    "-01",
    ".5",
    "+.5",
    "+1",
    "-7",
    "42",
    "3.14",
    "1.",
    ".inf",
    "-.inf",
    ".NaN",
    "---",
    "...",
    "---a",
    "- a",
    "-",
    "?",
    ":",
    "|a",
    ">a",
    "#a",
    "a\tb",
    "\t",
];

fn inner(block: &str) -> &str {
    block
        .strip_prefix("---\n")
        .and_then(|b| b.strip_suffix("---\n"))
        .unwrap()
}

fn oracle(block: &str) -> Mapping {
    serde_yaml::from_str::<Mapping>(inner(block))
        .unwrap_or_else(|e| panic!("serde_yaml refuses our output ({e}):\n{block}"))
}

fn with_user_id(user_id: &str) -> Frontmatter {
    Frontmatter {
        user_id: Some(user_id.to_string()),
        schema_version: Some(1),
        last_updated: None,
        turn_count: 3,
        extra: Vec::new(),
    }
}

#[test]
fn typical_strings_are_written_as_serde_yaml_writes_them() {
    for &value in TYPICAL {
        let ours = render_frontmatter(&with_user_id(value));
        let mut mapping = Mapping::new();
        mapping.insert("user_id".into(), value.into());
        mapping.insert("schema_version".into(), 1.into());
        mapping.insert("turn_count".into(), 3.into());
        let theirs = serde_yaml::to_string(&mapping).unwrap();
        assert_eq!(inner(&ours), theirs, "user_id {value:?}");

        // The same writer writes keys.
        let keyed = Frontmatter {
            extra: vec![FrontmatterField {
                key: value.to_string(),
                value: "1".to_string(),
            }],
            ..Frontmatter::default()
        };
        if !["user_id", "schema_version", "last_updated", "turn_count"].contains(&value) {
            let ours = render_frontmatter(&keyed);
            let mut mapping = Mapping::new();
            mapping.insert("schema_version".into(), 1.into());
            mapping.insert("turn_count".into(), 0.into());
            mapping.insert(value.into(), 1.into());
            assert_eq!(
                inner(&ours),
                serde_yaml::to_string(&mapping).unwrap(),
                "key {value:?}"
            );
        }
    }
}

#[test]
fn the_issue_examples_pick_the_expected_style() {
    let style = |value: &str| {
        let block = render_frontmatter(&with_user_id(value));
        block
            .lines()
            .find_map(|l| l.strip_prefix("user_id: "))
            .unwrap()
            .to_string()
    };
    for plain in [
        "zoë",
        "東京",
        "-abc",
        "?x",
        "a:b",
        "a#b",
        "a,b",
        "a'b",
        "user_123",
        "2026-01-02T03:04:05+00:00",
        "yes",
        "no",
        "on",
        "NaN",
        "1_000",
        "tRue",
        "=",
        "<<",
    ] {
        assert_eq!(style(plain), plain);
    }
    for quoted in [
        "a: b", "a #b", "x:", "@x", "%x", "!x", "&x", "*x", "[a", "{a", "\"a", "", " a", "a ",
        "null", "~", "1e3", "0x1F", "007", ".5", "+1", "1.", "true", "---", "...", "- a", "-", "?",
        "|a", ">a", "#a",
    ] {
        assert_eq!(style(quoted), format!("'{quoted}'"));
    }
    assert_eq!(style("'a"), "'''a'");
    assert_eq!(style("a\tb"), "\"a\\tb\"");
    assert_eq!(style("a\nb"), "\"a\\nb\"");
    for special in [
        "x\u{a0}",
        "\u{a0}x",
        "a\u{2028}b",
        "a\u{85}",
        "\u{feff}a",
        "a\u{3000}",
    ] {
        assert!(style(special).starts_with("\""), "{special:?}");
    }
}

/// Strings that stress the writer: indicators, numbers, spaces, breaks, odd Unicode.
fn tricky_string() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(TYPICAL.to_vec()).prop_map(str::to_string),
        "[ -~]{0,16}",
        "[-?:#,\\[\\]{}&*!|>'\"%@` a0.+eE]{0,8}",
        "[ \t\n\r\u{85}\u{a0}\u{2028}\u{2029}\u{feff}\u{3000}a:#-]{0,8}",
        "[0-9xob.+_-]{0,12}",
        any::<String>(),
    ]
}

fn text_of(value: Option<&Value>) -> Option<&str> {
    value.and_then(Value::as_str)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn serde_yaml_reads_our_strings_and_counts_back(
        user_id in tricky_string(),
        last_updated in tricky_string(),
        key in tricky_string(),
        turn_count in any::<u64>(),
    ) {
        let known = ["user_id", "schema_version", "last_updated", "turn_count"];
        let frontmatter = Frontmatter {
            user_id: Some(user_id.clone()),
            schema_version: Some(1),
            last_updated: Some(last_updated.clone()),
            turn_count,
            extra: vec![FrontmatterField { key: key.clone(), value: "x".to_string() }],
        };
        let block = render_frontmatter(&frontmatter);
        let mapping = oracle(&block);
        prop_assert_eq!(text_of(mapping.get("user_id")), Some(user_id.as_str()));
        prop_assert_eq!(text_of(mapping.get("last_updated")), Some(last_updated.as_str()));
        prop_assert_eq!(
            mapping.get("turn_count").and_then(Value::as_u64),
            Some(turn_count.min(format::MAX_TURN_COUNT))
        );
        if !known.contains(&key.as_str()) {
            prop_assert_eq!(text_of(mapping.get(key.as_str())), Some("x"));
        }
        // And our reader agrees.
        let read = read_frontmatter_of(&block);
        prop_assert_eq!(read.user_id.as_deref(), Some(user_id.as_str()));
        prop_assert_eq!(read.last_updated.as_deref(), Some(last_updated.as_str()));
        prop_assert_eq!(read.turn_count, turn_count.min(format::MAX_TURN_COUNT));
    }

    #[test]
    fn we_read_what_serde_yaml_writes(
        user_id in tricky_string(),
        turn_count in 0u64..1_000_000,
    ) {
        // libyaml writes a U+2028/U+2029 in a `|` block as a YAML 1.1 line break; this reader
        // reads blocks by YAML 1.2, where they are characters. Quoted ones are read as libyaml.
        prop_assume!(!(user_id.contains('\n') && user_id.contains(['\u{2028}', '\u{2029}'])));
        let mut mapping = Mapping::new();
        mapping.insert("user_id".into(), user_id.as_str().into());
        mapping.insert("schema_version".into(), 1.into());
        mapping.insert("last_updated".into(), user_id.as_str().into());
        mapping.insert("turn_count".into(), turn_count.into());
        let text = format!("---\n{}---\n", serde_yaml::to_string(&mapping).unwrap());
        let parsed = parse_profile(&text);
        let read = &parsed.profile.frontmatter;
        prop_assert_eq!(read.user_id.as_deref(), Some(user_id.as_str()), "{}", text);
        prop_assert_eq!(read.last_updated.as_deref(), Some(user_id.as_str()), "{}", text);
        prop_assert_eq!(read.turn_count, turn_count);
        prop_assert!(
            parsed.diagnostics.iter().all(|d| !matches!(d.code.as_str(), "invalid-yaml" | "invalid-user-id" | "invalid-schema-version")),
            "{:?}\n{}", parsed.diagnostics, text
        );
    }
}

/// Unknown values as a user or another tool writes them. Every one is well-formed on its own.
const SNIPPETS: &[&str] = &[
    "1",
    "plain words",
    "1 # a comment",
    "# only a comment",
    "[x, y]",
    "[]",
    "{}",
    "{a: 1, b: [2, 3]}",
    "[\"lol\", 'x', 3, {k: v}]",
    "[a,\nb]",
    "'yes: no'",
    "'it''s'",
    "\"tab\\t \\u00e9 \\\"q\\\"\"",
    "\"folded\nline\"",
    "a: b",
    "a: 1\nb:\n  - x\n  - y",
    "- x\n- y",
    "- a: 1\n  b: 2\n- c",
    "- - nested\n  - seq",
    "|\nline one\nline two",
    "|\nline one\n  more indented\n\nafter a blank",
    ">-\nfolded\ntext",
    "|+\nkeep",
    "multi\nline plain",
    "&base {x: 1}",
    "&list\n- one\n- two",
    "true",
    "null",
    "~",
    "",
    "42",
    "-1",
    "3.5",
    "2026-01-02",
    "http://example.com/a?b=c#frag",
    "C:\\x",
    "zoë 東京",
    "1e400",
];

/// Values that are not well-formed (or not on their own): kept, then written as strings.
const BROKEN: &[&str] = &[
    "x: y: z",
    "[unclosed",
    "{a: 1",
    "'unterminated",
    "\"bad \\q escape\"",
    "@reserved",
    "`tick",
    "%pct",
    "!tag x",
    "*undefined",
    "*base",
    "99999999999999999999",
    "a\nuser_id: evil",
    "- x\nuser_id: evil",
    "|\n  text\nuser_id: evil",
    "---",
    "...",
    "a\n---\nb",
    "- ---",
    "{a: 1, a: 2}",
    "a: 1\na: 2",
    "\tindented",
    "line\u{2028}break",
    "bom\u{feff}",
    " leading",
    "trailing\n",
];

/// A line of YAML-like text: some indentation, an indicator, a bit of content.
fn yaml_like_line() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["", "", " ", "  ", "    "]),
        prop::sample::select(vec![
            "", "", "- ", "-", "a: ", "b:", "'q': ", "? ", "# ", "&x ", "*x", "|", ">-", "[", "{",
            "\"", "'",
        ]),
        prop_oneof![
            prop::sample::select(SNIPPETS.to_vec()).prop_map(|s| s.replace('\n', " ")),
            "[ -~]{0,6}",
            "[\\[\\]{},:#'\" a-c0-9-]{0,6}",
        ],
    )
        .prop_map(|(indent, indicator, content)| format!("{indent}{indicator}{content}"))
}

fn extra_value() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(SNIPPETS.to_vec()).prop_map(str::to_string),
        2 => prop::sample::select(BROKEN.to_vec()).prop_map(str::to_string),
        1 => tricky_string(),
        1 => "([ -~]{0,8}\n){0,3}[ -~]{0,8}",
        3 => prop::collection::vec(yaml_like_line(), 1..5).prop_map(|lines| lines.join("\n")),
    ]
}

fn extras() -> impl Strategy<Value = Vec<FrontmatterField>> {
    prop::collection::vec(
        (
            prop_oneof![
                "[a-e]",
                Just("user_id".to_string()),
                Just("turn_count".to_string()),
                tricky_string(),
            ],
            extra_value(),
        ),
        0..6,
    )
    .prop_map(|pairs| {
        pairs
            .into_iter()
            .map(|(key, value)| FrontmatterField { key, value })
            .collect()
    })
}

/// The extras `render_frontmatter` writes: no known key, no repeat.
fn written_extras(extra: &[FrontmatterField]) -> Vec<&FrontmatterField> {
    let known = ["user_id", "schema_version", "last_updated", "turn_count"];
    let mut seen: Vec<&str> = Vec::new();
    extra
        .iter()
        .filter(|f| {
            let fresh = !known.contains(&f.key.as_str()) && !seen.contains(&f.key.as_str());
            seen.push(&f.key);
            fresh
        })
        .collect()
}

fn profile_with(user_id: Option<String>, extra: Vec<FrontmatterField>) -> Profile {
    let mut profile = parse_profile("## Identity\n- a\n").profile;
    profile.frontmatter = Frontmatter {
        user_id,
        schema_version: Some(1),
        last_updated: Some("2026-01-02T03:04:05+00:00".to_string()),
        turn_count: 7,
        extra,
    };
    profile
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn rendered_extras_are_yaml_for_other_tools_and_read_back(
        user_id in prop::option::of(tricky_string()),
        extra in extras(),
    ) {
        let profile = profile_with(user_id.clone(), extra.clone());
        let once = render_profile(&profile);
        let split = split_frontmatter(&once);
        let block = split.block.unwrap();
        // serde_yaml reads the whole block as a mapping with exactly our keys, in order.
        let mapping = oracle(block);
        let written = written_extras(&extra);
        let mut keys: Vec<&str> = Vec::new();
        if user_id.is_some() {
            keys.push("user_id");
        }
        keys.extend(["schema_version", "last_updated", "turn_count"]);
        keys.extend(written.iter().map(|f| f.key.as_str()));
        let theirs: Vec<&str> = mapping.keys().map(|k| k.as_str().unwrap()).collect();
        prop_assert_eq!(&theirs, &keys, "{}", block);
        prop_assert_eq!(text_of(mapping.get("user_id")), user_id.as_deref());
        prop_assert_eq!(mapping.get("turn_count").and_then(Value::as_u64), Some(7));

        // Our reader gives back each extra as written, or — when it was not well-formed — the
        // quoted string it was written as, which serde_yaml reads as the original text.
        let reparsed = parse_profile(&once);
        let read = &reparsed.profile.frontmatter;
        prop_assert_eq!(read.user_id.as_deref(), user_id.as_deref());
        prop_assert_eq!(read.extra.len(), written.len());
        for (back, original) in read.extra.iter().zip(&written) {
            prop_assert_eq!(&back.key, &original.key);
            if back.value != original.value {
                prop_assert!(
                    !SNIPPETS.contains(&original.value.as_str()),
                    "{:?} was not kept: {}", original.value, block
                );
                let quoted: String = serde_yaml::from_str(&back.value)
                    .unwrap_or_else(|e| panic!("{:?} ({e}) in\n{block}", back.value));
                prop_assert_eq!(&quoted, &original.value);
            }
        }
        prop_assert!(
            reparsed.diagnostics.iter().all(|d| d.code.as_str() != "invalid-yaml"),
            "{:?}\n{}", reparsed.diagnostics, block
        );
        // A fixed point.
        let twice = render_profile(&reparsed.profile);
        prop_assert_eq!(&twice, &once);
    }
}

#[test]
fn well_formed_snippets_are_kept_exactly_as_written() {
    for &snippet in SNIPPETS {
        let profile = profile_with(
            Some("u1".into()),
            vec![FrontmatterField {
                key: "k".into(),
                value: snippet.into(),
            }],
        );
        let once = render_profile(&profile);
        let read = parse_profile(&once);
        assert_eq!(
            read.profile.frontmatter.extra, profile.frontmatter.extra,
            "{once}"
        );
        assert!(read.diagnostics.is_empty(), "{:?}", read.diagnostics);
        oracle(split_frontmatter(&once).block.unwrap());
    }
}

#[test]
fn a_value_cannot_inject_a_key_or_end_the_block() {
    for value in [
        "a\nuser_id: evil",
        "x\n---\n# User Memory",
        "- a\n---",
        "|\n  ok\nturn_count: 99",
        "a\n...",
    ] {
        let profile = profile_with(
            Some("u1".into()),
            vec![FrontmatterField {
                key: "k".into(),
                value: value.into(),
            }],
        );
        let once = render_profile(&profile);
        let read = parse_profile(&once);
        let fm = &read.profile.frontmatter;
        assert_eq!(fm.user_id.as_deref(), Some("u1"), "{once}");
        assert_eq!(fm.turn_count, 7, "{once}");
        assert_eq!(fm.extra.len(), 1, "{once}");
        let mapping = oracle(split_frontmatter(&once).block.unwrap());
        let keys: Vec<&str> = mapping.keys().map(|k| k.as_str().unwrap()).collect();
        assert_eq!(
            keys,
            [
                "user_id",
                "schema_version",
                "last_updated",
                "turn_count",
                "k"
            ],
            "{once}"
        );
        assert_eq!(render_profile(&read.profile), once);
    }
    let injected = render_frontmatter(&Frontmatter {
        extra: vec![FrontmatterField {
            key: "k".into(),
            value: "a\nuser_id: evil".into(),
        }],
        ..Frontmatter::default()
    });
    assert_eq!(
        injected,
        "---\nschema_version: 1\nturn_count: 0\nk: \"a\\nuser_id: evil\"\n---\n"
    );
}

#[test]
fn unknown_values_keep_their_layout() {
    let text = "---\nuser_id: u1\nschema_version: 1\nturn_count: 1\nalpha:\n- x\n- y\nnested:\n    deep:\n      - 1\nblock: |\n    two\n      more\nflow: [a,\n  b]\nnote: 1 # why\n---\n";
    let read = read_frontmatter_of(text);
    let values: Vec<(&str, &str)> = read
        .extra
        .iter()
        .map(|f| (f.key.as_str(), f.value.as_str()))
        .collect();
    assert_eq!(
        values,
        vec![
            ("alpha", "- x\n- y"),
            ("nested", "deep:\n  - 1"),
            ("block", "|\ntwo\n  more"),
            ("flow", "[a,\nb]"),
            ("note", "1 # why"),
        ]
    );
    let rendered = render_frontmatter(&read);
    assert_eq!(
        rendered,
        "---\nuser_id: u1\nschema_version: 1\nturn_count: 1\nalpha:\n- x\n- y\nnested:\n  deep:\n    - 1\nblock: |\n  two\n    more\nflow:\n  [a,\n  b]\nnote: 1 # why\n---\n"
    );
    let theirs: Mapping = serde_yaml::from_str(inner(&rendered)).unwrap();
    let original: Mapping = serde_yaml::from_str(inner(text)).unwrap();
    assert_eq!(theirs, original);
}

/// A top-level line of a hand-written block: an unknown key, an indented or list line, a
/// comment — with YAML-ish content.
fn block_line() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["", "", "", " ", "  ", "    ", "      "]),
        prop::sample::select(vec![
            "", "- ", "a: ", "b:", "c: ", "'q': ", "# ", "&x ", "*x", "|", "|-", ">", "[", "{",
            "\"", "'", "- a: ", "x: &x ", "y: *x",
        ]),
        prop_oneof![
            4 => "[a-c0-9 .-]{0,6}",
            1 => "[\\[\\]{},:#'\" a-c0-9.-]{0,6}",
        ],
    )
        .prop_map(|(indent, indicator, content)| format!("{indent}{indicator}{content}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    /// Unknown values kept as written keep their meaning: a block serde_yaml reads, which we
    /// read without `invalid-yaml`, is rendered into a block serde_yaml reads the same.
    #[test]
    fn kept_values_mean_what_they_meant(lines in prop::collection::vec(block_line(), 1..8)) {
        let yaml = lines.join("\n") + "\n";
        let Ok(mut theirs) = serde_yaml::from_str::<Mapping>(&yaml) else {
            return Ok(());
        };
        let text = format!("---\n{yaml}---\n");
        let parsed = parse_profile(&text);
        let refused = parsed.diagnostics.iter().any(|d| {
            matches!(d.code.as_str(), "invalid-yaml" | "duplicate-frontmatter-key" | "invalid-frontmatter")
        });
        prop_assume!(!refused && theirs.keys().all(Value::is_string));
        let rendered = render_frontmatter(&parsed.profile.frontmatter);
        let mut again = oracle(&rendered);
        for known in ["schema_version", "turn_count"] {
            theirs.remove(known);
            again.remove(known);
        }
        prop_assert_eq!(&again, &theirs, "{}\n=>\n{}", yaml, rendered);
    }
}

/// Cases the property tests and fuzzing found, kept as plain tests: each is written as YAML
/// serde_yaml reads, and is a fixed point.
#[test]
fn values_found_by_fuzzing_stay_yaml_for_other_tools() {
    for value in [
        ":𖩮",
        "- \t",
        "- - \t",
        "{b:}",
        "[a:]",
        "{.:?9'}",
        "&-\n*a",
        "99999999999999999999\n\n# x",
        "&x\n\n&x 1",
        "# ,[\"c# ",
        "> \n{b'",
        "&x # c\nb: 1",
        ">-\n - a: \n     c: {}",
    ] {
        let profile = profile_with(
            Some("u1".into()),
            vec![FrontmatterField {
                key: "k".into(),
                value: value.into(),
            }],
        );
        let once = render_profile(&profile);
        oracle(split_frontmatter(&once).block.unwrap());
        assert_eq!(
            render_profile(&parse_profile(&once).profile),
            once,
            "{value:?}"
        );
    }
}

/// Values kept as written mean after a rewrite what they meant before it.
#[test]
fn kept_values_found_by_fuzzing_keep_their_meaning() {
    for yaml in [
        "c:\n  # ,[\"c# \n",
        "a:\n >-\n  - a: \n      c: {}\n",
        "x: &x # c\n  a: 1\n",
        "a:\n |\n      x\n      y\n",
        "c:\n      > \n      {b'\n",
    ] {
        let text = format!("---\n{yaml}---\n");
        let parsed = parse_profile(&text);
        assert!(
            parsed
                .diagnostics
                .iter()
                .all(|d| d.code.as_str() != "invalid-yaml"),
            "{yaml:?}: {:?}",
            parsed.diagnostics
        );
        let rendered = render_frontmatter(&parsed.profile.frontmatter);
        let mut again = oracle(&rendered);
        again.remove("schema_version");
        again.remove("turn_count");
        assert_eq!(
            again,
            serde_yaml::from_str::<Mapping>(yaml).unwrap(),
            "{yaml:?} => {rendered}"
        );
    }
}

/// A known value's anchor on a line of its own is skipped.
#[test]
fn an_anchor_line_before_a_known_value_is_skipped() {
    let text = "---\nuser_id:\n    &x\n    |\n      text\nschema_version: 1\n---\n";
    assert_eq!(read_frontmatter_of(text).user_id.as_deref(), Some("text\n"));
}

/// serde_yaml writes a U+2028 inside single quotes as a YAML 1.1 line break and reads it back as
/// itself; so does this reader (files the old writer wrote keep their ids).
#[test]
fn a_line_separator_serde_yaml_wrote_reads_back() {
    let text = "---\nuser_id: '\u{2028}  '\nschema_version: 1\nturn_count: 0\n---\n";
    assert_eq!(
        read_frontmatter_of(text).user_id.as_deref(),
        Some("\u{2028}")
    );
}
