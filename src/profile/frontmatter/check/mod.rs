//! The structural check of an unknown key's value, which is kept as the YAML text written in
//! the file rather than parsed: is it well-formed YAML that other readers (libyaml, serde-yaml,
//! js-yaml) take as one value of that key?
//!
//! The check is conservative: it accepts a common subset — plain, quoted and block scalars,
//! flow collections, block sequences and mappings nested up to [`MAX_DEPTH`], anchors, aliases
//! of anchors defined before them, comments — and refuses what it does not know to be sound
//! (tags, complex `?` keys, explicit block indentation, tabs in indentation, characters YAML
//! readers refuse or take as line breaks, integers beyond 64 bits, duplicate keys). A refused
//! value is still kept as text (`invalid-yaml`), and written as a quoted string. Every step is
//! linear in the text, aliases are never expanded, and recursion is bounded by [`MAX_DEPTH`].

use super::entries::{cut_comment, is_seq_item, parse_key, Line};
use flow::Flow;

mod flow;
use super::scalar::block_header;
use super::style::integer;
use std::collections::HashSet;

/// Nesting deeper than this (block and flow levels together) is refused; serde-yaml's own limit
/// is 128.
pub(super) const MAX_DEPTH: usize = 48;

/// Anchors defined so far in a block, in document order.
#[derive(Debug, Default)]
pub(super) struct Anchors(HashSet<String>);

impl Anchors {
    pub fn extend(&mut self, names: HashSet<String>) {
        self.0.extend(names);
    }
}

/// Is the value of an entry (`rest` after `key:`, then its lines) well-formed? `Some` with the
/// anchors it defines, `None` when it is not.
pub(super) fn check_value(
    rest: &str,
    lines: &[Line<'_>],
    anchors: &Anchors,
) -> Option<HashSet<String>> {
    if !acceptable(rest)
        || lines
            .iter()
            .any(|line| line.tab_indented() || !acceptable(line.text))
    {
        return None;
    }
    let mut check = Check {
        defined: anchors,
        new: HashSet::new(),
    };
    let first = rest.trim_matches([' ', '\t']);
    check.value(first, Pos::MapValue, lines, 0, 1).ok()?;
    Some(check.new)
}

/// Characters a YAML reader accepts and does not take as a line break (libyaml refuses
/// controls, U+FFFE/U+FFFF; U+0085, U+2028 and U+2029 are line breaks in YAML 1.1; a U+FEFF may
/// be skipped as a byte-order mark).
fn acceptable(text: &str) -> bool {
    text.chars().all(|c| {
        c == '\t'
            || (' '..='~').contains(&c)
            || (c >= '\u{a0}'
                && !matches!(
                    c,
                    '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
                ))
    })
}

pub(super) struct Refused;
pub(super) type Checked = Result<(), Refused>;

pub(super) fn ok_if(condition: bool) -> Checked {
    if condition {
        Ok(())
    } else {
        Err(Refused)
    }
}

/// Where a node's first text stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pos {
    /// After `key:` on the key's line: no block collection may start there.
    MapValue,
    /// After `- `: a compact sequence or mapping may start there.
    SeqItem,
    /// On a line of its own.
    OwnLine,
}

pub(super) struct Check<'d> {
    defined: &'d Anchors,
    pub(super) new: HashSet<String>,
}

impl Check<'_> {
    pub(super) fn is_defined(&self, name: &str) -> bool {
        self.defined.0.contains(name) || self.new.contains(name)
    }

    /// A node whose first text is `first` (it may be empty), standing at `pos`, followed by
    /// `rest`, inside a collection indented `parent` (the top-level mapping: 0).
    fn value(
        &mut self,
        first: &str,
        pos: Pos,
        rest: &[Line<'_>],
        parent: usize,
        depth: usize,
    ) -> Checked {
        ok_if(depth <= MAX_DEPTH)?;
        let (anchor, text) = properties(first.trim_end_matches([' ', '\t']))?;
        if text.is_empty() || text.starts_with('#') {
            if anchor.is_some() {
                // An anchor alone stands after `key:` or `- `, and the node after it has no
                // properties of its own and is no alias.
                let next = rest.iter().find(|l| !l.is_blank() && !l.is_comment());
                ok_if(
                    pos != Pos::OwnLine
                        && !next.is_some_and(|l| l.text.starts_with(['&', '!', '*'])),
                )?;
            }
            self.own_lines(rest, parent, pos == Pos::MapValue, depth)?;
        } else if text.starts_with(['|', '>']) {
            ok_if(block_header(text).is_some_and(|h| h.indent.is_none()))?;
            block_scalar(rest, parent)?;
        } else if is_seq_item(text) || parse_key(text).is_some() {
            // A block collection cannot start after `key:` or after an anchor on its line
            // (compact ones after `- ` and ones on their own line were taken before).
            return Err(Refused);
        } else if text.starts_with(['?', ':'])
            && matches!(text.as_bytes().get(1), None | Some(b' ' | b'\t'))
        {
            return Err(Refused);
        } else {
            ok_if(!(anchor.is_some() && text.starts_with('*')))?;
            self.scalar_or_flow(text, rest, parent, depth)?;
        }
        if let Some(name) = anchor {
            self.new.insert(name.to_string());
        }
        Ok(())
    }

    /// The node is on the next lines (or there is none: null).
    fn own_lines(
        &mut self,
        lines: &[Line<'_>],
        parent: usize,
        sequence_at_parent: bool,
        depth: usize,
    ) -> Checked {
        let Some(at) = lines.iter().position(|l| !l.is_blank() && !l.is_comment()) else {
            return Ok(());
        };
        let line = lines.get(at).ok_or(Refused)?;
        let text = line.content();
        ok_if(
            line.indent > parent
                || (sequence_at_parent && line.indent == parent && is_seq_item(text)),
        )?;
        let rest = lines.get(at + 1..).unwrap_or_default();
        if is_seq_item(text) {
            return self.block_seq(line.text, line.indent, rest, depth + 1);
        }
        if parse_key(text).is_some() {
            return self.block_map(text, line.indent, rest, depth + 1);
        }
        self.value(text, Pos::OwnLine, rest, parent, depth + 1)
    }

    /// A block sequence whose first item is `first` at column `indent`.
    fn block_seq(
        &mut self,
        first: &str,
        indent: usize,
        rest: &[Line<'_>],
        depth: usize,
    ) -> Checked {
        ok_if(depth <= MAX_DEPTH)?;
        let mut item = first;
        let mut start = 0;
        for (index, line) in rest.iter().enumerate() {
            if line.is_blank() || line.is_comment() || line.indent > indent {
                continue;
            }
            ok_if(line.indent == indent && is_seq_item(line.content()))?;
            self.item(
                item,
                indent,
                rest.get(start..index).unwrap_or_default(),
                depth,
            )?;
            item = line.text;
            start = index + 1;
        }
        self.item(item, indent, rest.get(start..).unwrap_or_default(), depth)
    }

    fn item(&mut self, item: &str, indent: usize, lines: &[Line<'_>], depth: usize) -> Checked {
        let after = item.strip_prefix('-').ok_or(Refused)?;
        // The end is trimmed later: a tab after `-` is refused (libyaml does), even at the end.
        let text = after.trim_start_matches([' ', '\t']);
        let separator = after.get(..after.len() - text.len()).unwrap_or("");
        ok_if(!separator.contains('\t'))?;
        // The item's own text stands after `- `, at this column.
        let col = indent + 1 + (after.len() - after.trim_start_matches(' ').len());
        self.value_at(text, col, lines, indent, depth + 1)
    }

    /// An item's value: a compact collection starts at `col`, anything else as a value.
    fn value_at(
        &mut self,
        text: &str,
        col: usize,
        lines: &[Line<'_>],
        parent: usize,
        depth: usize,
    ) -> Checked {
        if is_seq_item(text) {
            return self.block_seq(text, col, lines, depth + 1);
        }
        if parse_key(text).is_some() && !text.starts_with(['&', '!']) {
            return self.block_map(text, col, lines, depth + 1);
        }
        self.value(text, Pos::SeqItem, lines, parent, depth)
    }

    /// A block mapping whose first entry is `first` at column `indent`.
    fn block_map(
        &mut self,
        first: &str,
        indent: usize,
        rest: &[Line<'_>],
        depth: usize,
    ) -> Checked {
        ok_if(depth <= MAX_DEPTH)?;
        let mut keys: HashSet<String> = HashSet::new();
        let mut entry = first;
        let mut start = 0;
        for (index, line) in rest.iter().enumerate() {
            if line.is_blank() || line.is_comment() || line.indent > indent {
                continue;
            }
            // A sequence may stand at its key's indentation.
            if line.indent == indent && is_seq_item(line.content()) {
                continue;
            }
            ok_if(line.indent == indent)?;
            self.map_entry(
                entry,
                indent,
                rest.get(start..index).unwrap_or_default(),
                &mut keys,
                depth,
            )?;
            entry = line.content();
            start = index + 1;
        }
        self.map_entry(
            entry,
            indent,
            rest.get(start..).unwrap_or_default(),
            &mut keys,
            depth,
        )
    }

    fn map_entry(
        &mut self,
        entry: &str,
        indent: usize,
        lines: &[Line<'_>],
        keys: &mut HashSet<String>,
        depth: usize,
    ) -> Checked {
        let (key, after) = parse_key(entry).ok_or(Refused)?;
        let plain = !entry.starts_with(['\'', '"']);
        ok_if(key.len() <= 1000 && !(plain && integer(&key) == Some(false)))?;
        ok_if(keys.insert(key.into_owned()))?;
        self.value(
            after.trim_matches([' ', '\t']),
            Pos::MapValue,
            lines,
            indent,
            depth + 1,
        )
    }

    /// A scalar or a flow collection starting with `text`, possibly continued on `rest`.
    fn scalar_or_flow(
        &mut self,
        text: &str,
        rest: &[Line<'_>],
        parent: usize,
        depth: usize,
    ) -> Checked {
        if let Some(name) = text.strip_prefix('*') {
            let (name, after) = anchor_name(name)?;
            ok_if(self.is_defined(name) && comment_or_nothing(after))?;
            return only_comments(rest);
        }
        if !text.starts_with(['[', '{', '\'', '"']) {
            return plain(text, rest, parent);
        }
        // The node may go on over the lines indented deeper than its parent.
        let used = rest
            .iter()
            .position(|l| !l.is_blank() && l.indent <= parent)
            .unwrap_or(rest.len());
        let joined = super::scalar::joined(text, rest.get(..used).unwrap_or_default());
        let mut flow = Flow {
            text: &joined,
            at: 0,
            check: self,
        };
        if text.starts_with(['[', '{']) {
            flow.collection(depth + 1)?;
        } else {
            flow.quoted()?;
        }
        ok_if(super::scalar::only_space_and_comments(
            joined.get(flow.at..).unwrap_or(""),
        ))?;
        only_comments(rest.get(used..).unwrap_or_default())
    }
}

/// An anchor before a node (`&name`); tags are refused.
fn properties(text: &str) -> Result<(Option<&str>, &str), Refused> {
    ok_if(!text.starts_with('!'))?;
    let Some(after) = text.strip_prefix('&') else {
        return Ok((None, text));
    };
    let (name, rest) = anchor_name(after)?;
    let rest = rest.trim_start_matches([' ', '\t']);
    ok_if(!rest.starts_with(['&', '!']))?;
    Ok((Some(name), rest))
}

/// An anchor or alias name (libyaml: letters, digits, `-`, `_`), followed by white space or
/// nothing; the name and what follows.
fn anchor_name(text: &str) -> Result<(&str, &str), Refused> {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(text.len());
    let (name, after) = (
        text.get(..end).ok_or(Refused)?,
        text.get(end..).ok_or(Refused)?,
    );
    ok_if(!name.is_empty() && matches!(after.as_bytes().first(), None | Some(b' ' | b'\t')))?;
    Ok((name, after))
}

fn comment_or_nothing(text: &str) -> bool {
    matches!(
        text.trim_start_matches([' ', '\t']).as_bytes().first(),
        None | Some(b'#')
    )
}

/// Only blank lines and comments.
fn only_comments(lines: &[Line<'_>]) -> Checked {
    ok_if(lines.iter().all(|l| l.is_blank() || l.is_comment()))
}

/// `|` or `>` content: lines indented deeper than the parent, the first non-empty one fixing
/// the indentation (an empty line before it may not be longer); a less indented line ends it,
/// and only comments may follow.
fn block_scalar(rest: &[Line<'_>], parent: usize) -> Checked {
    let Some(at) = rest.iter().position(|l| !l.is_blank()) else {
        return Ok(());
    };
    let first = rest.get(at).ok_or(Refused)?;
    if first.indent <= parent {
        return only_comments(rest.get(at..).unwrap_or_default());
    }
    let indent = first.indent;
    ok_if(
        rest.get(..at)
            .unwrap_or_default()
            .iter()
            .all(|l| l.indent + l.text.len() <= indent),
    )?;
    let after = rest.get(at + 1..).unwrap_or_default();
    match after
        .iter()
        .position(|l| !l.is_blank() && l.indent < indent)
    {
        Some(end) => only_comments(after.get(end..).unwrap_or_default()),
        None => Ok(()),
    }
}

/// A plain scalar in block context, possibly over several lines.
fn plain(text: &str, rest: &[Line<'_>], parent: usize) -> Checked {
    ok_if(plain_start(text, false))?;
    let (body, mut ended) = cut_comment(text);
    let body = body.trim_end_matches([' ', '\t']);
    ok_if(!has_value_indicator(body))?;
    let mut single_line = true;
    for (index, line) in rest.iter().enumerate() {
        if line.is_blank() {
            continue;
        }
        if ended || line.is_comment() || line.indent <= parent {
            only_comments(rest.get(index..).unwrap_or_default())?;
            break;
        }
        let content = line.content();
        let indicator = content.starts_with(['?', ':', '-'])
            && matches!(content.as_bytes().get(1), None | Some(b' ' | b'\t'));
        ok_if(!(is_seq_item(content) || indicator))?;
        let (body, comment) = cut_comment(content);
        ok_if(!has_value_indicator(body.trim_end_matches([' ', '\t'])))?;
        single_line = false;
        ended = comment;
    }
    ok_if(!(single_line && integer(body) == Some(false)))
}

/// Can a plain scalar start like this (in block or flow context)?
pub(super) fn plain_start(text: &str, flow: bool) -> bool {
    let bytes = text.as_bytes();
    let Some(&first) = bytes.first() else {
        return false;
    };
    let next = bytes.get(1).copied();
    match first {
        b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\''
        | b'"' | b'%' | b'@' | b'`' => false,
        // In a flow collection libyaml takes `?` and `:` as indicators whatever follows.
        b'?' | b':' if flow => false,
        b'-' | b'?' | b':' => match next {
            None | Some(b' ' | b'\t' | b'\n') => false,
            Some(b',' | b'[' | b']' | b'{' | b'}') => !flow,
            Some(_) => true,
        },
        _ => true,
    }
}

/// `: ` (or `:` + tab) inside, or a `:` at the end: a mapping where a scalar should be.
fn has_value_indicator(body: &str) -> bool {
    body.ends_with(':') || body.contains(": ") || body.contains(":\t")
}
