//! Property tests: parsing is total, and rendering is a fixed point of parse ∘ render.

use memcore::profile::*;
use proptest::prelude::*;

/// Lines that exercise the parser: headings (canonical, variant, unknown), fences, markers,
/// frontmatter delimiters, CRLF, non-ASCII.
fn interesting_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("---".to_string()),
        Just("...".to_string()),
        Just("# User Memory".to_string()),
        Just("# Other".to_string()),
        Just("## Identity".to_string()),
        Just("## identity  ".to_string()),
        Just("## Work Context".to_string()),
        Just("## Skills and Expertise".to_string()),
        Just("## Follow-ups".to_string()),
        Just("## Recent Topics ##".to_string()),
        Just("## Hobbies".to_string()),
        Just("##".to_string()),
        Just("### Sub".to_string()),
        Just("```".to_string()),
        Just("~~~~".to_string()),
        Just("```markdown".to_string()),
        Just("_(empty)_".to_string()),
        Just("".to_string()),
        Just("   ".to_string()),
        Just("- bullet".to_string()),
        Just("  - nested".to_string()),
        Just("user_id: u1".to_string()),
        Just("turn_count: 3".to_string()),
        Just("x: &a [1, *a]".to_string()),
        Just("key: [unclosed".to_string()),
        Just("\u{feff}".to_string()),
        Just("- Zürich 日本 🧠".to_string()),
        Just("line\r".to_string()),
        "[ -~]{0,12}",
        any::<String>(),
    ]
}

fn document() -> impl Strategy<Value = String> {
    prop::collection::vec(interesting_line(), 0..40).prop_map(|lines| lines.join("\n"))
}

fn section() -> impl Strategy<Value = Section> {
    (
        prop_oneof![
            prop::sample::select(SECTION_HEADINGS.to_vec()).prop_map(str::to_string),
            any::<String>(),
        ],
        prop::collection::vec(interesting_line(), 0..6),
    )
        .prop_map(|(heading, lines)| Section { heading, lines })
}

fn frontmatter() -> impl Strategy<Value = Frontmatter> {
    (
        prop::option::of(any::<String>()),
        prop::option::of(any::<String>()),
        any::<u64>(),
        prop::collection::vec((any::<String>(), any::<String>()), 0..3),
    )
        .prop_map(|(user_id, last_updated, turn_count, extra)| Frontmatter {
            user_id,
            schema_version: Some(1),
            last_updated,
            turn_count,
            extra: extra
                .into_iter()
                .map(|(key, value)| FrontmatterField { key, value })
                .collect(),
        })
}

fn profile() -> impl Strategy<Value = Profile> {
    (frontmatter(), prop::collection::vec(section(), 0..8)).prop_map(|(frontmatter, sections)| {
        Profile {
            frontmatter,
            title: None,
            sections,
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn parse_never_panics_on_arbitrary_strings(text in any::<String>()) {
        let parsed = parse_profile(&text);
        prop_assert_eq!(parsed.profile.sections.len(), 6);
    }

    #[test]
    fn render_is_a_fixed_point_for_parsed_documents(text in document()) {
        let once = render_profile(&parse_profile(&text).profile);
        let twice = render_profile(&parse_profile(&once).profile);
        prop_assert_eq!(&twice, &once);
        prop_assert!(once.ends_with('\n') && !once.ends_with("\n\n"));
        prop_assert!(is_well_formed_body(&profile_body(&once)));
    }

    #[test]
    fn render_is_a_fixed_point_for_built_profiles(p in profile()) {
        let once = render_profile(&p);
        let reparsed = parse_profile(&once);
        let twice = render_profile(&reparsed.profile);
        prop_assert_eq!(&twice, &once);
    }

    /// The parser splits on line ends, so no line it returns holds one: the wasm binding's
    /// canonical check of parsed sections (`unbroken_lines_are_canonical`) relies on it.
    #[test]
    fn parsed_lines_hold_no_line_break(text in document(), any_text in any::<String>()) {
        for text in [text, any_text] {
            let parsed = parse_profile_lines(&text);
            for lines in &parsed.sections {
                for line in lines {
                    prop_assert!(!line.contains(['\n', '\r']), "{:?} in {:?}", line, text);
                }
                prop_assert_eq!(unbroken_lines_are_canonical(lines), lines_are_canonical(lines));
            }
        }
    }

    #[test]
    fn model_body_helpers_never_panic(text in document()) {
        let normalised = normalise_model_body(&text);
        let _ = is_well_formed_body(&normalised);
        let _ = memory_system_prompt_section(&text);
        let _ = profile_body(&text);
    }
}
