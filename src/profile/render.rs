//! The canonical rendering (SPEC §1.2, §1.3): frontmatter, blank line, `# User Memory`, the six
//! `##` sections in order, one blank line between blocks, `_(empty)_` for an empty section,
//! exactly one trailing newline.

use super::format::{
    Frontmatter, FrontmatterField, Profile, Section, EMPTY_SECTION_MARKER, SCHEMA_VERSION,
    SECTION_HEADINGS, TITLE,
};
use super::frontmatter::{format_last_updated, render_frontmatter};
use super::parse::{parse_profile, read_body};
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
    let sections = canonical_sections(&profile.sections);
    let mut out = format!("# {TITLE}\n");
    for (heading, section) in SECTION_HEADINGS.iter().zip(&sections) {
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

/// A new profile: six empty sections, `turn_count: 0`, `last_updated` now.
pub fn empty_profile(user_id: &str, now: DateTime<Utc>) -> Profile {
    Profile {
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
    }
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
pub fn assemble_profile(body: &str, options: &AssembleOptions) -> String {
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
    render_profile(&profile)
}
