//! The canonical rendering (behaviour §1.2, §1.3): frontmatter, blank line, `# User Memory`, the
//! six `##` sections in order, one blank line between blocks, `_(empty)_` for an empty section,
//! exactly one trailing newline.

use super::format::{
    Frontmatter, FrontmatterField, Profile, Section, EMPTY_SECTION_MARKER, SCHEMA_VERSION,
    SECTION_HEADINGS, TITLE,
};
use super::frontmatter::{format_last_updated, render_frontmatter};
use super::markdown::{atx_heading, fence_opening, line_break};
use super::parse::{parse_profile, read_body};
use super::paths::validate_user_id;
use crate::error::Result;
use chrono::{DateTime, Utc};

/// Render a profile canonically. Any profile renders: sections out of order, duplicated, unknown
/// or holding multi-line strings are canonicalised exactly as [`parse_profile`] would read them,
/// so `render(parse(render(p))) == render(p)`.
pub fn render_profile(profile: &Profile) -> String {
    let lines = section_lines(&profile.sections);
    let sections = section_views(&profile.sections, &lines);
    match render_profile_pieces(&profile.frontmatter, &sections) {
        RenderedProfile::Pieces(pieces) => expand_pieces(&pieces, &sections),
        RenderedProfile::Text(text) => text,
    }
}

/// [`render_profile`]'s answer before it is joined into one text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenderedProfile {
    /// The sections were canonical: the text is these pieces in order (the frontmatter and its
    /// blank line open the first text piece).
    Pieces(Vec<BodyPiece>),
    /// The sections needed canonicalising: the whole text.
    Text(String),
}

/// Render a profile given as its frontmatter and section views (see [`render_profile`]), as
/// pieces when the sections are canonical, so that a caller holding the line text already (the
/// JS binding) need not receive it again.
pub fn render_profile_pieces(
    frontmatter: &Frontmatter,
    sections: &[SectionView<'_>],
) -> RenderedProfile {
    match canonical_body_pieces(sections) {
        Some(pieces) => RenderedProfile::Pieces(with_frontmatter(frontmatter, pieces)),
        None => {
            let mut head = render_frontmatter(frontmatter);
            head.push('\n');
            let read_back = canonical_sections(sections);
            let lines = section_lines(&read_back);
            let views = section_views(&read_back, &lines);
            head.push_str(&expand_pieces(&body_pieces(&views), &views));
            RenderedProfile::Text(head)
        }
    }
}

/// A section's lines as [`render_known_pieces`] reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KnownLines<'a> {
    /// The lines themselves.
    Given(&'a [&'a str]),
    /// Only how many there are: the caller holds lines for which [`lines_are_canonical`] held
    /// (the JS binding keeps them from a `parseProfile` answer, unchanged since), so neither
    /// their text nor a second check is needed. The layout depends only on whether a section
    /// has any: canonical lines never start with a blank one, so a non-empty run of them is
    /// never all blank.
    Canonical(usize),
}

/// [`render_profile_pieces`] for sections some of whose lines are only counted
/// ([`KnownLines::Canonical`]): the pieces when every section is canonical; `None` when they
/// need canonicalising, which reads every line — the caller then sends them all.
pub fn render_known_pieces(
    frontmatter: &Frontmatter,
    sections: &[(&str, KnownLines<'_>)],
) -> Option<Vec<BodyPiece>> {
    let canonical = sections.len() == SECTION_HEADINGS.len()
        && sections
            .iter()
            .zip(SECTION_HEADINGS)
            .all(|((found, lines), heading)| {
                *found == heading
                    && match lines {
                        KnownLines::Given(lines) => lines_are_canonical(lines),
                        KnownLines::Canonical(_) => true,
                    }
            });
    if !canonical {
        return None;
    }
    let pieces = layout(sections.iter().map(|(_, lines)| match lines {
        KnownLines::Given(lines) => has_content(lines),
        KnownLines::Canonical(count) => *count > 0,
    }));
    Some(with_frontmatter(frontmatter, pieces))
}

/// The frontmatter and its blank line in front of the body's pieces.
fn with_frontmatter(frontmatter: &Frontmatter, mut pieces: Vec<BodyPiece>) -> Vec<BodyPiece> {
    let mut head = render_frontmatter(frontmatter);
    head.push('\n');
    match pieces.first_mut() {
        Some(BodyPiece::Text(first)) => first.insert_str(0, &head),
        _ => pieces.insert(0, BodyPiece::Text(head)),
    }
    pieces
}

/// The canonical body (title and six sections, no frontmatter), ending with one newline.
pub fn render_body(profile: &Profile) -> String {
    let lines = section_lines(&profile.sections);
    let sections = section_views(&profile.sections, &lines);
    if let Some(pieces) = canonical_body_pieces(&sections) {
        return expand_pieces(&pieces, &sections);
    }
    let read_back = canonical_sections(&sections);
    let lines = section_lines(&read_back);
    let sections = section_views(&read_back, &lines);
    expand_pieces(&body_pieces(&sections), &sections)
}

/// A section as the renderer reads it: its heading and its content lines, owned or borrowed.
pub type SectionView<'a> = (&'a str, &'a [&'a str]);

/// The lines of owned sections as slices (the renderer reads both kinds through one type).
fn section_lines(sections: &[Section]) -> Vec<Vec<&str>> {
    sections
        .iter()
        .map(|s| s.lines.iter().map(String::as_str).collect())
        .collect()
}

fn section_views<'a>(sections: &'a [Section], lines: &'a [Vec<&'a str>]) -> Vec<SectionView<'a>> {
    sections
        .iter()
        .zip(lines)
        .map(|(s, lines)| (s.heading.as_str(), lines.as_slice()))
        .collect()
}

/// One piece of a canonical body: literal text, or the content lines of the section at an
/// index, each followed by a newline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyPiece {
    /// Text written as it is.
    Text(String),
    /// The lines of `sections[i]`, each followed by `\n`.
    Lines(usize),
}

/// The canonical body of `sections` as pieces, when the body parser would read them back
/// unchanged (what [`super::parse_profile`] returns always is); `None` when they need
/// canonicalising first ([`render_body`] does that). Expanding the pieces gives exactly
/// [`render_body`]'s text; the binding sends them so that JS can reuse the line text it holds.
pub fn canonical_body_pieces(sections: &[SectionView<'_>]) -> Option<Vec<BodyPiece>> {
    is_canonical(sections).then(|| body_pieces(sections))
}

/// The layout: `# User Memory`, then each heading with its lines or `_(empty)_`, blocks apart by
/// one blank line. `sections` are canonical: the six headings in order.
fn body_pieces(sections: &[SectionView<'_>]) -> Vec<BodyPiece> {
    layout(sections.iter().map(|(_, lines)| has_content(lines)))
}

/// Whether a section shows its lines (rather than `_(empty)_`): one of them is not blank.
fn has_content(lines: &[&str]) -> bool {
    !lines.iter().all(|line| line.trim().is_empty())
}

/// [`body_pieces`] from whether each of the six sections has content.
fn layout(has_content: impl Iterator<Item = bool>) -> Vec<BodyPiece> {
    let mut pieces = Vec::with_capacity(2 * SECTION_HEADINGS.len() + 1);
    let mut text = String::with_capacity(64);
    text.push_str("# ");
    text.push_str(TITLE);
    text.push('\n');
    for (index, (heading, shown)) in SECTION_HEADINGS.iter().zip(has_content).enumerate() {
        text.push_str("\n## ");
        text.push_str(heading);
        text.push('\n');
        if shown {
            pieces.push(BodyPiece::Text(std::mem::take(&mut text)));
            pieces.push(BodyPiece::Lines(index));
        } else {
            text.push_str(EMPTY_SECTION_MARKER);
            text.push('\n');
        }
    }
    if !text.is_empty() {
        pieces.push(BodyPiece::Text(text));
    }
    pieces
}

fn expand_pieces(pieces: &[BodyPiece], sections: &[SectionView<'_>]) -> String {
    let lines_of = |index: usize| sections.get(index).map_or(&[][..], |(_, lines)| *lines);
    let size: usize = pieces
        .iter()
        .map(|piece| match piece {
            BodyPiece::Text(text) => text.len(),
            BodyPiece::Lines(index) => lines_of(*index).iter().map(|line| line.len() + 1).sum(),
        })
        .sum();
    let mut out = String::with_capacity(size);
    for piece in pieces {
        match piece {
            BodyPiece::Text(text) => out.push_str(text),
            BodyPiece::Lines(index) => {
                for line in lines_of(*index) {
                    out.push_str(line);
                    out.push('\n');
                }
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
fn is_canonical(sections: &[SectionView<'_>]) -> bool {
    sections.len() == SECTION_HEADINGS.len()
        && sections
            .iter()
            .zip(SECTION_HEADINGS)
            .all(|((found, lines), heading)| *found == heading && lines_are_canonical(lines))
}

/// Whether a section's lines are canonical on their own: each one line, right-trimmed, neither
/// `_(empty)_` nor a `##` heading nor a code fence, no leading, trailing or doubled blank line
/// (the per-section half of [`is_canonical`]; the wasm binding answers it for each section
/// `parseProfile` returns, so that rendering the same lines again needs neither them nor the
/// check — [`KnownLines::Canonical`]).
pub fn lines_are_canonical<S: AsRef<str>>(lines: &[S]) -> bool {
    lines
        .iter()
        .all(|line| line_break(line.as_ref().as_bytes()).is_none())
        && unbroken_lines_are_canonical(lines)
}

/// [`lines_are_canonical`] for lines that hold no `\n` or `\r`: what the parser returns (it
/// splits the text on them; `tests/profile_props.rs` checks it for generated texts), so the
/// wasm binding's check of every parsed section skips the scan for them.
pub fn unbroken_lines_are_canonical<S: AsRef<str>>(lines: &[S]) -> bool {
    let mut previous_blank = true;
    for line in lines {
        let line = line.as_ref();
        let blank = line.is_empty();
        if (blank && previous_blank) || !canonical_line(line) {
            return false;
        }
        previous_blank = blank;
    }
    !previous_blank || lines.is_empty()
}

/// One content line without a line break the parser keeps as it is (see [`is_canonical`]).
/// Most lines are decided by their first and last byte; only those that may be a heading, a
/// fence or the empty marker are looked at closely.
fn canonical_line(line: &str) -> bool {
    let bytes = line.as_bytes();
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
fn canonical_sections(sections: &[SectionView<'_>]) -> Vec<Section> {
    let mut naive = String::new();
    for (heading, lines) in sections {
        naive.push_str("## ");
        naive.push_str(heading);
        naive.push('\n');
        for line in *lines {
            naive.push_str(line);
            naive.push('\n');
        }
    }
    let mut ignored = Vec::new();
    read_body(&naive, 1, &mut ignored).into_sections()
}

/// A new profile: six empty sections, `turn_count: 0`, `last_updated` now. The user id must
/// name a storage folder (behaviour §1.1; `E_INVALID_USER_ID` otherwise).
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
        sections: empty_sections(),
    })
}

fn empty_sections() -> Vec<Section> {
    SECTION_HEADINGS
        .iter()
        .map(|heading| Section {
            heading: (*heading).to_string(),
            lines: Vec::new(),
        })
        .collect()
}

/// The body of a new profile (the title and the six sections, each `_(empty)_`): what a user
/// who has none starts writing from in Settings (behaviour §1.10).
pub fn empty_body() -> String {
    render_body(&Profile {
        frontmatter: Frontmatter::default(),
        title: Some(TITLE.to_string()),
        sections: empty_sections(),
    })
}

/// What the application writes into a new frontmatter (behaviour §1.3). (No serde: `chrono` is
/// built without its `serde` feature; the wasm layer converts the time itself.)
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
/// The user id must name a storage folder (behaviour §1.1; `E_INVALID_USER_ID` otherwise).
pub fn assemble_profile(body: &str, options: &AssembleOptions) -> Result<String> {
    assemble_parsed(parse_profile(body).profile, options)
}

/// [`assemble_profile`] of a body already parsed (`parse_profile(body).profile`): the turn parses
/// the consolidation's body once for the unchanged check and the file.
pub fn assemble_parsed(parsed: Profile, options: &AssembleOptions) -> Result<String> {
    validate_user_id(&options.user_id)?;
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

    #[test]
    fn empty_body_is_the_body_of_a_new_profile() {
        let profile = empty_profile("u1", DateTime::UNIX_EPOCH).unwrap();
        assert_eq!(
            empty_body(),
            crate::profile::profile_body(&render_profile(&profile))
        );
        assert!(empty_body().starts_with("# User Memory\n\n## Identity\n_(empty)_\n\n"));
    }

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
            let lines = section_lines(&sections);
            let views = section_views(&sections, &lines);
            if is_canonical(&views) {
                prop_assert_eq!(canonical_sections(&views), sections.clone());
            }
        }
    }

    proptest! {
        /// What the JS binding relies on: a section whose lines [`lines_are_canonical`] accepted
        /// at parse time may be sent as a count only. For every text built from these lines
        /// and every choice of sections to count only (bit `i` of `known`), the pieces are
        /// [`render_profile_pieces`]' pieces for the lines themselves, or `None` exactly when
        /// those need canonicalising.
        #[test]
        fn sections_known_canonical_render_as_their_lines_do(
            body in proptest::collection::vec(line(), 0..40),
            headings in proptest::collection::vec(0usize..7, 0..12),
            known in 0u32..64,
        ) {
            // Headings (one in seven unknown) interleaved with the lines.
            let mut text = String::from("---\nuser_id: u\n---\n");
            for (i, line) in body.iter().enumerate() {
                if let Some(h) = headings.get(i % 12).filter(|_| i % 3 == 0) {
                    text.push_str("## ");
                    text.push_str(SECTION_HEADINGS.get(*h).copied().unwrap_or("Other"));
                    text.push('\n');
                }
                text.push_str(line);
                text.push('\n');
            }
            let parsed = parse_profile(&text).profile;
            let lines = section_lines(&parsed.sections);
            let views = section_views(&parsed.sections, &lines);
            let full = render_profile_pieces(&parsed.frontmatter, &views);
            let shapes: Vec<(&str, KnownLines<'_>)> = views
                .iter()
                .enumerate()
                .map(|(i, (heading, lines))| {
                    let counted = known >> i & 1 == 1 && lines_are_canonical(lines);
                    let lines = if counted { KnownLines::Canonical(lines.len()) } else { KnownLines::Given(lines) };
                    (*heading, lines)
                })
                .collect();
            match (render_known_pieces(&parsed.frontmatter, &shapes), full) {
                (Some(pieces), RenderedProfile::Pieces(expected)) => prop_assert_eq!(pieces, expected),
                (None, RenderedProfile::Text(_)) => {}
                (known, full) => prop_assert!(false, "{known:?} against {full:?}"),
            }
        }
    }

    #[test]
    fn a_known_section_among_ones_that_need_canonicalising_asks_for_every_line() {
        let lines = ["- a"];
        let trailing = ["- b  "];
        let sections: Vec<(&str, KnownLines<'_>)> = SECTION_HEADINGS
            .iter()
            .enumerate()
            .map(|(i, h)| match i {
                0 => (*h, KnownLines::Canonical(1)),
                1 => (*h, KnownLines::Given(&trailing)),
                _ => (*h, KnownLines::Given(&lines)),
            })
            .collect();
        assert_eq!(
            render_known_pieces(&Frontmatter::default(), &sections),
            None
        );
        // Headings out of order need canonicalising too.
        let mut swapped = sections.clone();
        swapped.swap(0, 1);
        if let Some(second) = swapped.get_mut(0) {
            second.1 = KnownLines::Given(&lines);
        }
        assert_eq!(render_known_pieces(&Frontmatter::default(), &swapped), None);
        // An empty count is an empty section.
        let empty: Vec<(&str, KnownLines<'_>)> = SECTION_HEADINGS
            .iter()
            .map(|h| (*h, KnownLines::Canonical(0)))
            .collect();
        let pieces = render_known_pieces(&Frontmatter::default(), &empty).unwrap_or_default();
        assert_eq!(pieces.len(), 1);
    }

    #[test]
    fn parsed_profiles_take_the_fast_path() {
        let text = "---\nuser_id: u\n---\n# User Memory\n\n## Identity\n- a\n\n- b\n### x\n\n## Work Context\n- w\n";
        let sections = parse_profile(text).profile.sections;
        let lines = section_lines(&sections);
        assert!(is_canonical(&section_views(&sections, &lines)));
    }
}
