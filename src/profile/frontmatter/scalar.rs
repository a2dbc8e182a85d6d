//! The known fields' values read as YAML scalars: plain, quoted and block scalars, as text.

use super::entries::{cut_comment, is_seq_item, parse_key, Line};
use super::quoted::{decode_double, decode_single};

/// A known field's value, read as a YAML scalar.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Scalar {
    /// `~`, `null`, `Null`, `NULL` or nothing.
    Null,
    /// Text, decoded; `plain` when it was written without quotes (only a plain scalar can be
    /// an integer).
    Text { text: String, plain: bool },
    /// A flow or block collection, or an alias: not a scalar.
    Collection,
    /// Not valid YAML: an unterminated quote, unbalanced brackets, a collection on the key's
    /// line.
    Broken,
}

/// Read the value of an entry (`rest` after `key:` and the lines after it) as a scalar.
/// Anchors and tags before the value are skipped; lines less indented than a block scalar's
/// content end it.
pub(super) fn read_scalar(rest: &str, lines: &[Line<'_>]) -> Scalar {
    let first = skip_properties(rest.trim_matches([' ', '\t']));
    if !(first.is_empty() || first.starts_with('#')) {
        if is_seq_item(first) || block_indicator(first) || parse_key(first).is_some() {
            // A block collection cannot start on the key's line.
            return Scalar::Broken;
        }
        return node(first, lines);
    }
    // The node is on the next lines, after any lines holding only its anchor or tag.
    let mut lines = lines;
    loop {
        let Some(at) = lines.iter().position(|l| !l.is_blank() && !l.is_comment()) else {
            return Scalar::Null;
        };
        let text = skip_properties(lines.get(at).map_or("", Line::content));
        lines = lines.get(at + 1..).unwrap_or_default();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        if is_seq_item(text) || block_indicator(text) || parse_key(text).is_some() {
            return Scalar::Collection;
        }
        return node(text, lines);
    }
}

/// `?` or `:` as a block indicator (a complex key, an empty key).
fn block_indicator(text: &str) -> bool {
    text.starts_with(['?', ':']) && matches!(text.as_bytes().get(1), None | Some(b' ' | b'\t'))
}

fn node(text: &str, lines: &[Line<'_>]) -> Scalar {
    match text.as_bytes().first() {
        Some(b'|' | b'>') => block_scalar(text, lines),
        Some(b'[' | b'{') => {
            if balanced(&joined(text, lines)) {
                Scalar::Collection
            } else {
                Scalar::Broken
            }
        }
        Some(b'*') => Scalar::Collection,
        Some(b'\'') => quoted(&joined(text, lines), decode_single),
        Some(b'"') => quoted(&joined(text, lines), decode_double),
        _ => plain(text, lines),
    }
}

/// An anchor (`&a`) or tag (`!t`) before a value, skipped.
fn skip_properties(mut text: &str) -> &str {
    while text.starts_with(['&', '!']) {
        let end = text.find([' ', '\t']).unwrap_or(text.len());
        text = text
            .get(end..)
            .unwrap_or("")
            .trim_start_matches([' ', '\t']);
    }
    text
}

/// `first` and the lines after it, without their indentation, joined by `\n`.
pub(super) fn joined<'a>(first: &'a str, lines: &[Line<'_>]) -> std::borrow::Cow<'a, str> {
    if lines.is_empty() {
        return first.into();
    }
    let mut text =
        String::with_capacity(first.len() + lines.iter().map(|l| l.text.len() + 1).sum::<usize>());
    text.push_str(first);
    for line in lines {
        text.push('\n');
        text.push_str(line.text);
    }
    text.into()
}

fn quoted(text: &str, decode: fn(&str) -> Option<(String, usize)>) -> Scalar {
    match decode(text) {
        Some((value, used)) if only_space_and_comments(text.get(used..).unwrap_or("")) => {
            Scalar::Text {
                text: value,
                plain: false,
            }
        }
        _ => Scalar::Broken,
    }
}

/// Nothing but spaces, tabs, line breaks and comments (a `#` after whitespace).
pub(super) fn only_space_and_comments(text: &str) -> bool {
    let mut after_space = true;
    let mut in_comment = false;
    for c in text.chars() {
        match c {
            '\n' => {
                in_comment = false;
                after_space = true;
            }
            _ if in_comment => {}
            ' ' | '\t' => after_space = true,
            '#' if after_space => in_comment = true,
            _ => return false,
        }
    }
    true
}

/// A plain scalar: a ` #` starts a comment, lines fold with one space, an empty line is a
/// line break; a comment line ends it.
fn plain(first: &str, lines: &[Line<'_>]) -> Scalar {
    let (body, comment) = cut_comment(first);
    let mut text = body.trim_matches([' ', '\t']).to_string();
    if !comment {
        let mut breaks = 0;
        for line in lines {
            if line.is_blank() {
                breaks += 1;
                continue;
            }
            if line.is_comment() {
                break;
            }
            let (body, comment) = cut_comment(line.content());
            push_fold(&mut text, breaks);
            breaks = 0;
            text.push_str(body.trim_matches([' ', '\t']));
            if comment {
                break;
            }
        }
    }
    if matches!(text.as_str(), "" | "~" | "null" | "Null" | "NULL") {
        return Scalar::Null;
    }
    Scalar::Text { text, plain: true }
}

/// Between two folded lines: one space, or one line break per empty line between them.
fn push_fold(text: &mut String, empty_lines: usize) {
    if empty_lines == 0 {
        text.push(' ');
    } else {
        text.extend(std::iter::repeat('\n').take(empty_lines));
    }
}

/// `|` or `>` with optional chomping (`-`, `+`) and indentation (`1`–`9`) indicators, then the
/// content lines (indentation detected from the first non-empty one unless given).
fn block_scalar(header: &str, lines: &[Line<'_>]) -> Scalar {
    let Some(spec) = block_header(header) else {
        return Scalar::Broken;
    };
    let indent = spec.indent.or_else(|| {
        lines
            .iter()
            .find(|l| !l.is_blank())
            .map(|l| l.indent)
            .filter(|&n| n > 0)
    });
    let mut content: Vec<String> = Vec::new();
    if let Some(indent) = indent {
        for line in lines {
            if line.is_blank() {
                content.push(String::new());
            } else if line.indent >= indent {
                let mut text = " ".repeat(line.indent - indent);
                text.push_str(line.text);
                content.push(text);
            } else {
                break;
            }
        }
    }
    let trailing = content.iter().rev().take_while(|l| l.is_empty()).count();
    let body = content.get(..content.len() - trailing).unwrap_or_default();
    let mut text = if spec.folded {
        fold_block(body)
    } else {
        body.join("\n")
    };
    match spec.chomp {
        Chomp::Strip => {}
        Chomp::Clip => {
            if !body.is_empty() {
                text.push('\n');
            }
        }
        Chomp::Keep => {
            if !body.is_empty() {
                text.push('\n');
            }
            text.extend(std::iter::repeat('\n').take(trailing));
        }
    }
    Scalar::Text { text, plain: false }
}

/// Folded block content: adjacent lines join with a space, except around more-indented lines;
/// empty lines are line breaks.
fn fold_block(lines: &[String]) -> String {
    let mut text = String::new();
    let mut previous: Option<bool> = None; // Some(more_indented) of the last content line
    let mut empty = 0;
    for line in lines {
        if line.is_empty() {
            empty += 1;
            continue;
        }
        let more = line.starts_with([' ', '\t']);
        match previous {
            None => text.extend(std::iter::repeat('\n').take(empty)),
            Some(false) if !more => push_fold(&mut text, empty),
            Some(_) => text.extend(std::iter::repeat('\n').take(empty + 1)),
        }
        text.push_str(line);
        previous = Some(more);
        empty = 0;
    }
    text
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Chomp {
    Strip,
    Clip,
    Keep,
}

pub(super) struct BlockHeader {
    pub folded: bool,
    pub chomp: Chomp,
    pub indent: Option<usize>,
}

/// Parse a block scalar header (`|`, `>-`, `|2+`, … then an optional comment).
pub(super) fn block_header(header: &str) -> Option<BlockHeader> {
    let mut chars = header.chars();
    let folded = match chars.next()? {
        '|' => false,
        '>' => true,
        _ => return None,
    };
    let mut spec = BlockHeader {
        folded,
        chomp: Chomp::Clip,
        indent: None,
    };
    let rest = chars.as_str();
    let mut used = 0;
    for c in rest.chars().take(2) {
        match c {
            '-' | '+' if spec.chomp == Chomp::Clip => {
                spec.chomp = if c == '-' { Chomp::Strip } else { Chomp::Keep };
            }
            '1'..='9' if spec.indent.is_none() => spec.indent = c.to_digit(10).map(|d| d as usize),
            _ => break,
        }
        used += 1;
    }
    let after = rest.get(used..)?;
    let ok = after.is_empty()
        || (after.starts_with([' ', '\t'])
            && matches!(
                after.trim_start_matches([' ', '\t']).chars().next(),
                None | Some('#')
            ));
    ok.then_some(spec)
}

/// Brackets balanced outside quotes and comments, the collection closing at the end (only
/// spaces and comments after it).
fn balanced(text: &str) -> bool {
    let mut open: Vec<char> = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut after_space = true;
    while let Some((at, c)) = chars.next() {
        match c {
            '[' | '{' => open.push(if c == '[' { ']' } else { '}' }),
            ']' | '}' => {
                if open.pop() != Some(c) {
                    return false;
                }
                if open.is_empty() {
                    return only_space_and_comments(text.get(at + 1..).unwrap_or(""));
                }
            }
            '\'' | '"' => {
                let decoded = if c == '\'' {
                    decode_single(text.get(at..).unwrap_or(""))
                } else {
                    decode_double(text.get(at..).unwrap_or(""))
                };
                let Some((_, used)) = decoded else {
                    return false;
                };
                while chars.peek().is_some_and(|&(i, _)| i < at + used) {
                    chars.next();
                }
            }
            '#' if after_space => {
                while chars.peek().is_some_and(|&(_, c)| c != '\n') {
                    chars.next();
                }
            }
            _ => {}
        }
        after_space = matches!(c, ' ' | '\t' | '\n');
    }
    false
}
