//! Lenient parsing (behaviour §1.2): any text becomes a profile with the six canonical sections,
//! plus diagnostics. Single pass over the lines, so time is linear in the input.
//!
//! Decisions where the behaviour reference is silent:
//! - An unknown `##` section is kept in place, demoted to a `### ` sub-heading inside the
//!   canonical section it follows (content before the first canonical section is "stray").
//! - Stray content (anything before the first canonical section other than the title) is moved to
//!   the start of the first canonical section found in the file, or of Identity when there is none.
//! - A duplicated section is merged: its content is appended to the first occurrence's.
//! - Within a section, trailing whitespace is removed, runs of blank lines collapse to one and
//!   `_(empty)_` lines are dropped — except inside fenced code blocks, which are kept verbatim.

use super::format::{
    match_section_heading, Diagnostic, DiagnosticCode, Frontmatter, ParsedProfile, Profile,
    Section, EMPTY_SECTION_MARKER, SECTION_HEADINGS, TITLE,
};
use super::frontmatter::{read_frontmatter, split_frontmatter};
use super::markdown::{atx_heading, numbered_lines, FenceTracker};
use std::borrow::Cow;

/// Parse a `memory.md` text. Total: never panics and never fails; see the module documentation
/// for how irregular files are read.
pub fn parse_profile(text: &str) -> ParsedProfile {
    parse_profile_lines(text).into_owned()
}

/// [`parse_profile`] with each content line borrowed from `text` wherever it is a slice of it
/// (almost every line is: only demoted headings and an added closing fence are new text). The
/// binding uses this to send lines back to JS as positions in the text JS already holds.
#[derive(Debug)]
pub struct ParsedLines<'a> {
    /// The frontmatter, as in [`Profile::frontmatter`].
    pub frontmatter: Frontmatter,
    /// The title, as in [`Profile::title`].
    pub title: Option<String>,
    /// The six canonical sections' lines, in the order of [`SECTION_HEADINGS`].
    pub sections: Vec<Vec<Cow<'a, str>>>,
    /// Findings, in the order they were made.
    pub diagnostics: Vec<Diagnostic>,
}

impl ParsedLines<'_> {
    /// The owned profile [`parse_profile`] answers.
    pub fn into_owned(self) -> ParsedProfile {
        ParsedProfile {
            profile: Profile {
                frontmatter: self.frontmatter,
                title: self.title,
                sections: owned_sections(self.sections),
            },
            diagnostics: self.diagnostics,
        }
    }
}

/// [`parse_profile`], borrowing the lines (see [`ParsedLines`]).
pub fn parse_profile_lines(text: &str) -> ParsedLines<'_> {
    let split = split_frontmatter(text);
    let mut diagnostics = Vec::new();
    let frontmatter = match split.block {
        None => {
            diagnostics.push(Diagnostic::new(
                DiagnosticCode::MissingFrontmatter,
                1,
                "no `---` frontmatter block at the start; defaults are used (turn_count 0)",
            ));
            Frontmatter::default()
        }
        Some(_) => {
            if !split.terminated {
                diagnostics.push(Diagnostic::new(
                    DiagnosticCode::UnterminatedFrontmatter,
                    1,
                    format!(
                        "the frontmatter has no closing `---`; it was taken to end before line {}",
                        split.body_first_line
                    ),
                ));
            }
            let (frontmatter, found) = read_frontmatter(split.yaml, 2);
            diagnostics.extend(found);
            frontmatter
        }
    };
    let body = read_body(split.body, split.body_first_line, &mut diagnostics);
    ParsedLines {
        frontmatter,
        title: body.title,
        sections: body.lines,
        diagnostics,
    }
}

/// The body of a profile: its title and the six canonical sections' lines.
pub(crate) struct Body<'a> {
    pub(crate) title: Option<String>,
    pub(crate) lines: Vec<Vec<Cow<'a, str>>>,
}

impl Body<'_> {
    /// The six sections, owned.
    pub(crate) fn into_sections(self) -> Vec<Section> {
        owned_sections(self.lines)
    }
}

/// The six canonical sections holding `lines`, owned.
fn owned_sections(lines: Vec<Vec<Cow<'_, str>>>) -> Vec<Section> {
    SECTION_HEADINGS
        .iter()
        .zip(lines)
        .map(|(heading, lines)| Section {
            heading: (*heading).to_string(),
            lines: lines.into_iter().map(Cow::into_owned).collect(),
        })
        .collect()
}

#[derive(Default)]
struct BodyReader<'a> {
    title: Option<String>,
    stray: Vec<Cow<'a, str>>,
    stray_line: Option<usize>,
    sections: [Option<Vec<Cow<'a, str>>>; 6],
    heading_lines: [usize; 6],
    first_seen: Option<usize>,
    highest: Option<usize>,
    reorder_reported: bool,
    current: Option<usize>,
    fences: FenceTracker,
    last_line: usize,
}

/// Read a body (text after the frontmatter) whose first line is `first_line`.
pub(crate) fn read_body<'a>(
    text: &'a str,
    first_line: usize,
    diagnostics: &mut Vec<Diagnostic>,
) -> Body<'a> {
    let mut reader = BodyReader::default();
    for (number, raw) in numbered_lines(text, first_line) {
        reader.last_line = number;
        reader.line(number, raw, diagnostics);
    }
    reader.finish(first_line, diagnostics)
}

impl<'a> BodyReader<'a> {
    fn line(&mut self, number: usize, raw: &'a str, diagnostics: &mut Vec<Diagnostic>) {
        // Most lines end in a visible ASCII character: nothing to trim.
        let line = match raw.as_bytes().last() {
            Some(&b) if b.is_ascii() && !matches!(b, 0x09..=0x0d | b' ') => raw,
            _ => raw.trim_end(),
        };
        if self.fences.feed(line) {
            self.push(number, Cow::Borrowed(line));
            return;
        }
        match atx_heading(line) {
            Some((2, text)) => self.section_heading(number, raw, text, diagnostics),
            Some((1, text)) if self.first_seen.is_none() && self.title.is_none() => {
                if text != TITLE {
                    diagnostics.push(Diagnostic::new(
                        DiagnosticCode::UnexpectedTitle,
                        number,
                        format!("the title is `# {text}`; it is rendered as `# {TITLE}`"),
                    ));
                }
                self.title = Some(text.to_string());
            }
            _ => self.push(number, Cow::Borrowed(line)),
        }
    }

    fn section_heading(
        &mut self,
        number: usize,
        raw: &str,
        text: &str,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let Some((index, _)) = match_section_heading(text) else {
            let place = match self.current.and_then(|i| SECTION_HEADINGS.get(i)) {
                Some(heading) => format!("inside `## {heading}`"),
                None => "with the content before the first section".to_string(),
            };
            diagnostics.push(Diagnostic::new(
                DiagnosticCode::UnknownSection,
                number,
                format!("`## {text}` is not one of the six sections; kept as `### {text}` {place}"),
            ));
            let demoted = if text.is_empty() {
                "###".to_string()
            } else {
                format!("### {text}")
            };
            self.push(number, Cow::Owned(demoted));
            return;
        };
        let heading = SECTION_HEADINGS.get(index).copied().unwrap_or_default();
        // Compared without building `## {heading}` (a `format!` and an allocation per heading).
        if raw.trim_end_matches('\r').strip_prefix("## ") != Some(heading) {
            diagnostics.push(Diagnostic::new(
                DiagnosticCode::HeadingVariant,
                number,
                format!("`{}` read as `## {heading}`", raw.trim()),
            ));
        }
        let Some(slot) = self.sections.get_mut(index) else {
            return;
        };
        match slot {
            Some(lines) => {
                diagnostics.push(Diagnostic::new(
                    DiagnosticCode::DuplicateSection,
                    number,
                    format!(
                        "`## {heading}` appears again; its content was appended to the first one"
                    ),
                ));
                // Appended without a blank line so two bullet lists become one list.
                while lines.last().is_some_and(|line| line.trim().is_empty()) {
                    lines.pop();
                }
            }
            None => {
                *slot = Some(Vec::with_capacity(16));
                if let Some(line) = self.heading_lines.get_mut(index) {
                    *line = number;
                }
                if self.first_seen.is_none() {
                    self.first_seen = Some(index);
                }
                if self.highest.is_some_and(|h| index < h) && !self.reorder_reported {
                    self.reorder_reported = true;
                    diagnostics.push(Diagnostic::new(
                        DiagnosticCode::ReorderedSections,
                        number,
                        "the sections are not in canonical order; they are rendered in canonical order",
                    ));
                }
                self.highest = self.highest.max(Some(index));
            }
        }
        self.current = Some(index);
    }

    fn push(&mut self, number: usize, line: Cow<'a, str>) {
        match self.current.and_then(|i| self.sections.get_mut(i)) {
            Some(Some(lines)) => lines.push(line),
            _ => {
                if self.stray_line.is_none() && !line.trim().is_empty() {
                    self.stray_line = Some(number);
                }
                self.stray.push(line);
            }
        }
    }

    fn finish(mut self, first_line: usize, diagnostics: &mut Vec<Diagnostic>) -> Body<'a> {
        if let Some(fence) = self.fences.open() {
            if let Some(Some(lines)) = self.current.and_then(|i| self.sections.get_mut(i)) {
                while lines.last().is_some_and(|line| line.trim().is_empty()) {
                    lines.pop();
                }
            } else {
                while self.stray.last().is_some_and(|line| line.trim().is_empty()) {
                    self.stray.pop();
                }
            }
            diagnostics.push(Diagnostic::new(
                DiagnosticCode::UnclosedCodeFence,
                self.last_line,
                "a fenced code block is never closed; a closing fence was added",
            ));
            self.push(self.last_line, Cow::Owned(fence.closing_line()));
        }
        if self.title.is_none() {
            diagnostics.push(Diagnostic::new(
                DiagnosticCode::MissingTitle,
                first_line,
                format!("no `# {TITLE}` title; it is added when rendering"),
            ));
        }
        let stray = clean_lines(std::mem::take(&mut self.stray));
        if !stray.is_empty() {
            let target = self.first_seen.unwrap_or(0);
            let heading = SECTION_HEADINGS.get(target).copied().unwrap_or_default();
            diagnostics.push(Diagnostic::new(
                DiagnosticCode::StrayContent,
                self.stray_line.unwrap_or(first_line),
                format!(
                    "content before the first section was moved to the start of `## {heading}`"
                ),
            ));
            if let Some(slot) = self.sections.get_mut(target) {
                let mut lines = stray;
                lines.push(Cow::Borrowed(""));
                lines.extend(slot.take().unwrap_or_default());
                *slot = Some(lines);
            }
        }
        for (index, heading) in SECTION_HEADINGS.iter().enumerate() {
            if self.heading_lines.get(index).is_some_and(|line| *line == 0) {
                let line = self
                    .heading_lines
                    .iter()
                    .skip(index + 1)
                    .find(|line| **line != 0)
                    .copied()
                    .unwrap_or(self.last_line.max(first_line));
                diagnostics.push(Diagnostic::new(
                    DiagnosticCode::MissingSection,
                    line,
                    format!(
                        "`## {heading}` is missing; it is rendered as `{EMPTY_SECTION_MARKER}`"
                    ),
                ));
            }
        }
        let lines = self
            .sections
            .into_iter()
            .map(|lines| clean_lines(lines.unwrap_or_default()))
            .collect();
        Body {
            title: self.title,
            lines,
        }
    }
}

/// Canonical section content: no `_(empty)_` lines, no leading/trailing blank lines, blank runs
/// collapsed — outside code fences only.
fn clean_lines(mut lines: Vec<Cow<'_, str>>) -> Vec<Cow<'_, str>> {
    let mut fences = FenceTracker::default();
    let mut last_kept_empty = true;
    lines.retain(|line| {
        let in_code = fences.feed(line);
        // A line that starts with a visible ASCII character other than `_` is neither blank
        // nor the empty marker: most lines, decided without trimming.
        let plain = matches!(line.as_bytes().first(), Some(&b) if b.is_ascii() && !matches!(b, 0x09..=0x0d | b' ' | b'_'));
        if !in_code && !plain {
            let trimmed = line.trim();
            if trimmed == EMPTY_SECTION_MARKER || (trimmed.is_empty() && last_kept_empty) {
                return false;
            }
        }
        last_kept_empty = line.is_empty();
        true
    });
    while lines.last().is_some_and(|last| last.trim().is_empty()) {
        lines.pop();
    }
    lines
}
