//! Viewing and editing from Settings → Context Memory (behaviour §1.10).

use super::format::{Diagnostic, DiagnosticCode, Frontmatter, SCHEMA_VERSION};
use super::frontmatter::{
    format_last_updated, profile_body, render_frontmatter, split_frontmatter,
};
use super::markdown::normalize_line_ends;
use super::parse::{parse_profile, read_body};
use super::paths::validate_user_id;
use crate::error::{Error, ErrorCode, Result};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Largest accepted edited body: 1 MiB of UTF-8.
pub const MAX_EDIT_BODY_BYTES: usize = 1_048_576;

/// The body the editor shows: the stored text without its frontmatter (which is never shown).
pub fn editable_body(text: &str) -> String {
    profile_body(text)
}

/// What `getMyContextMemory` returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryView {
    /// Whether a profile exists.
    pub exists: bool,
    /// The editable body (empty when there is no profile).
    pub body: String,
    /// `last_updated` as stored, when there is a profile and it has one.
    pub last_updated: Option<String>,
    /// The rewrite count, when there is a profile.
    pub turn_count: Option<u64>,
}

/// The read-only view of a stored profile (`None` → `{ exists: false, body: "" }`).
pub fn memory_view(stored: Option<&str>) -> MemoryView {
    match stored {
        None => MemoryView {
            exists: false,
            body: String::new(),
            last_updated: None,
            turn_count: None,
        },
        Some(text) => {
            let frontmatter = parse_profile(text).profile.frontmatter;
            MemoryView {
                exists: true,
                body: editable_body(text),
                last_updated: frontmatter.last_updated,
                turn_count: Some(frontmatter.turn_count),
            }
        }
    }
}

/// Who is editing and when (used only when the edit creates the profile).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditOptions {
    /// The authenticated user's id.
    pub user_id: String,
    /// Written as `last_updated` of a fresh frontmatter.
    pub now: DateTime<Utc>,
}

/// The text to store and what was noticed in the edited body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EditResult {
    /// The complete `memory.md` to upsert.
    pub text: String,
    /// Findings in the body (line numbers are lines of the submitted body): renamed or removed
    /// headings show up as `unknown-section` + `missing-section`. The save happens anyway.
    pub diagnostics: Vec<Diagnostic>,
    /// Credentials replaced by `[redacted]` before saving (behaviour §8.1; set by
    /// `updateMyContextMemory` under the `redact` policy, 0 otherwise).
    #[serde(default)]
    pub redacted_secrets: usize,
}

/// An edited body that starts with a frontmatter block (a whole `memory.md` pasted into the
/// editor, or `memcore edit --from memory.md`): the block is dropped — the stored frontmatter is
/// the one kept — and a `frontmatter-in-body` diagnostic says so. Only a closed block, or an
/// unclosed one with nothing in it, is dropped: an unclosed `---` followed by text is a rule line
/// and the user's text, kept as written. Returns the body and the line its first line had.
fn without_frontmatter<'a>(body: &'a str, diagnostics: &mut Vec<Diagnostic>) -> (&'a str, usize) {
    let split = split_frontmatter(body);
    if split.block.is_none() {
        return (body, 1);
    }
    if !split.terminated && !split.yaml.trim().is_empty() {
        return (body, 1);
    }
    diagnostics.push(Diagnostic::new(
        DiagnosticCode::FrontmatterInBody,
        1,
        format!(
            "the edit starts with a frontmatter block (lines 1–{}); it was removed: the stored frontmatter is kept",
            split.body_first_line - 1
        ),
    ));
    (split.body, split.body_first_line)
}

/// Apply a user's edited body to the stored profile. The stored frontmatter block is kept byte
/// for byte (an unterminated one gets its closing `---` so the new body cannot be swallowed by
/// it); a profile without one — new, or stored without frontmatter — gets a fresh frontmatter
/// with `turn_count: 0`. The body is stored as written (CRLF → LF, BOM and leading blank lines
/// removed, one trailing newline): the runtime budget and canonical form apply at the next load
/// and rewrite. Errors: `E_TOO_LARGE` over 1,048,576 bytes, `E_INVALID_USER_ID`.
pub fn apply_user_edit(
    existing: Option<&str>,
    body: &str,
    options: &EditOptions,
) -> Result<EditResult> {
    if body.len() > MAX_EDIT_BODY_BYTES {
        return Err(Error::new(
            ErrorCode::TooLarge,
            format!(
                "the memory body is {} bytes of UTF-8; at most {MAX_EDIT_BODY_BYTES} bytes can be saved — shorten it",
                body.len()
            ),
        )
        .with_details(serde_json::json!({ "bytes": body.len(), "limit": MAX_EDIT_BODY_BYTES })));
    }
    validate_user_id(&options.user_id)?;
    let body = normalize_line_ends(body.strip_prefix('\u{feff}').unwrap_or(body));
    let mut diagnostics = Vec::new();
    let (body, first_line) = without_frontmatter(&body, &mut diagnostics);
    read_body(body, first_line, &mut diagnostics);
    let split = existing.map(split_frontmatter);
    let mut text = match split.and_then(|split| split.block.map(|block| (block, split.terminated)))
    {
        Some((block, terminated)) => {
            let mut text = block.to_string();
            if !text.ends_with('\n') {
                text.push('\n');
            }
            if !terminated {
                text.push_str("---\n");
            }
            text
        }
        None => render_frontmatter(&Frontmatter {
            user_id: Some(options.user_id.clone()),
            schema_version: Some(SCHEMA_VERSION),
            last_updated: Some(format_last_updated(options.now)),
            turn_count: 0,
            extra: Vec::new(),
        }),
    };
    text.push('\n');
    let body = super::frontmatter::strip_leading_blank_lines(body).trim_end();
    if !body.is_empty() {
        text.push_str(body);
        text.push('\n');
    }
    Ok(EditResult {
        text,
        diagnostics,
        redacted_secrets: 0,
    })
}
