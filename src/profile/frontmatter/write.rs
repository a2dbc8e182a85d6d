//! Writing the frontmatter block canonically.

use super::check::{check_value, Anchors};
use super::entries::{parse_key, pieces, value_text, KeySet, Piece};
use super::style::{write_quoted, write_scalar};
use crate::profile::format::{Frontmatter, MAX_TURN_COUNT, SCHEMA_VERSION};
use std::collections::HashSet;

const KNOWN_KEYS: [&str; 4] = ["user_id", "schema_version", "last_updated", "turn_count"];

/// Write the frontmatter block, delimiters included, ending with a newline. Known fields come
/// first in the order of behaviour §1.2; `schema_version` is always 1; `turn_count` is at most
/// [`MAX_TURN_COUNT`]; unknown keys follow in order (an unknown key that repeats a known or
/// earlier key is not written).
///
/// Strings (`user_id`, `last_updated`, keys) are written as serde-yaml 0.9 writes them where
/// that is sound (see [`write_scalar`]). An unknown key's value is written from its YAML
/// text: inline (`key: text`) when it is one line that is not a block collection, else as a
/// block under `key:` — a sequence at the key's indentation as serde-yaml writes it, anything
/// else indented two spaces, or after `key: ` when its first line is a block scalar header or
/// an anchor. Each entry is then read back with the reader: unless that gives exactly this key
/// and value, well-formed, the value is written as a quoted string instead. So the output is
/// always read back as written, `render(parse(render(p))) == render(p)`, and no value can add
/// a key or end the block.
pub fn render_frontmatter(frontmatter: &Frontmatter) -> String {
    let extra_len: usize = frontmatter
        .extra
        .iter()
        .map(|f| f.key.len() + f.value.len() + 8)
        .sum();
    let mut out = String::with_capacity(112 + extra_len);
    out.push_str("---\n");
    if let Some(user_id) = &frontmatter.user_id {
        out.push_str("user_id: ");
        write_scalar(&mut out, user_id);
        out.push('\n');
    }
    out.push_str("schema_version: ");
    push_decimal(&mut out, SCHEMA_VERSION);
    out.push('\n');
    if let Some(last_updated) = &frontmatter.last_updated {
        out.push_str("last_updated: ");
        write_scalar(&mut out, last_updated);
        out.push('\n');
    }
    out.push_str("turn_count: ");
    push_decimal(&mut out, frontmatter.turn_count.min(MAX_TURN_COUNT));
    out.push('\n');
    let mut written = KeySet::default();
    let mut anchors = Anchors::default();
    for field in &frontmatter.extra {
        if KNOWN_KEYS.contains(&field.key.as_str()) || !written.insert(&field.key) {
            continue;
        }
        write_unknown(&mut out, &field.key, &field.value, &mut anchors);
    }
    out.push_str("---\n");
    out
}

fn push_decimal(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut len = 0;
    loop {
        if let Some(slot) = digits.get_mut(len) {
            *slot = b'0' + (n % 10) as u8;
        }
        len += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in digits.get(..len).unwrap_or_default().iter().rev() {
        out.push(char::from(d));
    }
}

/// One unknown entry (see [`render_frontmatter`]).
fn write_unknown(out: &mut String, key: &str, value: &str, anchors: &mut Anchors) {
    let start = out.len();
    write_scalar(out, key);
    let key_end = out.len();
    layout_value(out, value);
    if let Some(defined) = out
        .get(start..)
        .and_then(|entry| reads_back_as(entry, key, value, anchors))
    {
        anchors.extend(defined);
        return;
    }
    out.truncate(key_end);
    out.push_str(": ");
    write_quoted(out, value);
    out.push('\n');
}

/// `: value` after a key: inline, or as a block.
fn layout_value(out: &mut String, value: &str) {
    let one_line = !value.contains('\n');
    if one_line && value.is_empty() {
        out.push_str(":\n");
        return;
    }
    let block_collection = value == "-"
        || value.starts_with("- ")
        || value == "?"
        || value.starts_with("? ")
        || parse_key(value).is_some();
    // Trailing white space survives only on a line of its own (the inline text is trimmed).
    if one_line && !block_collection && !value.ends_with([' ', '\t']) {
        out.push_str(": ");
        out.push_str(value);
        out.push('\n');
        return;
    }
    let (first, rest) = value.split_once('\n').unwrap_or((value, ""));
    // The lines after a header keep their indentation relative to the key only when none of
    // them is indented (the reader removes their common indentation).
    let flush = rest
        .split('\n')
        .any(|l| !l.trim_matches([' ', '\t']).is_empty() && !l.starts_with(' '));
    let (body, indent) =
        if !one_line && flush && !first.ends_with([' ', '\t']) && header_line(first) {
            out.push_str(": ");
            out.push_str(first);
            (rest, "  ")
        } else {
            out.push(':');
            // serde-yaml's style: a sequence at the key's indentation.
            let sequence = is_sequence_item(first)
                && value
                    .split('\n')
                    .all(|l| l.is_empty() || is_sequence_item(l) || l.starts_with(' '));
            (value, if sequence { "" } else { "  " })
        };
    out.push('\n');
    for line in body.split('\n') {
        if !line.is_empty() {
            out.push_str(indent);
            out.push_str(line);
        }
        out.push('\n');
    }
}

fn is_sequence_item(line: &str) -> bool {
    line == "-" || line.starts_with("- ")
}

/// A first line that stays after `key: `: a block scalar header, or an anchor (a comment may
/// follow either).
fn header_line(line: &str) -> bool {
    let mut text = line;
    if let Some(after) = text.strip_prefix('&') {
        let name_end = after.find([' ', '\t']).unwrap_or(after.len());
        text = after
            .get(name_end..)
            .unwrap_or("")
            .trim_start_matches([' ', '\t']);
        if text.is_empty() || text.starts_with('#') {
            return true;
        }
    }
    text.starts_with(['|', '>']) && super::scalar::block_header(text).is_some()
}

/// Does `entry` (one written entry) read back as exactly `key` and `value`, well-formed and not
/// ending the block? The anchors it defines when it does.
fn reads_back_as(
    entry: &str,
    key: &str,
    value: &str,
    anchors: &Anchors,
) -> Option<HashSet<String>> {
    if entry
        .split('\n')
        .any(|line| matches!(line.trim_end(), "---" | "..."))
    {
        return None;
    }
    let pieces = pieces(entry);
    let [Piece::Entry(read)] = pieces.as_slice() else {
        return None;
    };
    if read.key != key || value_text(read.rest, &read.lines) != value {
        return None;
    }
    check_value(read.rest, &read.lines, anchors)
}
