//! The profile file format (behaviour §1.2): the data model that crosses to JS as JSON, the
//! canonical section headings, and the diagnostics that lenient parsing reports.

use serde::{Deserialize, Serialize};

/// The six canonical `##` section headings, in canonical order.
pub const SECTION_HEADINGS: [&str; 6] = [
    "Identity",
    "Communication Preferences",
    "Work Context",
    "Skills & Expertise",
    "Recent Topics",
    "Follow-ups",
];

/// The canonical title line text (without the `# `).
pub const TITLE: &str = "User Memory";

/// The whole content of an empty section in the canonical rendering.
pub const EMPTY_SECTION_MARKER: &str = "_(empty)_";

/// `schema_version` is always written as this value.
pub const SCHEMA_VERSION: u64 = 1;

/// The largest `turn_count`: 2^53 − 1, the largest integer JavaScript reads exactly. A larger
/// stored value reads as this one (`turn-count-out-of-range`), and rewrites never go past it.
pub const MAX_TURN_COUNT: u64 = 9_007_199_254_740_991;

/// A parsed profile. `sections` produced by [`crate::profile::parse_profile`] always holds the six
/// canonical sections in canonical order; a hand-built profile may hold anything — rendering
/// canonicalises it the same way parsing would.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    /// The YAML frontmatter (written by the application, never by the model).
    pub frontmatter: Frontmatter,
    /// The `#` title as read (`None` when the file had none). Rendering always writes
    /// `# User Memory`; this field only reports what the file said.
    #[serde(default)]
    pub title: Option<String>,
    /// The sections, each with its content lines.
    #[serde(default)]
    pub sections: Vec<Section>,
}

/// One `##` section and its content lines (bullets, nested bullets, `###` sub-headings, free
/// text), without the heading line. An empty `lines` renders as `_(empty)_`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Section {
    /// The canonical heading text, e.g. `Skills & Expertise` (without `## `).
    pub heading: String,
    /// Content lines without line endings; trailing whitespace removed, runs of blank lines
    /// collapsed to one, no leading or trailing blank line.
    #[serde(default)]
    pub lines: Vec<String>,
}

impl Section {
    /// `true` when the section has no content (renders as `_(empty)_`).
    pub fn is_empty(&self) -> bool {
        self.lines.iter().all(|line| line.trim().is_empty())
    }
}

/// The frontmatter: the known fields, and every other key in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Frontmatter {
    /// `user_id` as a string (a YAML number is read as its text).
    #[serde(default)]
    pub user_id: Option<String>,
    /// `schema_version` as read. Rendering always writes `1` (behaviour §1.2).
    #[serde(default)]
    pub schema_version: Option<u64>,
    /// `last_updated` as written in the file (normally `YYYY-MM-DDTHH:MM:SS+00:00`).
    #[serde(default)]
    pub last_updated: Option<String>,
    /// Number of profile rewrites; missing or unparsable reads as 0; at most [`MAX_TURN_COUNT`].
    #[serde(default)]
    pub turn_count: u64,
    /// Unknown keys, in file order, rendered after the known fields.
    #[serde(default)]
    pub extra: Vec<FrontmatterField>,
}

/// One unknown frontmatter key with its value as YAML text **as written in the file**, never
/// re-emitted: a one-line value is the text after `key:` trimmed (a comment included:
/// `1 # why`); a value on the lines after the key is those lines with their common indentation
/// removed, joined by `\n`, without a trailing newline (`nested:\n  a: b` → `a: b`,
/// `alpha:\n- x\n- y` → `- x\n- y`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrontmatterField {
    /// The key, decoded (a quoted key without its quotes; a non-string key such as `1` as its
    /// text).
    pub key: String,
    /// The value as YAML text. Rendering writes it back as it is when it is well-formed YAML,
    /// else as a quoted string.
    pub value: String,
}

/// The result of lenient parsing: the profile and what was noticed on the way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ParsedProfile {
    /// The profile (always six canonical sections).
    pub profile: Profile,
    /// Findings, in the order they were made.
    pub diagnostics: Vec<Diagnostic>,
}

/// How much a finding matters. Parsing never fails; `warning` means content was moved, merged,
/// dropped from the canonical rendering or could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A cosmetic normalisation (variant heading, order, missing title).
    Info,
    /// Content was moved, merged, or could not be read.
    Warning,
}

/// One finding of the parser (data, not an exception).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    /// Stable code.
    pub code: DiagnosticCode,
    /// 1-based line in the parsed text (a BOM does not count; CRLF counts as one line end).
    pub line: usize,
    /// Human explanation.
    pub message: String,
    /// How much it matters.
    pub severity: Severity,
}

impl Diagnostic {
    /// A diagnostic with the code's default severity.
    pub fn new(code: DiagnosticCode, line: usize, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            line,
            message: message.into(),
            severity: code.severity(),
        }
    }
}

crate::names::stable_names! {
    /// Stable diagnostic codes; the kebab-case string form is a public contract.
    pub enum DiagnosticCode {
        /// The text does not start with a `---` frontmatter block.
        MissingFrontmatter = "missing-frontmatter",
        /// A `---` block was opened but never closed; it was taken to end before the first heading.
        UnterminatedFrontmatter = "unterminated-frontmatter",
        /// The frontmatter is over the size bound and was not parsed.
        FrontmatterTooLarge = "frontmatter-too-large",
        /// The frontmatter is not valid YAML (or hit an alias/recursion limit).
        InvalidYaml = "invalid-yaml",
        /// The frontmatter is valid YAML but not a mapping.
        InvalidFrontmatter = "invalid-frontmatter",
        /// `user_id` is not a scalar.
        InvalidUserId = "invalid-user-id",
        /// `schema_version` is missing or not `1`.
        InvalidSchemaVersion = "invalid-schema-version",
        /// `last_updated` is not an RFC 3339 timestamp.
        InvalidLastUpdated = "invalid-last-updated",
        /// `turn_count` is present but not a non-negative integer; read as 0.
        InvalidTurnCount = "invalid-turn-count",
        /// `turn_count` is above 2^53 − 1; read as 2^53 − 1.
        TurnCountOutOfRange = "turn-count-out-of-range",
        /// A frontmatter key appears more than once; the first value is kept.
        DuplicateFrontmatterKey = "duplicate-frontmatter-key",
        /// A user's edit started with a frontmatter block; it was removed (the stored one is kept).
        FrontmatterInBody = "frontmatter-in-body",
        /// No `# ` title before the first section.
        MissingTitle = "missing-title",
        /// The title is not `# User Memory`.
        UnexpectedTitle = "unexpected-title",
        /// Content before the first canonical section; moved to the start of a section.
        StrayContent = "stray-content",
        /// A `##` heading that is not one of the six; kept as a `###` sub-heading.
        UnknownSection = "unknown-section",
        /// A canonical section appears twice; the contents were merged.
        DuplicateSection = "duplicate-section",
        /// The canonical sections were not in canonical order.
        ReorderedSections = "reordered-sections",
        /// A canonical heading written differently (case, spacing, `and` for `&`, closing `#`s).
        HeadingVariant = "heading-variant",
        /// A canonical section is missing; it is rendered as `_(empty)_`.
        MissingSection = "missing-section",
        /// A fenced code block was still open at the end; a closing fence was added.
        UnclosedCodeFence = "unclosed-code-fence",
    }
}

impl DiagnosticCode {
    /// The severity this code is reported with.
    pub fn severity(self) -> Severity {
        match self {
            DiagnosticCode::MissingFrontmatter
            | DiagnosticCode::MissingTitle
            | DiagnosticCode::ReorderedSections
            | DiagnosticCode::HeadingVariant => Severity::Info,
            _ => Severity::Warning,
        }
    }
}

/// Which canonical section a `##` heading text names: `Some((index, exact))`. Variants match
/// ignoring case, spacing and punctuation, with `and` for `&` ("skills and expertise",
/// "FOLLOW UPS").
pub fn match_section_heading(text: &str) -> Option<(usize, bool)> {
    if let Some(index) = SECTION_HEADINGS.iter().position(|h| *h == text) {
        return Some((index, true));
    }
    let key = heading_key(text);
    SECTION_HEADINGS
        .iter()
        .position(|h| heading_key(h) == key)
        .map(|index| (index, false))
}

fn heading_key(text: &str) -> String {
    text.replace('&', "and")
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}
