//! Hard truncation (SPEC §1.5): keep whole lines from the top, then the marker.
//!
//! How the cost is measured: each line is counted once, as `line + "\n"`, and the per-line counts
//! are summed to pick how many lines to keep. BPE counts are not additive, so the sum is only an
//! estimate; the assembled result is always counted **as a whole** before it is returned, and when
//! that count is over budget the number of kept lines is searched downwards (binary search, then
//! every answer re-verified). Only the lines that are kept are counted, plus one count of the
//! input for the report, so the work is linear in the input and not quadratic in the lines.
//!
//! A counter is not assumed to be monotone: every search keeps a known-fitting lower bound that
//! was actually counted, so the returned text has been counted and fits, whatever the counter.

use crate::error::{Error, ErrorCode, Result};
use crate::host::TokenCounter;
use serde::Serialize;

/// Appended at the end of a hard-truncated profile. Byte-exact contract (SPEC §1.5).
pub const TRUNCATION_MARKER: &str = "\n\n<!-- truncated to fit memory budget -->";

/// What [`enforce_token_cap`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TruncateOutcome {
    /// The text, within `max_tokens` (the input itself when it already was).
    pub text: String,
    /// `true` when the text was cut (the marker, or a prefix of it, was appended).
    pub truncated: bool,
    /// Tokens of the input.
    pub tokens_before: usize,
    /// Tokens of `text`, counted as a whole.
    pub tokens_after: usize,
}

/// Cut `text` to at most `max_tokens` tokens of `counter` (SPEC §1.5). Any budget is accepted,
/// also 0 (validation of the configured budget is [`super::validate_max_tokens`]'s job).
///
/// - Within budget: returned unchanged.
/// - Otherwise whole lines are kept from the top while they fit in `max_tokens − tokens(marker)`,
///   the kept text is right-trimmed and [`TRUNCATION_MARKER`] appended. A marker already ending
///   the kept text (a text truncated before) is not doubled.
/// - When not even the first line fits, the first line is cut at the longest character boundary
///   that fits (never inside a UTF-8 sequence, so never inside a UTF-16 surrogate pair either).
/// - When the marker alone does not fit, the result is the longest prefix of the marker that does
///   (possibly empty).
///
/// Errors only when the counter fails, or when it counts the empty string as more than
/// `max_tokens` (then no text fits at all).
pub fn enforce_token_cap(
    text: &str,
    max_tokens: usize,
    counter: &impl TokenCounter,
) -> Result<TruncateOutcome> {
    cap_counted(text, counter.count(text)?, max_tokens, counter)
}

/// [`enforce_token_cap`] for a text whose whole count is already known (saves a count of a
/// large text in [`super::fit_profile`]).
pub(crate) fn cap_counted(
    text: &str,
    tokens_before: usize,
    max_tokens: usize,
    counter: &impl TokenCounter,
) -> Result<TruncateOutcome> {
    if tokens_before <= max_tokens {
        return Ok(TruncateOutcome {
            text: text.to_string(),
            truncated: false,
            tokens_before,
            tokens_after: tokens_before,
        });
    }
    let (text, tokens_after) = cut(text, max_tokens, counter)?;
    Ok(TruncateOutcome {
        text,
        truncated: true,
        tokens_before,
        tokens_after,
    })
}

/// The cut itself, for a text known to be over budget: the result and its whole count.
fn cut(text: &str, max_tokens: usize, counter: &impl TokenCounter) -> Result<(String, usize)> {
    let marker_tokens = counter.count(TRUNCATION_MARKER)?;
    if marker_tokens > max_tokens {
        return marker_prefix(max_tokens, counter);
    }
    let line_budget = max_tokens - marker_tokens;
    // Ends (byte offsets after the `\n`) of the lines the per-line estimate keeps.
    let mut ends = Vec::new();
    let mut spent = 0usize;
    let mut offset = 0usize;
    for line in text.split_inclusive('\n') {
        let content = line.strip_suffix('\n').unwrap_or(line);
        let cost = counter.count(&format!("{content}\n"))?;
        if spent.saturating_add(cost) > line_budget {
            break;
        }
        spent += cost;
        offset += line.len();
        ends.push(offset);
    }
    let fits = |end: usize| -> Result<Option<(String, usize)>> {
        let candidate = with_marker(text.get(..end).unwrap_or(""));
        let tokens = counter.count(&candidate)?;
        Ok((tokens <= max_tokens).then_some((candidate, tokens)))
    };
    if let Some(&last) = ends.last() {
        if let Some(found) = fits(last)? {
            return Ok(found);
        }
        // The estimate was too optimistic: search the largest number of lines that really fits.
        let (mut lo, mut hi) = (0usize, ends.len() - 1);
        let mut best = None;
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            match ends.get(mid - 1).copied().map(fits).transpose()?.flatten() {
                Some(found) => {
                    best = Some(found);
                    lo = mid;
                }
                None => hi = mid - 1,
            }
        }
        if let Some(found) = best {
            return Ok(found);
        }
    }
    let first_line = text.split('\n').next().unwrap_or("");
    cut_inside(first_line, max_tokens, counter, true)
}

/// `kept` right-trimmed, with the marker appended (never doubled).
fn with_marker(kept: &str) -> String {
    let kept = kept.trim_end();
    let kept = kept
        .strip_suffix(TRUNCATION_MARKER.trim_start())
        .map_or(kept, str::trim_end);
    format!("{kept}{TRUNCATION_MARKER}")
}

/// The longest prefix of the marker that fits (the marker alone is over budget).
fn marker_prefix(max_tokens: usize, counter: &impl TokenCounter) -> Result<(String, usize)> {
    cut_inside(TRUNCATION_MARKER, max_tokens, counter, false)
}

/// The longest character-boundary prefix of `line` that fits, right-trimmed and followed by the
/// marker when `marked`. Gallops from the start so a huge single line costs work proportional to
/// what is kept (times a log factor), not to the line.
fn cut_inside(
    line: &str,
    max_tokens: usize,
    counter: &impl TokenCounter,
    marked: bool,
) -> Result<(String, usize)> {
    let build = |end: usize| -> String {
        let prefix = line.get(..end).unwrap_or("");
        if marked {
            with_marker(prefix)
        } else {
            prefix.to_string()
        }
    };
    let fits = |end: usize| -> Result<Option<(String, usize)>> {
        let candidate = build(end);
        let tokens = counter.count(&candidate)?;
        Ok((tokens <= max_tokens).then_some((candidate, tokens)))
    };
    let Some(mut best) = fits(0)? else {
        return Err(Error::new(
            ErrorCode::Host,
            format!(
                "the token counter counts even the shortest possible text as over {max_tokens} tokens; \
                 check the host's countTokens (it should count \"\" as 0)"
            ),
        ));
    };
    let mut lo = 0usize;
    let mut hi = line.len() + 1; // first known-failing end (exclusive sentinel past the end)
    let mut step = 16usize;
    while lo < line.len() {
        let probe = ceil_boundary(line, lo.saturating_add(step));
        match fits(probe)? {
            Some(found) => {
                best = found;
                lo = probe;
                step = step.saturating_mul(2);
            }
            None => {
                hi = probe;
                break;
            }
        }
    }
    while hi > lo + 1 {
        let mut mid = floor_boundary(line, lo + (hi - lo) / 2);
        if mid <= lo {
            mid = ceil_boundary(line, lo + 1);
            if mid >= hi {
                break;
            }
        }
        match fits(mid)? {
            Some(found) => {
                best = found;
                lo = mid;
            }
            None => hi = mid,
        }
    }
    Ok(best)
}

/// The largest char boundary at or below `index` (clamped to the length).
fn floor_boundary(text: &str, index: usize) -> usize {
    let mut index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

/// The smallest char boundary at or above `index` (clamped to the length).
fn ceil_boundary(text: &str, index: usize) -> usize {
    let mut index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index += 1;
    }
    index
}
