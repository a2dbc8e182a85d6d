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

/// An entry with its `updatedAt` parsed once, so sorting 10,000 entries does not parse
/// timestamps in every comparison.
struct Keyed<'a> {
    entry: &'a Entry,
    at: Option<DateTime<FixedOffset>>,
}

impl<'a> Keyed<'a> {
    fn new(entry: &'a Entry) -> Self {
        Keyed {
            entry,
            at: parsed(&entry.updated_at),
        }
    }
}

/// [`recency_cmp`] on pre-parsed keys.
fn keyed_recency(a: &Keyed, b: &Keyed) -> Ordering {
    match (&a.at, &b.at) {
        (Some(x), Some(y)) => y.cmp(x),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => b.entry.updated_at.cmp(&a.entry.updated_at),
    }
    .then_with(|| a.entry.id.cmp(&b.entry.id))
}

fn keyed_access(a: &Keyed, b: &Keyed) -> Ordering {
    b.entry
        .access_count
        .cmp(&a.entry.access_count)
        .then_with(|| keyed_recency(a, b))
}

/// The first `k` of `items` under `cmp`, in order: a partial selection (linear) and a sort of
/// the `k` chosen, instead of sorting everything.
fn take_first<'a>(
    mut items: Vec<Keyed<'a>>,
    k: usize,
    cmp: fn(&Keyed, &Keyed) -> Ordering,
) -> (Vec<Keyed<'a>>, Vec<Keyed<'a>>) {
    if k < items.len() {
        items.select_nth_unstable_by(k, cmp);
    }
    let rest = items.split_off(k.min(items.len()));
    items.sort_by(cmp);
    (items, rest)
}

/// Order and cut visible entries for recall, by reference (only the chosen entries are ever
/// copied by callers).
///
/// `most_recent`: [`recency_cmp`], first `limit`.
/// `most_accessed`: the first [`accessed_slots`]`(limit)` entries by `accessCount` descending
/// (ties by recency, then id), followed by the remaining slots filled by recency from the entries
/// not already chosen; no entry appears twice.
pub fn select_for_recall<'a>(
    entries: impl IntoIterator<Item = &'a Entry>,
    order: RecallOrder,
    limit: usize,
) -> Vec<&'a Entry> {
    let keyed: Vec<Keyed<'a>> = entries.into_iter().map(Keyed::new).collect();
    let chosen = match order {
        RecallOrder::MostRecent => take_first(keyed, limit, keyed_recency).0,
        RecallOrder::MostAccessed => {
            let (mut chosen, rest) = take_first(keyed, accessed_slots(limit), keyed_access);
            let remaining = limit.saturating_sub(chosen.len());
            chosen.extend(take_first(rest, remaining, keyed_recency).0);
            chosen
        }
    };
    chosen.into_iter().map(|k| k.entry).collect()
}

/// [`select_for_recall`] over owned entries.
pub fn order_for_recall(entries: Vec<Entry>, order: RecallOrder, limit: usize) -> Vec<Entry> {
    select_for_recall(&entries, order, limit)
        .into_iter()
        .cloned()
        .collect()
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
