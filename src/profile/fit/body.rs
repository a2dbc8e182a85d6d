//! A line-preserving view of a profile body for deterministic condensing: top-level bullets with
//! their nested lines, everything else kept as opaque lines. Rendering writes back every line
//! that was not removed byte for byte (CRLF included), so condensing changes nothing else.

use crate::profile::format::{match_section_heading, EMPTY_SECTION_MARKER};
use crate::profile::markdown::{atx_heading, FenceTracker};

/// One top-level bullet (`- `, `* ` or `+ ` at column 0) and the indented lines under it.
#[derive(Debug)]
pub(crate) struct Bullet<'a> {
    pub(crate) head: &'a str,
    pub(crate) children: Vec<&'a str>,
    /// A code fence opens among the children: never removed or merged into, so a fence is
    /// never split or moved.
    pub(crate) opaque: bool,
    pub(crate) removed: bool,
}

/// A line or a bullet.
#[derive(Debug)]
pub(crate) enum Item<'a> {
    Line(&'a str),
    Bullet(Bullet<'a>),
}

/// Where an item sits: the canonical section (index into `SECTION_HEADINGS`) and the heading
/// scope (a new scope starts at every heading of level 2 or deeper).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place {
    pub(crate) section: Option<usize>,
    pub(crate) scope: usize,
}

/// The body as items, each with its place.
#[derive(Debug)]
pub(crate) struct Body<'a> {
    pub(crate) items: Vec<(Place, Item<'a>)>,
}

impl<'a> Body<'a> {
    /// Read a body (the text after the frontmatter). Lines inside top-level code fences are
    /// plain lines, never bullets or headings.
    pub(crate) fn read(text: &'a str) -> Body<'a> {
        let mut items = Vec::new();
        let mut fences = FenceTracker::default();
        let mut place = Place {
            section: None,
            scope: 0,
        };
        let mut lines = text.split('\n').peekable();
        while let Some(line) = lines.next() {
            let trimmed = line.trim_end();
            if fences.feed(trimmed) {
                items.push((place, Item::Line(line)));
                continue;
            }
            if let Some((level, heading)) = atx_heading(trimmed) {
                if level >= 2 {
                    place.scope += 1;
                }
                if level == 2 {
                    place.section = match_section_heading(heading).map(|(index, _)| index);
                }
                items.push((place, Item::Line(line)));
                continue;
            }
            if !is_top_level_bullet(line) {
                items.push((place, Item::Line(line)));
                continue;
            }
            let mut bullet = Bullet {
                head: line,
                children: Vec::new(),
                opaque: false,
                removed: false,
            };
            let mut inner = FenceTracker::default();
            while let Some(next) = lines.peek() {
                let in_fence = inner.open().is_some();
                let indented = next.starts_with([' ', '\t']) && !next.trim().is_empty();
                if !in_fence && !indented {
                    break;
                }
                if inner.feed(next.trim_end()) {
                    bullet.opaque = true;
                }
                bullet.children.push(next);
                lines.next();
            }
            items.push((place, Item::Bullet(bullet)));
        }
        Body { items }
    }

    /// Write the body back. A blank line that would follow another blank line only because the
    /// bullets between them were removed is dropped too.
    pub(crate) fn render(&self) -> String {
        let mut lines: Vec<&str> = Vec::with_capacity(self.items.len());
        let mut last_blank = false;
        let mut removed_since = false;
        for (_, item) in &self.items {
            match item {
                Item::Line(line) => {
                    let blank = line.trim().is_empty();
                    if blank && last_blank && removed_since {
                        continue;
                    }
                    lines.push(line);
                    last_blank = blank;
                    removed_since = false;
                }
                Item::Bullet(bullet) if bullet.removed => removed_since = true,
                Item::Bullet(bullet) => {
                    lines.push(bullet.head);
                    lines.extend(bullet.children.iter().copied());
                    last_blank = false;
                    removed_since = false;
                }
            }
        }
        lines.join("\n")
    }

    /// Put `_(empty)_` under the heading of canonical section `section` when nothing is left in
    /// it (behaviour §1.2: the whole content of an empty section).
    pub(crate) fn mark_empty_section(&mut self, section: usize) {
        let mut heading_at = None;
        for (index, (place, item)) in self.items.iter().enumerate() {
            if place.section != Some(section) {
                continue;
            }
            match item {
                Item::Line(line)
                    if heading_at.is_none() && atx_heading(line.trim_end()).is_some() =>
                {
                    heading_at = Some(index);
                }
                Item::Line(line) if line.trim().is_empty() => {}
                Item::Line(_) => return,
                Item::Bullet(bullet) if bullet.removed => {}
                Item::Bullet(_) => return,
            }
        }
        let Some(index) = heading_at else {
            return;
        };
        if let Some((place, Item::Line(heading))) = self.items.get(index) {
            // Follow the heading's line ending so a CRLF file stays CRLF.
            let marker = if heading.ends_with('\r') {
                EMPTY_SECTION_MARKER_CRLF
            } else {
                EMPTY_SECTION_MARKER
            };
            let place = *place;
            self.items.insert(index + 1, (place, Item::Line(marker)));
        }
    }
}

/// `_(empty)_` for a section whose lines end with `\r\n`.
const EMPTY_SECTION_MARKER_CRLF: &str = "_(empty)_\r";

/// A bullet at column 0: `- `, `* ` or `+ ` followed by text.
fn is_top_level_bullet(line: &str) -> bool {
    ["- ", "* ", "+ "]
        .iter()
        .any(|marker| line.starts_with(marker))
}

/// The text a bullet is compared by: without the bullet marker, lower-cased, whitespace runs
/// collapsed to one space, trailing punctuation removed. Empty for a bullet with no words.
pub(crate) fn duplicate_key(line: &str) -> String {
    let text = line.trim_start();
    let text = ["- ", "* ", "+ "]
        .iter()
        .find_map(|marker| text.strip_prefix(marker))
        .unwrap_or(text);
    let words: Vec<String> = text.split_whitespace().map(str::to_lowercase).collect();
    words
        .join(" ")
        .trim_end_matches(|c: char| c.is_whitespace() || TRAILING_PUNCTUATION.contains(&c))
        .to_string()
}

const TRAILING_PUNCTUATION: [char; 9] = ['.', ',', ';', ':', '!', '?', '…', '。', '！'];

/// The `YYYY-MM-DD HH:MM` of a dated Recent Topics bullet (`- YYYY-MM-DD HH:MM UTC: topic`), as a
/// string whose lexical order is chronological. ` UTC` and the colon after it are optional.
pub(crate) fn topic_timestamp(head: &str) -> Option<&str> {
    let rest = ["- ", "* ", "+ "]
        .iter()
        .find_map(|marker| head.strip_prefix(marker))?
        .trim_start();
    let stamp = rest.get(..16)?;
    let shape_ok = stamp.char_indices().all(|(i, c)| match i {
        4 | 7 => c == '-',
        10 => c == ' ',
        13 => c == ':',
        _ => c.is_ascii_digit(),
    });
    shape_ok.then_some(stamp)
}
