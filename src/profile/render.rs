//! The canonical rendering (SPEC §1.2, §1.3): frontmatter, blank line, `# User Memory`, the six
//! `##` sections in order, one blank line between blocks, `_(empty)_` for an empty section,
//! exactly one trailing newline.

use super::format::{
    Frontmatter, FrontmatterField, Profile, Section, EMPTY_SECTION_MARKER, SCHEMA_VERSION,
    SECTION_HEADINGS, TITLE,
};
use super::frontmatter::{format_last_updated, render_frontmatter};
use super::markdown::{atx_heading, fence_opening};
use super::parse::{parse_profile, read_body};
use super::paths::validate_user_id;
use crate::error::Result;
use chrono::{DateTime, Utc};

/// Render a profile canonically. Any profile renders: sections out of order, duplicated, unknown
/// or holding multi-line strings are canonicalised exactly as [`parse_profile`] would read them,
/// so `render(parse(render(p))) == render(p)`.
pub fn render_profile(profile: &Profile) -> String {
    let mut out = render_frontmatter(&profile.frontmatter);
    out.push('\n');
    out.push_str(&render_body(profile));
    out
}

/// The canonical body (title and six sections, no frontmatter), ending with one newline.
pub fn render_body(profile: &Profile) -> String {
    let read_back;
    let sections = if is_canonical(&profile.sections) {
        &profile.sections
    } else {
        read_back = canonical_sections(&profile.sections);
        &read_back
    };
    let size: usize = sections
        .iter()
        .flat_map(|s| &s.lines)
        .map(|l| l.len() + 1)
        .sum();
    let mut out = String::with_capacity(size + 160);
    out.push_str("# ");
    out.push_str(TITLE);
    out.push('\n');
    for (heading, section) in SECTION_HEADINGS.iter().zip(sections) {
        out.push_str("\n## ");
        out.push_str(heading);
        out.push('\n');
        if section.is_empty() {
            out.push_str(EMPTY_SECTION_MARKER);
            out.push('\n');
        } else {
            for line in &section.lines {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// Whether the body parser would read `sections` back unchanged, so rendering may skip that
/// (what [`super::parse_profile`] returns always is). Sufficient, not necessary: the six headings
/// exactly and in order; every line one line, right-trimmed, neither `_(empty)_` nor a `##`
/// heading nor a code fence (anything fenced takes the slow path); no leading, trailing or
/// doubled blank line.
fn is_canonical(sections: &[Section]) -> bool {
    sections.len() == SECTION_HEADINGS.len()
        && sections
            .iter()
            .zip(SECTION_HEADINGS)
            .all(|(section, heading)| section.heading == heading && canonical_lines(&section.lines))
}

fn canonical_lines(lines: &[String]) -> bool {
    let mut previous_blank = true;
    for line in lines {
        let blank = line.is_empty();
        if (blank && previous_blank) || !canonical_line(line) {
            return false;
        }
        previous_blank = blank;
    }
    !previous_blank || lines.is_empty()
}

/// One content line the parser keeps as it is (see [`is_canonical`]). Most lines are decided
/// by their first and last byte; only those that may be a heading, a fence or the empty marker
/// are looked at closely.
fn canonical_line(line: &str) -> bool {
    let bytes = line.as_bytes();
    if bytes.iter().any(|&b| b == b'\n' || b == b'\r') {
        return false;
    }
    match bytes.last() {
        None => return true,
        Some(b) if b.is_ascii() && !b.is_ascii_whitespace() => {}
        Some(_) if line.trim_end().len() != line.len() => return false,
        Some(_) => {}
    }
    // `trim` (the empty-marker test) skips any whitespace, Unicode too: a line whose first
    // non-blank byte is not ASCII is looked at closely as well.
    let first = bytes
        .iter()
        .copied()
        .find(|&b| !matches!(b, b' ' | b'\t' | 0x0b | 0x0c));
    if !matches!(first, Some(b'#' | b'`' | b'~' | b'_' | 0x80..)) {
        return true;
    }
    line.trim() != EMPTY_SECTION_MARKER
        && fence_opening(line).is_none()
        && !matches!(atx_heading(line), Some((2, _)))
}

/// Read hand-built sections back through the body parser so that rendering and parsing agree on
/// every irregular shape.
fn canonical_sections(sections: &[Section]) -> Vec<Section> {
    let mut naive = String::new();
    for section in sections {
        naive.push_str("## ");
        naive.push_str(&section.heading);
        naive.push('\n');
        for line in &section.lines {
            naive.push_str(line);
            naive.push('\n');
        }
    }
    let mut ignored = Vec::new();
    read_body(&naive, 1, &mut ignored).sections
}

/// A new profile: six empty sections, `turn_count: 0`, `last_updated` now. The user id must
/// name a storage folder (SPEC §1.1; `E_INVALID_USER_ID` otherwise).
pub fn empty_profile(user_id: &str, now: DateTime<Utc>) -> Result<Profile> {
    validate_user_id(user_id)?;
    Ok(Profile {
        frontmatter: Frontmatter {
            user_id: Some(user_id.to_string()),
            schema_version: Some(SCHEMA_VERSION),
            last_updated: Some(format_last_updated(now)),
            turn_count: 0,
            extra: Vec::new(),
        },
        title: Some(TITLE.to_string()),
        sections: SECTION_HEADINGS
            .iter()
            .map(|heading| Section {
                heading: (*heading).to_string(),
                lines: Vec::new(),
            })
            .collect(),
    })
}

/// What the application writes into a new frontmatter (SPEC §1.3). (No serde: `chrono` is built
/// without its `serde` feature; the wasm layer converts the time itself.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssembleOptions {
    /// The authenticated user's id.
    pub user_id: String,
    /// The new rewrite count.
    pub turn_count: u64,
    /// Written as `last_updated` (UTC, whole seconds, `+00:00`).
    pub now: DateTime<Utc>,
    /// Unknown keys to carry over from the previous frontmatter, in order.
    pub extra: Vec<FrontmatterField>,
}

/// A complete `memory.md` from a (normalised) body and an application-written frontmatter. Any
/// frontmatter inside `body` is discarded — the model never writes it. The result is canonical.
/// The user id must name a storage folder (SPEC §1.1; `E_INVALID_USER_ID` otherwise).
pub fn assemble_profile(body: &str, options: &AssembleOptions) -> Result<String> {
    validate_user_id(&options.user_id)?;
    let parsed = parse_profile(body).profile;
    let profile = Profile {
        frontmatter: Frontmatter {
            user_id: Some(options.user_id.clone()),
            schema_version: Some(SCHEMA_VERSION),
            last_updated: Some(format_last_updated(options.now)),
            turn_count: options.turn_count,
            extra: options.extra.clone(),
        },
        title: Some(TITLE.to_string()),
        sections: parsed.sections,
    };
    Ok(render_profile(&profile))
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn line() -> impl Strategy<Value = String> {
        prop_oneof![
            6 => Just(String::new()),
            12 => Just("- a fact".to_string()),
            6 => Just("  - nested".to_string()),
            6 => Just("### Sub".to_string()),
            12 => "[a-z -]{0,12}",
            1 => Just("## Identity".to_string()),
            1 => Just("# Title".to_string()),
            1 => Just("_(empty)_".to_string()),
            1 => Just("```".to_string()),
            1 => Just("~~~md".to_string()),
            1 => Just("trailing ".to_string()),
            1 => Just("two\nlines".to_string()),
            1 => Just("cr\rline".to_string()),
            1 => "[ -~]{0,12}",
            1 => Just(" _(empty)_".to_string()),
            1 => Just("\t_(empty)_".to_string()),
            1 => Just("\u{b}_(empty)_".to_string()),
            1 => Just("\u{a0}_(empty)_".to_string()),
            1 => Just("\u{3000}## Identity".to_string()),
            1 => Just("\t```".to_string()),
            1 => Just("   ## x".to_string()),
        ]
    }

    proptest! {
        /// The fast path is sound: whenever it is taken, the slow path gives the same sections.
        #[test]
        fn canonical_sections_read_back_unchanged(
            bodies in proptest::collection::vec(proptest::collection::vec(line(), 0..6), 6)
        ) {
            let sections: Vec<Section> = SECTION_HEADINGS
                .iter()
                .zip(bodies)
                .map(|(h, lines)| Section { heading: (*h).to_string(), lines })
                .collect();
            if is_canonical(&sections) {
                prop_assert_eq!(canonical_sections(&sections), sections);
            }
        }
    }

    #[test]
    fn parsed_profiles_take_the_fast_path() {
        let text = "---\nuser_id: u\n---\n# User Memory\n\n## Identity\n- a\n\n- b\n### x\n\n## Work Context\n- w\n";
        assert!(is_canonical(&parse_profile(text).profile.sections));
    }
}
