//! The YAML frontmatter (behaviour §1.2, §1.3): finding the block in raw text (so it can be kept
//! byte for byte), reading the known fields leniently, and writing it canonically.
//!
//! A purpose-built reader and writer, not a YAML library: the frontmatter is a flat mapping of
//! four known scalars plus whatever keys a user or another tool added. [`entries`] cuts the
//! block into top-level `key: value` entries; [`scalar`] reads the known values as YAML scalars
//! ([`quoted`] decodes quoted ones); unknown values are kept as the text written in the file,
//! never parsed into a tree, and [`check`] (with [`flow`]) decides whether that text is
//! well-formed YAML; [`write`] writes the block, strings styled by [`style`] as serde-yaml 0.9
//! writes them. Everything is linear in the size of the block: aliases are never expanded and
//! nesting is bounded.

mod check;
mod entries;
mod quoted;
mod scalar;
mod style;
mod write;

pub use write::render_frontmatter;

use super::format::{
    Diagnostic, DiagnosticCode, Frontmatter, FrontmatterField, MAX_TURN_COUNT, SCHEMA_VERSION,
};
use super::markdown::normalize_line_ends;
use check::{check_value, Anchors};
use chrono::{DateTime, SecondsFormat, Utc};
use entries::{pieces, value_text, Entry, KeySet, Piece};
use scalar::{read_scalar, Scalar};

/// Frontmatter larger than this is not read at all (`frontmatter-too-large`): it bounds the
/// work on hostile input, together with the reader being linear and never expanding aliases.
pub const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;

/// Where the frontmatter block is in a raw text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrontmatterSplit<'a> {
    /// The raw block, from the opening `---` through the closing delimiter line and its line
    /// ending, exactly as stored (a BOM before it is not included). `None` when the text does
    /// not start with `---`.
    pub block: Option<&'a str>,
    /// The YAML between the delimiters.
    pub yaml: &'a str,
    /// Everything after the block.
    pub body: &'a str,
    /// 1-based line number of the first body line.
    pub body_first_line: usize,
    /// `false` when a block was opened but not closed. It is then taken to end before the first
    /// Markdown heading (or at the end of the text).
    pub terminated: bool,
}

/// Split a raw profile text into frontmatter block and body. Closing delimiters are `---` or
/// `...` alone on a line (trailing whitespace allowed). Lines end at `\r\n`, `\n` or a lone `\r`.
pub fn split_frontmatter(text: &str) -> FrontmatterSplit<'_> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = super::markdown::lines_with_ends(text);
    // Checked before the first line is split off, so a text with one huge line costs nothing.
    let opens = text.starts_with("---");
    let opening = if opens {
        lines.next().unwrap_or("")
    } else {
        ""
    };
    if !opens || opening.trim_end() != "---" {
        return FrontmatterSplit {
            block: None,
            yaml: "",
            body: text,
            body_first_line: 1,
            terminated: true,
        };
    }
    let yaml_start = opening.len();
    let mut offset = yaml_start;
    let mut line_number = 2;
    let mut first_heading: Option<(usize, usize)> = None;
    for line in lines {
        let content = line.trim_end();
        if content == "---" || content == "..." {
            let end = offset + line.len();
            return FrontmatterSplit {
                block: text.get(..end),
                yaml: text.get(yaml_start..offset).unwrap_or(""),
                body: text.get(end..).unwrap_or(""),
                body_first_line: line_number + 1,
                terminated: true,
            };
        }
        if first_heading.is_none() && super::markdown::atx_heading(content).is_some() {
            first_heading = Some((offset, line_number));
        }
        offset += line.len();
        line_number += 1;
    }
    let (cut, cut_line) = first_heading.unwrap_or((text.len(), line_number));
    FrontmatterSplit {
        block: text.get(..cut),
        yaml: text.get(yaml_start..cut).unwrap_or(""),
        body: text.get(cut..).unwrap_or(""),
        body_first_line: cut_line,
        terminated: false,
    }
}

/// The text without its frontmatter block (and without a BOM and leading blank lines), otherwise
/// verbatim. This is what the model sees, what is injected, and what the editor shows.
pub fn profile_body(text: &str) -> String {
    let body = normalize_line_ends(split_frontmatter(text).body);
    strip_leading_blank_lines(&body).to_string()
}

/// The frontmatter of a text (defaults when it has none), without reading the body.
pub fn read_frontmatter_of(text: &str) -> Frontmatter {
    let split = split_frontmatter(text);
    match split.block {
        Some(_) => read_frontmatter(split.yaml, 2).0,
        None => Frontmatter::default(),
    }
}

/// Read the YAML between the delimiters. Never fails: problems are diagnostics and unreadable
/// fields fall back to their defaults (`turn_count` 0).
///
/// The block is read **entry by entry**, so one bad entry does not cost the others: every
/// top-level `key: value` entry (an unindented line, with the indented lines, list items and
/// comments after it) is read on its own; a line that is not a `key:` entry is dropped
/// (`invalid-yaml`); a duplicate key keeps its first value (`duplicate-frontmatter-key`). A block
/// that is a sequence or a bare scalar is not a mapping (`invalid-frontmatter`).
///
/// The known keys are read as YAML scalars (plain, quoted, block; `~`/`null`/empty is null).
/// Unknown keys keep the YAML text of their value **as written**: a one-line value is the text
/// after `key:` (a comment included); a value on the following lines is those lines with their
/// common indentation removed (`nested:\n  a: b` → `a: b`). A value that is not well-formed
/// YAML by [`check`]'s structural check is kept all the same, with `invalid-yaml`; the next
/// rewrite writes it as a quoted string.
pub(crate) fn read_frontmatter(yaml: &str, first_line: usize) -> (Frontmatter, Vec<Diagnostic>) {
    let mut frontmatter = Frontmatter::default();
    let mut diagnostics = Vec::new();
    if yaml.len() > MAX_FRONTMATTER_BYTES {
        diagnostics.push(Diagnostic::new(
            DiagnosticCode::FrontmatterTooLarge,
            first_line,
            format!("frontmatter is {} bytes, over the {MAX_FRONTMATTER_BYTES}-byte limit; it was not read", yaml.len()),
        ));
        return (frontmatter, diagnostics);
    }
    let yaml = normalize_line_ends(yaml);
    let pieces = pieces(&yaml);
    let has_entry = pieces.iter().any(|p| matches!(p, Piece::Entry(_)));
    if !has_entry && !pieces.is_empty() {
        diagnostics.push(Diagnostic::new(
            DiagnosticCode::InvalidFrontmatter,
            first_line,
            "frontmatter is not a YAML mapping; its content was not read",
        ));
        return (frontmatter, diagnostics);
    }
    let mut seen = KeySet::default();
    let mut anchors = Anchors::default();
    let mut saw_schema_version = false;
    let mut broken = false;
    for piece in &pieces {
        let entry = match piece {
            Piece::Entry(entry) => entry,
            Piece::NotAnEntry(offset) => {
                diagnostics.push(Diagnostic::new(
                    DiagnosticCode::InvalidYaml,
                    first_line + offset,
                    "a frontmatter line is not a `key: value` entry; it was dropped",
                ));
                continue;
            }
        };
        let line = first_line + entry.line;
        if !seen.insert(&entry.key) {
            diagnostics.push(Diagnostic::new(
                DiagnosticCode::DuplicateFrontmatterKey,
                line,
                format!(
                    "`{}` appears more than once; the first value is kept",
                    entry.key
                ),
            ));
            continue;
        }
        let mut field = FieldReader {
            frontmatter: &mut frontmatter,
            diagnostics: &mut diagnostics,
            anchors: &mut anchors,
            broken: &mut broken,
            entry,
            line,
        };
        match entry.key.as_ref() {
            "user_id" => field.user_id(),
            "schema_version" => {
                saw_schema_version = true;
                field.schema_version();
            }
            "last_updated" => field.last_updated(),
            "turn_count" => field.turn_count(),
            _ => field.unknown(),
        }
    }
    // A block that is well-formed as a whole reports its fields at its first line, as a YAML
    // parser reading it whole does (and the shared vectors pin); only a block read around
    // broken entries points at each entry's line.
    let well_formed = !broken
        && !diagnostics.iter().any(|d| {
            matches!(
                d.code,
                DiagnosticCode::InvalidYaml | DiagnosticCode::DuplicateFrontmatterKey
            )
        });
    if well_formed {
        for diagnostic in &mut diagnostics {
            diagnostic.line = first_line;
        }
    }
    if !saw_schema_version {
        diagnostics.push(Diagnostic::new(
            DiagnosticCode::InvalidSchemaVersion,
            first_line,
            format!("`schema_version` is missing; it is written as {SCHEMA_VERSION}"),
        ));
    }
    (frontmatter, diagnostics)
}

/// Reads one entry into the frontmatter.
struct FieldReader<'f, 'e> {
    frontmatter: &'f mut Frontmatter,
    diagnostics: &'f mut Vec<Diagnostic>,
    anchors: &'f mut Anchors,
    /// Set when a known value is not valid YAML.
    broken: &'f mut bool,
    entry: &'e Entry<'e>,
    line: usize,
}

impl FieldReader<'_, '_> {
    fn diagnostic(&mut self, code: DiagnosticCode, message: impl Into<String>) {
        self.diagnostics
            .push(Diagnostic::new(code, self.line, message));
    }

    /// The value as a scalar; a collection that is not well-formed is broken.
    fn scalar(&mut self) -> Scalar {
        let mut scalar = read_scalar(self.entry.rest, &self.entry.lines);
        if scalar == Scalar::Collection {
            match check_value(self.entry.rest, &self.entry.lines, self.anchors) {
                Some(defined) => self.anchors.extend(defined),
                None => scalar = Scalar::Broken,
            }
        }
        if scalar == Scalar::Broken {
            *self.broken = true;
        }
        scalar
    }

    /// The value's text as written (what a broken known value is read from).
    fn raw(&self) -> String {
        value_text(self.entry.rest, &self.entry.lines)
    }

    fn not_valid_yaml(&mut self) {
        let message = format!(
            "`{}` is not valid YAML; ignored (it is rewritten)",
            self.entry.key
        );
        self.diagnostic(DiagnosticCode::InvalidYaml, message);
    }

    /// Scalar text (a plain `42` is the text `42`, `true` is `true`); null is no user id.
    fn user_id(&mut self) {
        match self.scalar() {
            Scalar::Text { text, .. } => self.frontmatter.user_id = Some(text),
            Scalar::Null => {}
            Scalar::Collection => self.diagnostic(
                DiagnosticCode::InvalidUserId,
                "`user_id` is not a scalar; ignored",
            ),
            Scalar::Broken => self.not_valid_yaml(),
        }
    }

    /// A plain decimal integer (`1`); anything else, a quoted `'1'` included, is reported.
    fn schema_version(&mut self) {
        let version = match self.scalar() {
            Scalar::Text { text, plain: true } => decimal(&text),
            Scalar::Broken => return self.not_valid_yaml(),
            _ => None,
        };
        self.frontmatter.schema_version = version;
        if version != Some(SCHEMA_VERSION) {
            self.diagnostic(
                DiagnosticCode::InvalidSchemaVersion,
                format!("`schema_version` should be {SCHEMA_VERSION}; it is rewritten as {SCHEMA_VERSION}"),
            );
        }
    }

    /// Scalar text, checked as RFC 3339 (a collection or broken value: its text as written).
    fn last_updated(&mut self) {
        let text = match self.scalar() {
            Scalar::Text { text, .. } => text,
            Scalar::Null => "null".to_string(),
            Scalar::Collection | Scalar::Broken => self.raw(),
        };
        if DateTime::parse_from_rfc3339(&text).is_err() {
            let message = format!("`last_updated` ({text}) is not an RFC 3339 timestamp");
            self.diagnostic(DiagnosticCode::InvalidLastUpdated, message);
        }
        self.frontmatter.last_updated = Some(text);
    }

    /// Decimal digits, plain or quoted (an optional `+`), saturating at [`MAX_TURN_COUNT`];
    /// null is 0; anything else is reported and read as 0.
    fn turn_count(&mut self) {
        let count = match self.scalar() {
            Scalar::Text { text, .. } => turn_count_text(&text),
            Scalar::Null => Some((0, false)),
            Scalar::Collection => None,
            Scalar::Broken => turn_count_text(&self.raw()),
        };
        match count {
            Some((count, saturated)) => {
                self.frontmatter.turn_count = count;
                if saturated {
                    self.diagnostic(
                        DiagnosticCode::TurnCountOutOfRange,
                        format!("`turn_count` is above {MAX_TURN_COUNT}; read as {MAX_TURN_COUNT}"),
                    );
                }
            }
            None => self.diagnostic(
                DiagnosticCode::InvalidTurnCount,
                "`turn_count` is not a non-negative integer; read as 0",
            ),
        }
    }

    /// Kept as written; checked (the anchors it defines count for the entries after it).
    fn unknown(&mut self) {
        match check_value(self.entry.rest, &self.entry.lines, self.anchors) {
            Some(defined) => self.anchors.extend(defined),
            None => {
                let message = format!(
                    "`{}` is not valid YAML; its value is kept as text",
                    self.entry.key
                );
                self.diagnostic(DiagnosticCode::InvalidYaml, message);
            }
        }
        self.frontmatter.extra.push(FrontmatterField {
            key: self.entry.key.to_string(),
            value: self.raw(),
        });
    }
}

/// A YAML decimal integer as serde-yaml resolves it (`0`, or digits without a leading zero).
fn decimal(text: &str) -> Option<u64> {
    let digits = text.bytes().all(|b| b.is_ascii_digit());
    (digits && !text.is_empty() && (text == "0" || !text.starts_with('0')))
        .then(|| text.parse().ok())
        .flatten()
}

/// A decimal `turn_count` written as text: `(count, saturated)`, saturating at
/// [`MAX_TURN_COUNT`].
fn turn_count_text(text: &str) -> Option<(u64, bool)> {
    let digits = text.trim().trim_start_matches('+');
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(match digits.parse::<u64>() {
        Ok(n) if n <= MAX_TURN_COUNT => (n, false),
        _ => (MAX_TURN_COUNT, true),
    })
}

/// `last_updated` as behaviour §1.2 writes it: UTC, whole seconds, `+00:00`.
pub fn format_last_updated(now: DateTime<Utc>) -> String {
    now.to_rfc3339_opts(SecondsFormat::Secs, false)
}

/// `text` without its leading blank lines (a first content line keeps its indentation).
pub(crate) fn strip_leading_blank_lines(text: &str) -> &str {
    let mut rest = text;
    while let Some((line, after)) = rest.split_once('\n') {
        if !line.trim().is_empty() {
            break;
        }
        rest = after;
    }
    if rest.trim().is_empty() {
        ""
    } else {
        rest
    }
}
