//! `recallMemories` ordering and the one-line entry format (SPEC §2.5).

use super::config::RecallOrder;
use super::model::Entry;
use super::search::value_text;
use chrono::{DateTime, FixedOffset};
use std::cmp::Ordering;

fn parsed(ts: &str) -> Option<DateTime<FixedOffset>> {
    DateTime::parse_from_rfc3339(ts).ok()
}

/// Most recent first: `updatedAt` descending (compared as instants, so `Z` and `+00:00` agree),
/// ties by `id` ascending (deterministic, and stable across stores). A timestamp that does not
/// parse as RFC 3339 sorts after every valid one.
pub fn recency_cmp(a: &Entry, b: &Entry) -> Ordering {
    match (parsed(&a.updated_at), parsed(&b.updated_at)) {
        (Some(x), Some(y)) => y.cmp(&x),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => b.updated_at.cmp(&a.updated_at),
    }
    .then_with(|| a.id.cmp(&b.id))
}

/// Least recently updated first (eviction order): the exact reverse of [`recency_cmp`] on the
/// timestamp, ties still by `id` ascending.
pub fn staleness_cmp(a: &Entry, b: &Entry) -> Ordering {
    match (parsed(&a.updated_at), parsed(&b.updated_at)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => Ordering::Greater,
        (None, Some(_)) => Ordering::Less,
        (None, None) => a.updated_at.cmp(&b.updated_at),
    }
    .then_with(|| a.id.cmp(&b.id))
}

/// Slots of a `most_accessed` recall filled by access count: `ceil(limit × 4 / 5)`.
/// Rounding up means a limit of 1 or 2 still returns the most accessed entries first
/// (1 → 1, 2 → 2, 3 → 3, 5 → 4, 10 → 8, 50 → 40).
pub fn accessed_slots(limit: usize) -> usize {
    limit.saturating_mul(4).div_ceil(5)
}

/// Order and cut visible entries for recall.
///
/// `most_recent`: [`recency_cmp`], first `limit`.
/// `most_accessed`: the first [`accessed_slots`]`(limit)` entries by `accessCount` descending
/// (ties by recency, then id), followed by the remaining slots filled by recency from the entries
/// not already chosen; no entry appears twice.
pub fn order_for_recall(mut entries: Vec<Entry>, order: RecallOrder, limit: usize) -> Vec<Entry> {
    match order {
        RecallOrder::MostRecent => {
            entries.sort_by(recency_cmp);
            entries.truncate(limit);
            entries
        }
        RecallOrder::MostAccessed => {
            entries.sort_by(|a, b| {
                b.access_count
                    .cmp(&a.access_count)
                    .then_with(|| recency_cmp(a, b))
            });
            let by_access = accessed_slots(limit).min(entries.len());
            let mut rest = entries.split_off(by_access);
            rest.sort_by(recency_cmp);
            let remaining = limit.saturating_sub(entries.len());
            entries.extend(rest.into_iter().take(remaining));
            entries
        }
    }
}

/// One recall/search line: `• key = value [category, visibility]` (strings raw, other values
/// compact JSON).
pub fn format_entry(entry: &Entry) -> String {
    format!(
        "• {} = {} [{}, {}]",
        entry.key,
        value_text(&entry.value),
        entry.category,
        entry.visibility
    )
}
