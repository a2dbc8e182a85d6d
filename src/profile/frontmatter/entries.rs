//! The top-level entries of a frontmatter block: where each `key: value` entry starts and ends,
//! its key, and its value's text as written.

use super::quoted::{decode_double, decode_single};
use std::borrow::Cow;
use std::collections::HashSet;

/// One line of a value: its indentation (leading spaces) and the rest, end not trimmed.
#[derive(Debug, Clone, Copy)]
pub(super) struct Line<'a> {
    pub indent: usize,
    pub text: &'a str,
}

impl<'a> Line<'a> {
    pub fn new(raw: &'a str) -> Self {
        let text = raw.trim_start_matches(' ');
        Line {
            indent: raw.len() - text.len(),
            text,
        }
    }

    /// The text without surrounding spaces and tabs.
    pub fn content(&self) -> &'a str {
        self.text.trim_matches([' ', '\t'])
    }

    pub fn is_blank(&self) -> bool {
        self.content().is_empty()
    }

    pub fn is_comment(&self) -> bool {
        self.content().starts_with('#')
    }

    /// A tab in the leading white space (YAML indents with spaces only; libyaml refuses a tab
    /// there even on an otherwise empty line).
    pub fn tab_indented(&self) -> bool {
        self.text.starts_with('\t')
    }
}

/// One top-level entry of a block.
#[derive(Debug)]
pub(super) struct Entry<'a> {
    /// The key, decoded.
    pub key: Cow<'a, str>,
    /// 0-based line of the block the entry starts on.
    pub line: usize,
    /// The first line after `key:` (not trimmed).
    pub rest: &'a str,
    /// The lines after the first that belong to the entry.
    pub lines: Vec<Line<'a>>,
}

/// What a block is made of, in order.
#[derive(Debug)]
pub(super) enum Piece<'a> {
    Entry(Entry<'a>),
    /// A line where an entry should start that is not a `key:` entry, or content before the
    /// first entry (0-based line).
    NotAnEntry(usize),
}

/// Cut a block (line ends already `\n`) into top-level entries: an entry starts at an
/// unindented line that is not a comment or a `- ` list item; the indented lines, list items,
/// comments and blank lines after it belong to it.
pub(super) fn pieces(yaml: &str) -> Vec<Piece<'_>> {
    let mut pieces = Vec::new();
    let mut current: Option<(usize, &str, Vec<Line<'_>>)> = None;
    let mut before_first: Option<usize> = None;
    for (index, raw) in yaml.split('\n').enumerate() {
        let continues = raw.trim().is_empty()
            || raw.starts_with([' ', '\t', '#'])
            || raw.trim_end() == "-"
            || raw.starts_with("- ");
        if continues {
            match &mut current {
                Some((_, _, lines)) => lines.push(Line::new(raw)),
                None => {
                    let line = Line::new(raw);
                    if before_first.is_none() && !line.is_blank() && !line.is_comment() {
                        before_first = Some(index);
                        pieces.push(Piece::NotAnEntry(index));
                    }
                }
            }
            continue;
        }
        if let Some(done) = current.take() {
            pieces.push(piece(done));
        }
        current = Some((index, raw, Vec::new()));
    }
    if let Some(done) = current {
        pieces.push(piece(done));
    }
    pieces
}

fn piece<'a>((line, first, lines): (usize, &'a str, Vec<Line<'a>>)) -> Piece<'a> {
    match parse_key(first) {
        Some((key, rest)) => Piece::Entry(Entry {
            key,
            line,
            rest,
            lines,
        }),
        None => Piece::NotAnEntry(line),
    }
}

/// `key: rest` on one line: the decoded key and what follows the `:`. A key is a plain scalar
/// (it ends at the first `:` followed by white space or the end of the line) or a single- or
/// double-quoted scalar on this line.
pub(super) fn parse_key(line: &str) -> Option<(Cow<'_, str>, &str)> {
    let (key, after) = match line.as_bytes().first()? {
        b'\'' | b'"' => {
            let (key, used) = if line.starts_with('\'') {
                decode_single(line)?
            } else {
                decode_double(line)?
            };
            let after = line.get(used..)?.trim_start_matches(' ');
            (Cow::Owned(key), after.strip_prefix(':')?)
        }
        _ => {
            if !plain_key_start(line) {
                return None;
            }
            let bytes = line.as_bytes();
            let colon = (0..bytes.len()).find(|&i| {
                bytes.get(i) == Some(&b':') && matches!(bytes.get(i + 1), None | Some(b' ' | b'\t'))
            })?;
            let key = line.get(..colon)?;
            if cut_comment(key).1 {
                return None;
            }
            let key = key.trim_end_matches([' ', '\t']);
            if key.is_empty() {
                return None;
            }
            (Cow::Borrowed(key), line.get(colon + 1..)?)
        }
    };
    matches!(after.as_bytes().first(), None | Some(b' ' | b'\t')).then_some((key, after))
}

/// Can a plain key start like this? Not with an indicator, nor with a document marker.
fn plain_key_start(line: &str) -> bool {
    let bytes = line.as_bytes();
    let Some(&first) = bytes.first() else {
        return false;
    };
    let next_is_space = matches!(bytes.get(1), None | Some(b' ' | b'\t'));
    let marker = (line.starts_with("---") || line.starts_with("..."))
        && matches!(bytes.get(3), None | Some(b' ' | b'\t'));
    let indicator = matches!(
        first,
        b',' | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
    ) || (matches!(first, b'-' | b'?' | b':') && next_is_space);
    !(marker || indicator)
}

/// `text` split before a comment (a `#` after a space or tab): the part before, and whether a
/// comment was cut.
pub(super) fn cut_comment(text: &str) -> (&str, bool) {
    let bytes = text.as_bytes();
    let at = (1..bytes.len())
        .find(|&i| bytes.get(i) == Some(&b'#') && matches!(bytes.get(i - 1), Some(b' ' | b'\t')));
    match at.and_then(|i| text.get(..i)) {
        Some(before) => (before, true),
        None => (text, false),
    }
}

/// A block sequence item: `-` alone or `- …`.
pub(super) fn is_seq_item(text: &str) -> bool {
    text == "-" || text.starts_with("- ")
}

/// The value of an entry as written: the text after `key:` trimmed; the lines after it (blank
/// lines and unindented comments at the end dropped) with their common indentation removed,
/// joined by `\n`, after a line break when the first line had text.
pub(super) fn value_text(rest: &str, lines: &[Line<'_>]) -> String {
    let first = rest.trim_matches([' ', '\t']);
    let kept = lines
        .iter()
        .rposition(|l| !(l.is_blank() || (l.indent == 0 && l.text.starts_with('#'))))
        .map_or(0, |i| i + 1);
    let lines = lines.get(..kept).unwrap_or_default();
    let common = lines
        .iter()
        .filter(|l| !l.is_blank())
        .map(|l| l.indent)
        .min()
        .unwrap_or(0);
    let mut text =
        String::with_capacity(first.len() + lines.iter().map(|l| l.text.len() + 1).sum::<usize>());
    text.push_str(first);
    for (index, line) in lines.iter().enumerate() {
        if index > 0 || !first.is_empty() {
            text.push('\n');
        }
        let extra = line.indent - line.indent.min(common);
        text.extend(std::iter::repeat(' ').take(extra));
        text.push_str(line.text);
    }
    text
}

/// Keys seen so far: a short list, a hash set once it grows (a block can hold thousands).
#[derive(Default)]
pub(super) struct KeySet<'a> {
    few: Vec<&'a str>,
    many: Option<HashSet<&'a str>>,
}

impl<'a> KeySet<'a> {
    /// Add `key`; `false` when it was already there.
    pub fn insert(&mut self, key: &'a str) -> bool {
        if let Some(many) = &mut self.many {
            return many.insert(key);
        }
        if self.few.contains(&key) {
            return false;
        }
        self.few.push(key);
        if self.few.len() > 16 {
            self.many = Some(self.few.drain(..).collect());
        }
        true
    }
}
