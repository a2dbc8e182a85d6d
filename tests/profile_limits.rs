//! Bad and large inputs, and the small helpers not covered by the shared vectors.

use chrono::{TimeZone, Utc};
use memcore::profile::*;
use memcore::ErrorCode;

fn now() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 6, 17, 12, 0, 0).unwrap()
}

#[test]
fn ten_megabyte_profile_parses_and_renders() {
    let mut text =
        String::from("---\nuser_id: u1\nschema_version: 1\nturn_count: 1\n---\n\n# User Memory\n");
    let mut i = 0;
    while text.len() < 10 * 1024 * 1024 {
        let heading = SECTION_HEADINGS[i % 6];
        text.push_str(&format!("\n## {heading}\n"));
        for j in 0..200 {
            text.push_str(&format!(
                "- fact {i}.{j} über Zürich\n  - nested\n### sub {j}\n"
            ));
        }
        i += 1;
    }
    let parsed = parse_profile(&text);
    assert_eq!(parsed.profile.frontmatter.turn_count, 1);
    assert!(parsed
        .diagnostics
        .iter()
        .any(|d| d.code == DiagnosticCode::DuplicateSection));
    let rendered = render_profile(&parsed.profile);
    assert!(rendered.len() > 10 * 1024 * 1024 - 100_000);
    assert!(is_well_formed_body(&profile_body(&rendered)));
}

#[test]
fn yaml_alias_bomb_is_kept_as_written_and_never_expanded() {
    let mut yaml = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
    for pair in names.windows(2) {
        let refs = vec![format!("*{}", pair[0]); 9].join(",");
        yaml.push_str(&format!("{}: &{} [{refs}]\n", pair[1], pair[1]));
    }
    let parsed = parse_profile(&format!("---\n{yaml}turn_count: 5\n---\n# User Memory\n"));
    // Every alias names an anchor defined before it: valid YAML. Unknown values are kept as
    // the text written, so nothing is expanded and no entry is lost.
    assert!(parsed
        .diagnostics
        .iter()
        .all(|d| d.code != DiagnosticCode::InvalidYaml));
    assert_eq!(parsed.profile.frontmatter.turn_count, 5);
    let extra = &parsed.profile.frontmatter.extra;
    assert_eq!(extra.len(), 10);
    assert_eq!(extra[9].value, "&j [*i,*i,*i,*i,*i,*i,*i,*i,*i]");
    let rendered = render_profile(&parsed.profile);
    assert!(rendered.len() < 4_000, "{} bytes", rendered.len());
    assert!(rendered.contains("\nj: &j [*i,*i,*i,*i,*i,*i,*i,*i,*i]\n"));
    assert_eq!(
        render_profile(&parse_profile(&rendered).profile),
        rendered,
        "the kept text round-trips"
    );
}

#[test]
fn oversized_frontmatter_is_not_parsed() {
    let yaml = format!("turn_count: 3\nbig: '{}'\n", "x".repeat(70_000));
    let parsed = parse_profile(&format!("---\n{yaml}---\n# User Memory\n"));
    assert_eq!(
        parsed.diagnostics[0].code,
        DiagnosticCode::FrontmatterTooLarge
    );
    assert_eq!(parsed.profile.frontmatter.turn_count, 0);
}

#[test]
fn deeply_nested_frontmatter_is_an_invalid_yaml_diagnostic() {
    let deep = format!("a: {}{}\n", "[".repeat(20_000), "]".repeat(20_000));
    let parsed = parse_profile(&format!("---\n{deep}---\n"));
    assert!(parsed
        .diagnostics
        .iter()
        .any(|d| d.code == DiagnosticCode::FrontmatterTooLarge
            || d.code == DiagnosticCode::InvalidYaml));
    let deep = format!("a: {}{}\n", "[".repeat(1_000), "]".repeat(1_000));
    let parsed = parse_profile(&format!("---\n{deep}---\n"));
    assert_eq!(parsed.diagnostics[0].code, DiagnosticCode::InvalidYaml);
}

#[test]
fn frontmatter_only_file_has_six_empty_sections() {
    let parsed = parse_profile("---\nuser_id: u1\nturn_count: 2\n---\n");
    assert!(parsed.profile.sections.iter().all(Section::is_empty));
    assert_eq!(
        memory_system_prompt_section("---\nuser_id: u1\nturn_count: 2\n---\n"),
        ""
    );
}

fn options() -> EditOptions {
    EditOptions {
        user_id: "u1".to_string(),
        now: now(),
    }
}

#[test]
fn edit_body_of_exactly_one_mebibyte_is_accepted() {
    let body = "é".repeat(MAX_EDIT_BODY_BYTES / 2);
    assert_eq!(body.len(), 1_048_576);
    assert!(apply_user_edit(None, &body, &options()).is_ok());
}

#[test]
fn edit_body_one_byte_over_a_mebibyte_is_too_large() {
    let body = format!("{}a", "é".repeat(MAX_EDIT_BODY_BYTES / 2));
    assert_eq!(body.len(), 1_048_577);
    let error = apply_user_edit(Some("---\nturn_count: 3\n---\n"), &body, &options()).unwrap_err();
    assert_eq!(error.code, ErrorCode::TooLarge);
}

#[test]
fn edit_keeps_frontmatter_and_view_hides_it() {
    let stored = "---\nuser_id: u1\nturn_count: 3  # note\nx: [1,2]\n---\n\n# User Memory\n\n## Identity\n- a\n";
    let edited = apply_user_edit(
        Some(stored),
        "# User Memory\n\n## Identity\n- b\n",
        &options(),
    )
    .unwrap();
    assert!(edited
        .text
        .starts_with("---\nuser_id: u1\nturn_count: 3  # note\nx: [1,2]\n---\n\n# User Memory"));
    let view = memory_view(Some(&edited.text));
    assert!(view.exists);
    assert_eq!(view.turn_count, Some(3));
    assert_eq!(view.body, "# User Memory\n\n## Identity\n- b\n");
    assert_eq!(editable_body(stored), "# User Memory\n\n## Identity\n- a\n");
    assert_eq!(
        memory_view(None),
        MemoryView {
            exists: false,
            body: String::new(),
            last_updated: None,
            turn_count: None
        }
    );
}

#[test]
fn web_search_tooltip_is_exact() {
    assert_eq!(
        WEB_SEARCH_TOOLTIP,
        "Context memory is unavailable while web search is enabled, to keep user data out of external search queries."
    );
}

#[test]
fn orchestrator_treats_missing_allow_user_memory_as_disabled() {
    assert!(!orchestrator_memory_enabled(None));
    assert!(!orchestrator_memory_enabled(Some(false)));
    assert!(orchestrator_memory_enabled(Some(true)));
}

#[test]
fn duplicate_active_roots_are_named_in_the_warning() {
    let root = |name: &str, active: bool, id: Option<&str>| RootInfo {
        name: name.to_string(),
        active,
        id: id.map(str::to_string),
    };
    let roots = [
        root("user-memory", true, Some("f1")),
        root("user-memory", false, Some("f2")),
        root("other", true, None),
    ];
    assert_eq!(check_memory_roots(&roots, None), None);
    let roots = [
        root("user-memory", true, Some("f1")),
        root("user-memory", true, Some("f3")),
    ];
    let warning = check_memory_roots(&roots, None).unwrap();
    assert!(
        warning.contains("f1") && warning.contains("f3"),
        "{warning}"
    );
    // The default applies only without a configured name.
    assert_eq!(check_memory_roots(&roots, Some("other")), None);
    assert_eq!(
        check_memory_roots(&roots, Some("user-memory")),
        Some(warning)
    );
}

#[test]
fn empty_and_assembled_profiles_refuse_ids_that_cannot_name_a_folder() {
    for bad in ["", "a/b", "..", "CON", " a", "x".repeat(256).as_str()] {
        assert_eq!(
            empty_profile(bad, now()).unwrap_err().code,
            memcore::ErrorCode::InvalidUserId,
            "{bad:?}"
        );
        let options = AssembleOptions {
            user_id: bad.into(),
            turn_count: 1,
            now: now(),
            extra: Vec::new(),
        };
        assert_eq!(
            assemble_profile("## Identity\n- a\n", &options)
                .unwrap_err()
                .code,
            memcore::ErrorCode::InvalidUserId,
            "{bad:?}"
        );
    }
}

#[test]
fn empty_and_assembled_profiles_are_canonical() {
    let empty = render_profile(&empty_profile("u1", now()).unwrap());
    assert_eq!(
        empty,
        "---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-06-17T12:00:00+00:00\nturn_count: 0\n---\n\n\
         # User Memory\n\n## Identity\n_(empty)_\n\n## Communication Preferences\n_(empty)_\n\n\
         ## Work Context\n_(empty)_\n\n## Skills & Expertise\n_(empty)_\n\n## Recent Topics\n_(empty)_\n\n\
         ## Follow-ups\n_(empty)_\n"
    );
    let body =
        normalise_model_body("```markdown\n---\nturn_count: 99\n---\n## Identity\n- Ana\n```");
    let assembled = assemble_profile(
        &body,
        &AssembleOptions {
            user_id: "u1".into(),
            turn_count: 4,
            now: now(),
            extra: Vec::new(),
        },
    )
    .unwrap();
    assert!(assembled.starts_with("---\nuser_id: u1\nschema_version: 1\nlast_updated: 2026-06-17T12:00:00+00:00\nturn_count: 4\n---\n\n# User Memory\n\n## Identity\n- Ana\n\n"));
}

#[test]
fn diagnostics_serialise_with_stable_codes() {
    let parsed = parse_profile("## Hobbies\n");
    let json = serde_json::to_value(&parsed.diagnostics).unwrap();
    assert_eq!(json[0]["code"], "missing-frontmatter");
    assert_eq!(json[0]["severity"], "info");
    assert!(json
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["code"] == "unknown-section" && d["line"] == 1));
    for d in &parsed.diagnostics {
        assert_eq!(serde_json::to_value(d.code).unwrap(), d.code.as_str());
    }
}
