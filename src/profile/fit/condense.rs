//! Deterministic condensing (behaviour §1.4 step 1): no model, only removals of what is redundant
//! or oldest.
//!
//! Decisions where the behaviour reference is silent:
//! - **Duplicates** are merged completely (it loses nothing), then dated Recent Topics entries are
//!   dropped only while the file is over `floor(0.9 × maxTokens)`.
//! - The scope of "within a section" is a `##` section, and a `###` (or deeper) sub-heading starts
//!   a new scope: the same bullet under two sub-headings says two things.
//! - Only top-level bullets are compared. The first occurrence stays where it is; the nested lines
//!   of a removed duplicate are appended under the kept bullet, except lines equal (by the same
//!   normalisation) to a nested line it already has. A bullet with a code fence under it is never
//!   removed or merged into.
//! - Recent Topics entries are dropped oldest first by their `YYYY-MM-DD HH:MM` (equal times:
//!   the one higher in the file first), with their nested lines. **Undated entries are never
//!   dropped here** — the behaviour reference names dated entries only; the model step or hard
//!   truncation deal with them. A Recent Topics section left with nothing gets `_(empty)_`.
//! - Everything that is not removed is written back byte for byte, and the frontmatter (with a
//!   BOM before it, if any) is kept byte for byte. A body whose lines end with a lone `\r` is
//!   written back with `\n` line ends when something was removed from it.
//! - A text longer than its [`super::fit_window`] is over budget by far: it is not counted
//!   (`tokensBefore`/`tokensAfter` are `None`) and every dated Recent Topics entry goes.

use super::body::{duplicate_key, topic_timestamp, Body, Item};
use super::{condense_target, tokens_of_input, within_budget};
use crate::error::Result;
use crate::host::TokenCounter;
use crate::profile::frontmatter::split_frontmatter;
use crate::profile::markdown::normalize_line_ends;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// Index of Recent Topics in `SECTION_HEADINGS`.
const RECENT_TOPICS: usize = 4;

/// What [`condense_profile`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CondenseOutcome {
    /// The condensed text (the input itself when nothing changed).
    pub text: String,
    /// `true` when anything was removed.
    pub changed: bool,
    /// Duplicate bullets (and duplicate nested lines while merging) removed.
    pub removed_duplicates: usize,
    /// Dated Recent Topics entries dropped.
    pub removed_topics: usize,
    /// Tokens of the input; `None` when it is longer than its window (not counted).
    pub tokens_before: Option<usize>,
    /// Tokens of `text`, counted as a whole; `None` when it is longer than its window.
    pub tokens_after: Option<usize>,
}

/// Condense `text` deterministically when it is over `max_tokens` (see the module documentation
/// for exactly what is removed). Within budget → unchanged. The result may still be over budget:
/// this step only removes what is redundant or oldest.
pub fn condense_profile(
    text: &str,
    max_tokens: usize,
    counter: &impl TokenCounter,
) -> Result<CondenseOutcome> {
    if let Some(tokens) = within_budget(text, max_tokens, counter)? {
        return Ok(unchanged(text, Some(tokens)));
    }
    let mut outcome = condense_over_budget(text, max_tokens, counter)?;
    outcome.tokens_before = tokens_of_input(text, max_tokens, counter)?;
    if !outcome.changed {
        outcome.tokens_after = outcome.tokens_before;
    }
    Ok(outcome)
}

fn unchanged(text: &str, tokens: Option<usize>) -> CondenseOutcome {
    CondenseOutcome {
        text: text.to_string(),
        changed: false,
        removed_duplicates: 0,
        removed_topics: 0,
        tokens_before: tokens,
        tokens_after: tokens,
    }
}

/// [`condense_profile`] for a text known to be over budget; `tokens_before` is left `None` (the
/// caller reports it) and `tokens_after` is the count of a changed text within its window.
pub(crate) fn condense_over_budget(
    text: &str,
    max_tokens: usize,
    counter: &impl TokenCounter,
) -> Result<CondenseOutcome> {
    let target = condense_target(max_tokens);
    let split = split_frontmatter(text);
    let prefix = text
        .get(..text.len() - split.body.len())
        .unwrap_or_default();
    let body_text = normalize_line_ends_if_lone_cr(split.body);
    let mut body = Body::read(&body_text);
    let removed_duplicates = merge_duplicates(&mut body);
    let mut current = format!("{prefix}{}", body.render());
    let removed_topics = drop_oldest_topics(&mut body, prefix, &current, target, counter)?;
    if removed_topics > 0 {
        current = format!("{prefix}{}", body.render());
    }
    if removed_duplicates == 0 && removed_topics == 0 {
        return Ok(unchanged(text, None));
    }
    let tokens_after = tokens_of_input(&current, max_tokens, counter)?;
    Ok(CondenseOutcome {
        changed: current != text,
        text: current,
        removed_duplicates,
        removed_topics,
        tokens_before: None,
        tokens_after,
    })
}

/// The body with `\n` line ends when it has a lone `\r` (CRLF bodies are kept as they are).
fn normalize_line_ends_if_lone_cr(body: &str) -> std::borrow::Cow<'_, str> {
    let lone_cr = body
        .as_bytes()
        .windows(2)
        .any(|pair| pair.first() == Some(&b'\r') && pair.get(1) != Some(&b'\n'))
        || body.ends_with('\r');
    if lone_cr {
        std::borrow::Cow::Owned(normalize_line_ends(body).into_owned())
    } else {
        std::borrow::Cow::Borrowed(body)
    }
}

/// Remove every duplicate top-level bullet within its scope; returns how many lines went.
fn merge_duplicates(body: &mut Body<'_>) -> usize {
    let mut first: HashMap<(usize, String), usize> = HashMap::new();
    let mut removed = 0;
    for index in 0..body.items.len() {
        let Some((place, Item::Bullet(bullet))) = body.items.get(index) else {
            continue;
        };
        let key = duplicate_key(bullet.head);
        if key.is_empty() || bullet.opaque {
            continue;
        }
        let Some(&kept) = first.get(&(place.scope, key.clone())) else {
            first.insert((place.scope, key), index);
            continue;
        };
        let children = bullet.children.clone();
        if let Some((_, Item::Bullet(duplicate))) = body.items.get_mut(index) {
            duplicate.removed = true;
            removed += 1;
        }
        if let Some((_, Item::Bullet(target))) = body.items.get_mut(kept) {
            let mut seen: HashSet<String> = target.children.iter().map(|c| child_key(c)).collect();
            for child in children {
                if seen.insert(child_key(child)) {
                    target.children.push(child);
                } else {
                    removed += 1;
                }
            }
        }
    }
    removed
}

/// Nested lines are compared with their indentation, so a level-2 line never matches a level-3.
fn child_key(line: &str) -> String {
    let indent = line.len() - line.trim_start().len();
    format!("{indent}:{}", duplicate_key(line))
}

/// Drop dated Recent Topics entries, oldest first, until the text is within `target` or none is
/// left. Per-entry counts are subtracted from the whole count as an estimate; each time the
/// estimate reaches the target the real text is counted once, so the work stays linear. A text
/// that stays over the target even without every dated entry loses them all without a count of
/// its own beyond that bounded check.
fn drop_oldest_topics(
    body: &mut Body<'_>,
    prefix: &str,
    current: &str,
    target: usize,
    counter: &impl TokenCounter,
) -> Result<usize> {
    let mut dated: Vec<(&str, usize)> = Vec::new();
    for (index, (place, item)) in body.items.iter().enumerate() {
        if let (Some(RECENT_TOPICS), Item::Bullet(bullet)) = (place.section, item) {
            if let Some(stamp) = topic_timestamp(bullet.head).filter(|_| !bullet.removed) {
                dated.push((stamp, index));
            }
        }
    }
    if dated.is_empty() {
        return Ok(0);
    }
    crate::order::sort_by(&mut dated, |a, b| a.cmp(b));
    let order: Vec<usize> = dated.into_iter().map(|(_, index)| index).collect();
    let mut costs = Vec::with_capacity(order.len());
    for &index in &order {
        let mut cost = 0;
        if let Some((_, Item::Bullet(bullet))) = body.items.get(index) {
            cost += counter.count(&format!("{}\n", bullet.head))?;
            for child in &bullet.children {
                cost += counter.count(&format!("{child}\n"))?;
            }
        }
        costs.push(cost);
    }
    let all: usize = costs.iter().sum();
    let Some(tokens) = counter.count_within(current, target.saturating_add(all))? else {
        for &index in &order {
            if let Some((_, Item::Bullet(bullet))) = body.items.get_mut(index) {
                bullet.removed = true;
            }
        }
        body.mark_empty_section(RECENT_TOPICS);
        return Ok(order.len());
    };
    if tokens <= target {
        return Ok(0);
    }
    let mut estimate = tokens;
    let mut removed = 0;
    for (index, cost) in order.into_iter().zip(costs) {
        let Some((_, Item::Bullet(bullet))) = body.items.get_mut(index) else {
            continue;
        };
        bullet.removed = true;
        removed += 1;
        estimate = estimate.saturating_sub(cost);
        if estimate <= target {
            let actual = counter.count(&format!("{prefix}{}", body.render()))?;
            if actual <= target {
                break;
            }
            estimate = actual;
        }
    }
    if removed > 0 {
        body.mark_empty_section(RECENT_TOPICS);
    }
    Ok(removed)
}
