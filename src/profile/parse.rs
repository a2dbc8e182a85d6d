//! Lenient parsing (SPEC §1.2): any text becomes a profile with the six canonical sections, plus
//! diagnostics. Single pass over the lines, so time is linear in the input.
//!
//! Decisions where SPEC is silent:
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

/// Parse a `memory.md` text. Total: never panics and never fails; see the module documentation
/// for how irregular files are read.
pub fn parse_profile(text: &str) -> ParsedProfile {
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
    let profile = Profile {
        frontmatter,
        title: body.title,
        sections: body.sections,
    };
    ParsedProfile {
        profile,
        diagnostics,
    }
}

/// The body of a profile: its title and the six canonical sections.
pub(crate) struct Body {
    pub(crate) title: Option<String>,
    pub(crate) sections: Vec<Section>,
}

#[derive(Default)]
struct BodyReader {
    title: Option<String>,
    stray: Vec<String>,
    stray_line: Option<usize>,
    sections: [Option<Vec<String>>; 6],
    heading_lines: [usize; 6],
    first_seen: Option<usize>,
    highest: Option<usize>,
    reorder_reported: bool,
    current: Option<usize>,
    fences: FenceTracker,
    last_line: usize,
}

/// Read a body (text after the frontmatter) whose first line is `first_line`.
pub(crate) fn read_body(text: &str, first_line: usize, diagnostics: &mut Vec<Diagnostic>) -> Body {
    let mut reader = BodyReader::default();
    for (number, raw) in numbered_lines(text, first_line) {
        reader.last_line = number;
        reader.line(number, raw, diagnostics);
    }
    reader.finish(first_line, diagnostics)
}

impl BodyReader {
    fn line(&mut self, number: usize, raw: &str, diagnostics: &mut Vec<Diagnostic>) {
        let line = raw.trim_end();
        if self.fences.feed(line) {
            self.push(number, line.to_string());
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
            _ => self.push(number, line.to_string()),
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
            self.push(number, demoted);
            return;
        };
        let heading = SECTION_HEADINGS.get(index).copied().unwrap_or_default();
        if raw.trim_end_matches('\r') != format!("## {heading}") {
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
                *slot = Some(Vec::new());
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

    fn push(&mut self, number: usize, line: String) {
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

    fn finish(mut self, first_line: usize, diagnostics: &mut Vec<Diagnostic>) -> Body {
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
            self.push(self.last_line, fence.closing_line());
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
                lines.push(String::new());
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
        let sections = SECTION_HEADINGS
            .iter()
            .zip(self.sections)
            .map(|(heading, lines)| Section {
                heading: (*heading).to_string(),
                lines: clean_lines(lines.unwrap_or_default()),
            })
            .collect();
        Body {
            title: self.title,
            sections,
        }
    }
}

/// Canonical section content: no `_(empty)_` lines, no leading/trailing blank lines, blank runs
/// collapsed — outside code fences only.
fn clean_lines(lines: Vec<String>) -> Vec<String> {
    let mut fences = FenceTracker::default();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    for line in lines {
        let in_code = fences.feed(&line);
        if !in_code {
            let trimmed = line.trim();
            if trimmed == EMPTY_SECTION_MARKER {
                continue;
            }
            if trimmed.is_empty() && out.last().map_or(true, |last| last.is_empty()) {
                continue;
            }
        }
        out.push(line);
    }
    while out.last().is_some_and(|last| last.trim().is_empty()) {
        out.pop();
    }
    out
}
