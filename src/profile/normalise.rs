//! Normalising model output and the strict well-formedness check (behaviour §1.2, §1.6).

use super::format::{SECTION_HEADINGS, TITLE};
use super::frontmatter::split_frontmatter;
use super::markdown::{atx_heading, fence_opening, normalize_line_ends, FenceTracker};

/// Normalise a candidate body from a language model: line ends (`\r\n`, lone `\r`) → `\n`, trim, unwrap a surrounding
/// code fence (```` ``` ````, ```` ```markdown ````, any info string, or `~~~`), drop a leading
/// frontmatter block, and make sure it starts with `# User Memory` (a differently cased
/// `# user memory` is rewritten; any other first line gets the title put before it). The result
/// ends with one newline. It is not checked here: see [`is_well_formed_body`].
pub fn normalise_model_body(raw: &str) -> String {
    let text = normalize_line_ends(raw);
    let text = text.trim_start_matches('\u{feff}').trim();
    let text = unwrap_fence(text).trim();
    let split = split_frontmatter(text);
    let text = if split.block.is_some() {
        split.body.trim()
    } else {
        text
    };
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    let is_title = atx_heading(first.trim_end())
        .is_some_and(|(level, heading)| level == 1 && heading.eq_ignore_ascii_case(TITLE));
    let rest = if is_title { rest.trim() } else { text };
    if rest.is_empty() {
        format!("# {TITLE}\n")
    } else {
        format!("# {TITLE}\n\n{rest}\n")
    }
}

fn unwrap_fence(text: &str) -> &str {
    let Some((first, rest)) = text.split_once('\n') else {
        return text;
    };
    let Some(fence) = fence_opening(first) else {
        return text;
    };
    let Some((inner, last)) = rest.rsplit_once('\n') else {
        return if fence.is_closed_by(rest) { "" } else { text };
    };
    if fence.is_closed_by(last) {
        inner
    } else {
        text
    }
}

/// Is this model output a well-formed body? After [`normalise_model_body`]: the title, then
/// nothing but blank lines until the first `##` heading, and exactly the six `##` headings, in
/// canonical order, written exactly (trailing whitespace aside), and no other `##` heading
/// (`##` lines inside code fences are content). Text before the first section is refused because
/// the parser would move it into a section (it is usually the model talking, e.g. "Here is the
/// updated profile:").
pub fn is_well_formed_body(text: &str) -> bool {
    let normalised = normalise_model_body(text);
    let mut lines = normalised.lines();
    if lines.next() != Some(&*format!("# {TITLE}")) {
        return false;
    }
    let mut fences = FenceTracker::default();
    let mut expected = SECTION_HEADINGS.iter();
    let mut in_section = false;
    for line in lines {
        let line = line.trim_end();
        if fences.feed(line) {
            if !in_section {
                return false;
            }
            continue;
        }
        match atx_heading(line) {
            Some((2, _)) => {
                match expected.next() {
                    Some(heading) if line == format!("## {heading}") => {}
                    _ => return false,
                }
                in_section = true;
            }
            _ if !in_section && !line.is_empty() => return false,
            _ => {}
        }
    }
    expected.next().is_none()
}
