//! The YAML frontmatter (SPEC §1.2, §1.3): finding the block in raw text (so it can be kept byte
//! for byte), reading the known fields leniently, and writing it canonically.

use super::format::{
    Diagnostic, DiagnosticCode, Frontmatter, FrontmatterField, MAX_TURN_COUNT, SCHEMA_VERSION,
};
use super::markdown::normalize_line_ends;
use chrono::{DateTime, SecondsFormat, Utc};
use serde_yaml::{Mapping, Value};

/// Frontmatter larger than this is not handed to the YAML parser at all. Together with
/// `serde_yaml`'s own alias-repetition and recursion limits this bounds time and memory on
/// hostile input (alias bombs, deep nesting).
pub const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;

const KNOWN_KEYS: [&str; 4] = ["user_id", "schema_version", "last_updated", "turn_count"];

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

/// One frontmatter entry as read: its key, its value, and the line it starts on.
struct Field {
    key: Value,
    value: FieldValue,
    line: usize,
}

/// A value parsed as YAML, or the raw text of a value YAML could not read (kept as text).
enum FieldValue {
    Yaml(Value),
    Raw(String),
}

/// Read the YAML between the delimiters. Never fails: problems are diagnostics and unreadable
/// fields fall back to their defaults (`turn_count` 0).
///
/// When the block is not valid YAML as a whole (a duplicate key, an integer beyond 64 bits, one
/// broken value), it is read **key by key** so one bad entry does not cost the others: every
/// top-level `key: value` entry is parsed on its own; a duplicate key keeps its first value
/// (`duplicate-frontmatter-key`); an entry that still does not parse keeps its raw text as the
/// value (`invalid-yaml` naming the key), so an unknown key survives the next rewrite as a string.
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
    let fields = match serde_yaml::from_str::<Value>(&yaml) {
        Ok(Value::Mapping(mapping)) => mapping
            .into_iter()
            .map(|(key, value)| Field {
                key,
                value: FieldValue::Yaml(value),
                line: first_line,
            })
            .collect(),
        Ok(Value::Null) => Vec::new(),
        Ok(_) => {
            diagnostics.push(Diagnostic::new(
                DiagnosticCode::InvalidFrontmatter,
                first_line,
                "frontmatter is not a YAML mapping; its content was not read",
            ));
            return (frontmatter, diagnostics);
        }
        Err(error) => match read_key_by_key(&yaml, first_line, &mut diagnostics) {
            Some(fields) => fields,
            None => {
                let line = error
                    .location()
                    .map_or(first_line, |l| first_line + l.line().saturating_sub(1));
                diagnostics.push(Diagnostic::new(
                    DiagnosticCode::InvalidYaml,
                    line,
                    format!("frontmatter is not valid YAML ({error}); its fields were not read"),
                ));
                return (frontmatter, diagnostics);
            }
        },
    };
    let mut saw_schema_version = false;
    for Field { key, value, line } in fields {
        let value = match value {
            FieldValue::Yaml(value) => value,
            FieldValue::Raw(text) => {
                raw_field(&mut frontmatter, &mut diagnostics, &key, text, line);
                saw_schema_version |= key.as_str() == Some("schema_version");
                continue;
            }
        };
        match key.as_str() {
            Some("user_id") => match scalar_text(&value) {
                Some(text) => frontmatter.user_id = Some(text),
                None if value.is_null() => {}
                None => diagnostics.push(Diagnostic::new(
                    DiagnosticCode::InvalidUserId,
                    line,
                    "`user_id` is not a scalar; ignored",
                )),
            },
            Some("schema_version") => {
                saw_schema_version = true;
                frontmatter.schema_version = value.as_u64();
                if value.as_u64() != Some(SCHEMA_VERSION) {
                    diagnostics.push(Diagnostic::new(
                        DiagnosticCode::InvalidSchemaVersion,
                        line,
                        format!("`schema_version` should be {SCHEMA_VERSION}; it is rewritten as {SCHEMA_VERSION}"),
                    ));
                }
            }
            Some("last_updated") => {
                let text = scalar_text(&value).unwrap_or_else(|| yaml_text(&value));
                last_updated(&mut frontmatter, &mut diagnostics, text, line);
            }
            Some("turn_count") => {
                let count = match &value {
                    Value::Number(number) => number
                        .as_u64()
                        .map(|n| (n.min(MAX_TURN_COUNT), n > MAX_TURN_COUNT)),
                    Value::String(text) => turn_count_text(text),
                    Value::Null => Some((0, false)),
                    _ => None,
                };
                turn_count(&mut frontmatter, &mut diagnostics, count, line);
            }
            _ => {
                let key = scalar_text(&key).unwrap_or_else(|| yaml_text(&key));
                frontmatter.extra.push(FrontmatterField {
                    key,
                    value: yaml_text(&value),
                });
            }
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

/// A field whose value YAML could not read: known keys are interpreted from the text, unknown
/// keys keep the text.
fn raw_field(
    frontmatter: &mut Frontmatter,
    diagnostics: &mut Vec<Diagnostic>,
    key: &Value,
    text: String,
    line: usize,
) {
    let name = scalar_text(key).unwrap_or_else(|| yaml_text(key));
    match name.as_str() {
        "turn_count" => turn_count(frontmatter, diagnostics, turn_count_text(&text), line),
        "last_updated" => last_updated(frontmatter, diagnostics, text, line),
        "user_id" | "schema_version" => diagnostics.push(Diagnostic::new(
            DiagnosticCode::InvalidYaml,
            line,
            format!("`{name}` is not valid YAML; ignored (it is rewritten)"),
        )),
        _ => {
            diagnostics.push(Diagnostic::new(
                DiagnosticCode::InvalidYaml,
                line,
                format!("`{name}` is not valid YAML; its value is kept as text"),
            ));
            frontmatter.extra.push(FrontmatterField {
                key: name,
                value: text,
            });
        }
    }
}

fn last_updated(
    frontmatter: &mut Frontmatter,
    diagnostics: &mut Vec<Diagnostic>,
    text: String,
    line: usize,
) {
    if DateTime::parse_from_rfc3339(&text).is_err() {
        diagnostics.push(Diagnostic::new(
            DiagnosticCode::InvalidLastUpdated,
            line,
            format!("`last_updated` ({text}) is not an RFC 3339 timestamp"),
        ));
    }
    frontmatter.last_updated = Some(text);
}

/// Apply a read `turn_count`: `(count, saturated)`, or `None` when it is not a non-negative
/// integer.
fn turn_count(
    frontmatter: &mut Frontmatter,
    diagnostics: &mut Vec<Diagnostic>,
    count: Option<(u64, bool)>,
    line: usize,
) {
    match count {
        Some((count, saturated)) => {
            frontmatter.turn_count = count;
            if saturated {
                diagnostics.push(Diagnostic::new(
                    DiagnosticCode::TurnCountOutOfRange,
                    line,
                    format!("`turn_count` is above {MAX_TURN_COUNT}; read as {MAX_TURN_COUNT}"),
                ));
            }
        }
        None => diagnostics.push(Diagnostic::new(
            DiagnosticCode::InvalidTurnCount,
            line,
            "`turn_count` is not a non-negative integer; read as 0",
        )),
    }
}

/// A decimal `turn_count` written as text (or a YAML integer too large to parse):
/// `(count, saturated)`, saturating at [`MAX_TURN_COUNT`].
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

/// Read a broken block entry by entry (see [`read_frontmatter`]); `None` when no line looks
/// like a top-level `key:` entry (then nothing can be kept).
fn read_key_by_key(
    yaml: &str,
    first_line: usize,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Vec<Field>> {
    let mut fields: Vec<Field> = Vec::new();
    for (offset, chunk) in top_level_entries(yaml) {
        let line = first_line + offset;
        let parsed = match serde_yaml::from_str::<Value>(chunk) {
            Ok(Value::Mapping(mapping)) if mapping.len() == 1 => mapping
                .into_iter()
                .map(|(key, value)| (key, FieldValue::Yaml(value)))
                .next(),
            _ => raw_entry(chunk).map(|(key, text)| (Value::from(key), FieldValue::Raw(text))),
        };
        let Some((key, value)) = parsed else {
            diagnostics.push(Diagnostic::new(
                DiagnosticCode::InvalidYaml,
                line,
                "a frontmatter line is not a `key: value` entry; it was dropped",
            ));
            continue;
        };
        if fields.iter().any(|f| f.key == key) {
            let name = scalar_text(&key).unwrap_or_else(|| yaml_text(&key));
            diagnostics.push(Diagnostic::new(
                DiagnosticCode::DuplicateFrontmatterKey,
                line,
                format!("`{name}` appears more than once; the first value is kept"),
            ));
            continue;
        }
        fields.push(Field { key, value, line });
    }
    (!fields.is_empty()).then_some(fields)
}

/// The top-level entries of a block mapping, with their first line (0-based): an entry starts
/// at an unindented line that is not a comment or a `- ` list item; the indented lines, list
/// items, comments and blank lines after it belong to it.
fn top_level_entries(yaml: &str) -> Vec<(usize, &str)> {
    let mut entries: Vec<(usize, usize)> = Vec::new();
    let mut offset = 0;
    for (index, line) in yaml.split_inclusive('\n').enumerate() {
        let continues = line.trim().is_empty()
            || line.starts_with([' ', '\t', '#'])
            || line.trim_end() == "-"
            || line.starts_with("- ");
        if !continues {
            entries.push((index, offset));
        }
        offset += line.len();
    }
    let ends = entries
        .iter()
        .skip(1)
        .map(|&(_, start)| start)
        .chain([yaml.len()]);
    entries
        .iter()
        .zip(ends)
        .filter_map(|(&(index, start), end)| yaml.get(start..end).map(|chunk| (index, chunk)))
        .collect()
}

/// `key: value` read without YAML: the key (quotes removed) and the value's raw text (trimmed,
/// continuation lines kept).
fn raw_entry(chunk: &str) -> Option<(String, String)> {
    let (key, value) = chunk.split_once(':')?;
    let key = key.trim().trim_matches(|c| c == '"' || c == '\'').trim();
    (!key.is_empty()).then(|| (key.to_string(), value.trim().to_string()))
}

fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

fn yaml_text(value: &Value) -> String {
    // Only the emitter's line end goes: `str::trim_end` would also eat Unicode spaces (U+00A0,
    // U+2000 …) that belong to an unquoted scalar.
    serde_yaml::to_string(value)
        .map(|text| text.trim_end_matches('\n').to_string())
        .unwrap_or_default()
}

/// Write the frontmatter block, delimiters included, ending with a newline. Known fields come
/// first in the order of SPEC §1.2; `schema_version` is always 1; `turn_count` is at most
/// [`MAX_TURN_COUNT`]; unknown keys follow in order (an unknown key that repeats a known or
/// earlier key is not written).
pub fn render_frontmatter(frontmatter: &Frontmatter) -> String {
    let mut mapping = Mapping::new();
    if let Some(user_id) = &frontmatter.user_id {
        mapping.insert(Value::from("user_id"), Value::from(user_id.as_str()));
    }
    mapping.insert(Value::from("schema_version"), Value::from(SCHEMA_VERSION));
    if let Some(last_updated) = &frontmatter.last_updated {
        mapping.insert(
            Value::from("last_updated"),
            Value::from(last_updated.as_str()),
        );
    }
    mapping.insert(
        Value::from("turn_count"),
        Value::from(frontmatter.turn_count.min(MAX_TURN_COUNT)),
    );
    for field in &frontmatter.extra {
        let key = Value::from(field.key.as_str());
        if KNOWN_KEYS.contains(&field.key.as_str()) || mapping.contains_key(&key) {
            continue;
        }
        let value = serde_yaml::from_str::<Value>(&field.value)
            .unwrap_or_else(|_| Value::from(field.value.as_str()));
        mapping.insert(key, value);
    }
    let mut yaml = String::new();
    for (key, value) in &mapping {
        yaml.push_str(&render_entry(key, value));
    }
    format!("---\n{yaml}---\n")
}

/// One `key: value` line (or block). serde_yaml's emitter leaves some strings unquoted that its
/// parser then reads differently (e.g. a trailing U+00A0 is dropped), which would break the
/// round trip of SPEC §1.2; such a string is written as a JSON string instead, which is a valid
/// YAML double-quoted scalar.
fn render_entry(key: &Value, value: &Value) -> String {
    let mut single = Mapping::new();
    single.insert(key.clone(), value.clone());
    let emitted = serde_yaml::to_string(&single).unwrap_or_default();
    let round_trips = serde_yaml::from_str::<Mapping>(&emitted).is_ok_and(|back| back == single);
    if round_trips && !emitted.is_empty() {
        return emitted;
    }
    let key_text = serde_yaml::to_string(key)
        .map(|k| k.trim_end_matches('\n').to_string())
        .unwrap_or_default();
    let value_text = match value {
        Value::String(text) => serde_json::to_string(text).unwrap_or_default(),
        other => yaml_text(other),
    };
    format!("{key_text}: {value_text}\n")
}

/// `last_updated` as SPEC §1.2 writes it: UTC, whole seconds, `+00:00`.
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
