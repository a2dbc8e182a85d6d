//! Hard truncation (behaviour §1.5): keep whole lines from the top, then the marker.
//!
//! How the cost is measured: each line is counted once, as `line + "\n"`, and the per-line counts
//! are summed to pick how many lines to keep. BPE counts are not additive, so the sum is only an
//! estimate; the assembled result is always counted **as a whole** before it is returned, and when
//! that count is over budget the number of kept lines is searched downwards (binary search, then
//! every answer re-verified).
//!
//! The cost is bounded by the budget, not by the text (behaviour §1.7): only the
//! [`super::fit_window`] of the text is looked at, every count is a bounded
//! [`TokenCounter::count_within`] that stops once the budget is passed, and a line is only counted
//! while the budget is not spent. A counter is not assumed to be monotone: every search keeps a
//! known-fitting lower bound that was actually counted, so the returned text has been counted and
//! fits, whatever the counter.

use super::{fit_window, tokens_of_input, within_budget};
use crate::error::{Error, ErrorCode, Result};
use crate::host::TokenCounter;
use crate::profile::markdown::{lines_with_ends, without_line_end};
use serde::Serialize;

/// Appended at the end of a hard-truncated profile. Byte-exact contract (behaviour §1.5).
pub const TRUNCATION_MARKER: &str = "\n\n<!-- truncated to fit memory budget -->";

/// What [`enforce_token_cap`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TruncateOutcome {
    /// The text, within `max_tokens` (the input itself when it already was).
    pub text: String,
    /// `true` when the text was cut (the marker, or a prefix of it, was appended).
    pub truncated: bool,
    /// Tokens of the input; `None` when the input is longer than the budget could ever hold
    /// ([`super::fit_window`]) and was not counted.
    pub tokens_before: Option<usize>,
    /// Tokens of `text`, counted as a whole.
    pub tokens_after: usize,
}

/// Cut `text` to at most `max_tokens` tokens of `counter` (behaviour §1.5). Any budget is accepted,
/// also 0 (validation of the configured budget is [`super::validate_max_tokens`]'s job).
///
/// - Within budget: returned unchanged.
/// - Otherwise whole lines are kept from the top while they fit in `max_tokens − tokens(marker)`,
///   the kept text is right-trimmed and [`TRUNCATION_MARKER`] appended. A marker already ending
///   the kept text (a text truncated before) is not doubled. A line ends at `\n`, `\r\n` or a lone
///   `\r`.
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
    if let Some(tokens) = within_budget(text, max_tokens, counter)? {
        return Ok(TruncateOutcome {
            text: text.to_string(),
            truncated: false,
            tokens_before: Some(tokens),
            tokens_after: tokens,
        });
    }
    let tokens_before = tokens_of_input(text, max_tokens, counter)?;
    let (text, tokens_after) = cut(fit_window(text, max_tokens).0, max_tokens, counter)?;
    Ok(TruncateOutcome {
        text,
        truncated: true,
        tokens_before,
        tokens_after,
    })
}

/// The cut itself: whole lines of `text` from the top and the marker, always (also when `text`
/// happens to fit: the caller knows something after it was dropped). The result and its count.
pub(crate) fn cut(
    text: &str,
    max_tokens: usize,
    counter: &impl TokenCounter,
) -> Result<(String, usize)> {
    let marker_tokens = counter.count(TRUNCATION_MARKER)?;
    if marker_tokens > max_tokens {
        return cut_inside(TRUNCATION_MARKER, max_tokens, counter, false);
    }
    let line_budget = max_tokens - marker_tokens;
    // Ends (byte offsets after the line end) of the lines the per-line estimate keeps.
    let mut ends = Vec::new();
    let mut spent = 0usize;
    let mut offset = 0usize;
    for line in lines_with_ends(text) {
        let content = without_line_end(line);
        let Some(cost) = counter.count_within(&format!("{content}\n"), line_budget - spent)? else {
            break;
        };
        spent += cost;
        offset += line.len();
        ends.push(offset);
    }
    let fits = |end: usize| -> Result<Option<(String, usize)>> {
        let candidate = with_marker(text.get(..end).unwrap_or(""));
        Ok(counter
            .count_within(&candidate, max_tokens)?
            .map(|tokens| (candidate, tokens)))
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
    let first_line = lines_with_ends(text).next().map_or("", without_line_end);
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

/// The longest character-boundary prefix of `line` that fits, right-trimmed and followed by the
/// marker when `marked`.
///
/// The search keeps a prefix known to fit (`lo`) and one known not to (`hi`) and probes by
/// interpolation: token counts grow about linearly with the length of one line, so the probe
/// `lo + (hi − lo) × (budget − tokens(lo)) / (tokens(hi) − tokens(lo))` lands close to the answer
/// and a few probes replace a bisection of every byte. Interpolation alternates with a gallop
/// from the fitting end (one token's bytes, doubling while probes fit, never past the midpoint),
/// which finds the exact last byte within a token or two in a few probes and still halves the
/// bracket like a bisection when a counter is far from linear. Over-budget probes stop at the
/// budget, so the work is a few counts of the kept length (≤ 8 on the texts of
/// `tests/tokens_linear.rs`), whatever the length of the line.
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
        Ok(counter
            .count_within(&candidate, max_tokens)?
            .map(|tokens| (candidate, tokens)))
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
    // (end, tokens) of the longest prefix known to fit and of the shortest known not to; the
    // tokens of a failing probe are only known to be over the budget.
    let mut lo = (0usize, best.1);
    let mut hi: Option<usize> = None;
    let mut probe = ceil_boundary(line, max_tokens.saturating_mul(4).max(16));
    let mut narrow = true;
    let mut gallop = 1usize;
    loop {
        let limit = hi.unwrap_or(line.len() + 1);
        if probe <= lo.0 || probe >= limit {
            probe = floor_boundary(line, lo.0 + (limit - lo.0) / 2);
            if probe <= lo.0 {
                probe = ceil_boundary(line, lo.0 + 1);
            }
            if probe >= limit || probe <= lo.0 {
                break;
            }
        }
        match fits(probe)? {
            Some(found) => {
                lo = (probe, found.1);
                best = found;
                if probe == line.len() {
                    break;
                }
            }
            None => {
                hi = Some(probe);
                gallop = 1;
            }
        }
        let limit = hi.unwrap_or(line.len() + 1);
        if limit - lo.0 <= 1 {
            break;
        }
        // Interpolate from the fitting prefix: bytes per token so far, toward the budget — and
        // once the budget is reached, one token's bytes further (the first end that does not
        // fit is usually within a token of the last that does).
        let spare = max_tokens.saturating_sub(lo.1);
        let per_token = lo.0.checked_div(lo.1).unwrap_or(0).max(1);
        probe = if narrow && lo.0 > 0 && lo.1 > 0 {
            let estimate = lo.0 + lo.0.saturating_mul(spare) / lo.1;
            let estimate = if estimate > lo.0 {
                estimate
            } else {
                lo.0 + per_token
            };
            floor_boundary(line, estimate.min(limit.saturating_sub(1)))
        } else if hi.is_none() {
            ceil_boundary(line, probe.saturating_mul(2))
        } else {
            // Gallop from the fitting end — a distance that doubles while probes fit — but never
            // past the midpoint, so the bracket at least halves as in a bisection.
            let step = gallop.max(per_token);
            gallop = step.saturating_mul(2);
            floor_boundary(line, (lo.0 + step).min(lo.0 + (limit - lo.0) / 2))
        };
        // Alternate interpolation and bisection so a counter that is far from linear still
        // converges in a logarithmic number of probes.
        narrow = !narrow;
    }
    Ok(best)
}

/// The largest char boundary at or below `index` (clamped to the length).
pub(crate) fn floor_boundary(text: &str, index: usize) -> usize {
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
