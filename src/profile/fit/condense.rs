//! Deterministic condensing (SPEC §1.4 step 1): no model, only removals of what is redundant or
//! oldest.
//!
//! Decisions where SPEC is silent:
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
//!   dropped here** — SPEC names dated entries only; the model step or hard truncation deal with
//!   them. A Recent Topics section left with nothing gets `_(empty)_`.
//! - Everything that is not removed is written back byte for byte, and the frontmatter (with a
//!   BOM before it, if any) is kept byte for byte.

use super::body::{duplicate_key, topic_timestamp, Body, Item};
use super::condense_target;
use crate::error::Result;
use crate::host::TokenCounter;
use crate::profile::frontmatter::split_frontmatter;
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
    /// Tokens of the input.
    pub tokens_before: usize,
    /// Tokens of `text`, counted as a whole.
    pub tokens_after: usize,
}

/// Condense `text` deterministically when it is over `max_tokens` (see the module documentation
/// for exactly what is removed). Within budget → unchanged. The result may still be over budget:
/// this step only removes what is redundant or oldest.
pub fn condense_profile(
    text: &str,
    max_tokens: usize,
    counter: &impl TokenCounter,
) -> Result<CondenseOutcome> {
    let tokens_before = counter.count(text)?;
    let unchanged = CondenseOutcome {
        text: text.to_string(),
        changed: false,
        removed_duplicates: 0,
        removed_topics: 0,
        tokens_before,
        tokens_after: tokens_before,
    };
    if tokens_before <= max_tokens {
        return Ok(unchanged);
    }
    let target = condense_target(max_tokens);
    let split = split_frontmatter(text);
    let prefix = text
        .get(..text.len() - split.body.len())
        .unwrap_or_default();
    let mut body = Body::read(split.body);
    let removed_duplicates = merge_duplicates(&mut body);
    let mut current = format!("{prefix}{}", body.render());
    let mut tokens = if removed_duplicates > 0 {
        counter.count(&current)?
    } else {
        tokens_before
    };
    let mut removed_topics = 0;
    if tokens > target {
        removed_topics = drop_oldest_topics(&mut body, prefix, tokens, target, counter)?;
        if removed_topics > 0 {
            current = format!("{prefix}{}", body.render());
            tokens = counter.count(&current)?;
        }
    }
    if removed_duplicates == 0 && removed_topics == 0 {
        return Ok(unchanged);
    }
    Ok(CondenseOutcome {
        text: current,
        changed: true,
        removed_duplicates,
        removed_topics,
        tokens_before,
        tokens_after: tokens,
    })
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
/// estimate reaches the target the real text is counted once, so the work stays linear.
fn drop_oldest_topics(
    body: &mut Body<'_>,
    prefix: &str,
    tokens: usize,
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
    dated.sort();
    let order: Vec<usize> = dated.into_iter().map(|(_, index)| index).collect();
    let mut estimate = tokens;
    let mut removed = 0;
    for index in order {
        let Some((_, Item::Bullet(bullet))) = body.items.get_mut(index) else {
            continue;
        };
        let mut cost = counter.count(&format!("{}\n", bullet.head))?;
        for child in &bullet.children {
            cost += counter.count(&format!("{child}\n"))?;
        }
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
