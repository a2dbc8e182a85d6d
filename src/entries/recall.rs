//! `recallMemories` ordering and the one-line entry format (behaviour §2.5).

use super::entry::Entry;
use super::search::value_text;
use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// Which visible entries `recallMemories` returns first (behaviour §2.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RecallOrder {
    /// `updatedAt` descending.
    #[default]
    MostRecent,
    /// Four fifths of the slots by `accessCount`, the rest by recency.
    MostAccessed,
}

/// An instant as (seconds since the epoch, nanoseconds): what recency compares.
pub(crate) type Instant = (i64, u32);

/// `updatedAt` as an instant (`None` when it is not RFC 3339).
pub(crate) fn parsed(ts: &str) -> Option<Instant> {
    fast_instant(ts).or_else(|| {
        DateTime::<FixedOffset>::parse_from_rfc3339(ts)
            .ok()
            .map(|t| (t.timestamp(), t.timestamp_subsec_nanos()))
    })
}

/// The common shapes `YYYY-MM-DDTHH:MM:SS[.fff…](Z|±HH:MM)` without chrono: recall orders
/// thousands of entries and parsing dominated it. Anything unusual (leap seconds, lowercase
/// separators, odd fractions) returns `None` and goes through chrono, so results are identical.
fn fast_instant(ts: &str) -> Option<Instant> {
    let b = ts.as_bytes();
    let digits = |from: usize, len: usize| -> Option<i64> {
        let part = b.get(from..from + len)?;
        part.iter().try_fold(0i64, |acc, &c| {
            c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0'))
        })
    };
    let sep = |at: usize, c: u8| b.get(at) == Some(&c);
    if !(sep(4, b'-') && sep(7, b'-') && sep(10, b'T') && sep(13, b':') && sep(16, b':')) {
        return None;
    }
    let (year, month, day) = (digits(0, 4)?, digits(5, 2)?, digits(8, 2)?);
    let (hour, minute, second) = (digits(11, 2)?, digits(14, 2)?, digits(17, 2)?);
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let month_days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    let max_day = *month_days.get(usize::try_from(month - 1).ok()?)?;
    if day < 1 || day > max_day || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let mut at = 19;
    let mut nanos: u32 = 0;
    if sep(at, b'.') {
        at += 1;
        let start = at;
        while b.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        let frac = b.get(start..at)?;
        if frac.is_empty() || frac.len() > 9 {
            return None;
        }
        let mut n: u32 = 0;
        for i in 0..9 {
            n = n * 10 + frac.get(i).map_or(0, |c| u32::from(c - b'0'));
        }
        nanos = n;
    }
    let offset = match b.get(at..)? {
        [b'Z'] => 0,
        [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
            let hh = digits(at + 1, 2)?;
            let mm = digits(at + 4, 2)?;
            if hh > 23 || mm > 59 {
                return None;
            }
            let off = hh * 3600 + mm * 60;
            if *sign == b'-' {
                -off
            } else {
                off
            }
        }
        _ => return None,
    };
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some((
        days * 86_400 + hour * 3600 + minute * 60 + second - offset,
        nanos,
    ))
}

/// What recency compares, borrowed from one entry: its `updatedAt` as an instant (`None` when it
/// is not RFC 3339), the raw `updatedAt` text and the id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp<'a> {
    pub(crate) at: Option<Instant>,
    pub(crate) raw: &'a str,
    pub(crate) id: &'a str,
}

impl<'a> Stamp<'a> {
    /// The stamp of an entry whose `updatedAt` is already parsed.
    #[inline]
    pub(crate) fn with(at: Option<Instant>, entry: &'a Entry) -> Self {
        Stamp {
            at,
            raw: &entry.updated_at,
            id: &entry.id,
        }
    }

    /// The stamp of an entry (parses `updatedAt`).
    pub(crate) fn of(entry: &'a Entry) -> Self {
        Stamp::with(parsed(&entry.updated_at), entry)
    }

    /// The timestamp rule: `Less` when `self` was updated later than `other`. Instants compare
    /// (so `Z` and `+00:00` spellings of one instant are equal); a timestamp that does not parse
    /// sorts after every valid one; two that do not parse compare by raw text, descending.
    #[inline]
    fn later_than(&self, other: &Stamp) -> Ordering {
        match (self.at, other.at) {
            (Some(x), Some(y)) => y.cmp(&x),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => other.raw.cmp(self.raw),
        }
    }
}

/// The recency order: most recent first, ties by `id` ascending (deterministic, and stable across
/// stores). Every other order of this module derives from it.
#[inline]
pub(crate) fn newest_first(a: &Stamp, b: &Stamp) -> Ordering {
    a.later_than(b).then_with(|| a.id.cmp(b.id))
}

/// Eviction order: the reverse of [`newest_first`] on the timestamp, ties still by `id`
/// ascending.
#[inline]
pub(crate) fn oldest_first(a: &Stamp, b: &Stamp) -> Ordering {
    b.later_than(a).then_with(|| a.id.cmp(b.id))
}

/// Most recent first ([`newest_first`]): `updatedAt` descending (compared as instants, so `Z` and
/// `+00:00` agree), ties by `id` ascending. A timestamp that does not parse as RFC 3339 sorts
/// after every valid one.
pub fn recency_cmp(a: &Entry, b: &Entry) -> Ordering {
    newest_first(&Stamp::of(a), &Stamp::of(b))
}

/// Least recently updated first (eviction order, [`oldest_first`]): the exact reverse of
/// [`recency_cmp`] on the timestamp, ties still by `id` ascending.
pub fn staleness_cmp(a: &Entry, b: &Entry) -> Ordering {
    oldest_first(&Stamp::of(a), &Stamp::of(b))
}

/// Sort entries least recently updated first ([`staleness_cmp`]). One function for eviction and
/// Dream's group order, so the sort is compiled once into the wasm.
pub fn sort_stalest_first(entries: &mut [&Entry]) {
    crate::order::sort_by(entries, |a, b| staleness_cmp(a, b));
}

/// Slots of a `most_accessed` recall filled by access count: `ceil(limit × 4 / 5)`.
/// Rounding up means a limit of 1 or 2 still returns the most accessed entries first
/// (1 → 1, 2 → 2, 3 → 3, 5 → 4, 10 → 8, 50 → 40).
pub fn accessed_slots(limit: usize) -> usize {
    limit.saturating_mul(4).div_ceil(5)
}

/// An entry with its `updatedAt` parsed once, so sorting 10,000 entries does not parse
/// timestamps in every comparison.
pub(crate) struct Keyed<'a> {
    pub(crate) entry: &'a Entry,
    pub(crate) at: Option<Instant>,
}

impl<'a> Keyed<'a> {
    fn new(entry: &'a Entry) -> Self {
        Keyed {
            entry,
            at: parsed(&entry.updated_at),
        }
    }

    #[inline]
    fn stamp(&self) -> Stamp<'a> {
        Stamp::with(self.at, self.entry)
    }
}

/// [`newest_first`] on pre-parsed keys.
#[inline]
fn keyed_recency(a: &Keyed, b: &Keyed) -> Ordering {
    newest_first(&a.stamp(), &b.stamp())
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
    crate::order::sort_by(&mut items, cmp);
    (items, rest)
}

/// Recency order as a total order, for the bounded heap of [`most_recent`] ("greater" = older).
struct ByRecency<'a>(Keyed<'a>);

impl PartialEq for ByRecency<'_> {
    fn eq(&self, other: &Self) -> bool {
        keyed_recency(&self.0, &other.0) == Ordering::Equal
    }
}
impl Eq for ByRecency<'_> {}
impl PartialOrd for ByRecency<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for ByRecency<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        keyed_recency(&self.0, &other.0)
    }
}

/// The `k` most recent entries, most recent first, through a bounded heap: most entries cost
/// one comparison against the oldest kept, and nothing but `k` slots is allocated.
pub(crate) fn most_recent<'a>(items: impl Iterator<Item = Keyed<'a>>, k: usize) -> Vec<&'a Entry> {
    let mut heap = std::collections::BinaryHeap::with_capacity(k.min(1024) + 1);
    if k == 0 {
        return Vec::new();
    }
    for item in items {
        if heap.len() < k {
            heap.push(ByRecency(item));
        } else if let Some(mut oldest) = heap.peek_mut() {
            if keyed_recency(&item, &oldest.0) == Ordering::Less {
                *oldest = ByRecency(item);
            }
        }
    }
    heap.into_sorted_vec()
        .into_iter()
        .map(|k| k.0.entry)
        .collect()
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
    select_keyed(entries.into_iter().map(Keyed::new).collect(), order, limit)
}

/// [`select_for_recall`] over entries whose instants are already known (an
/// [`super::EntrySet`] keeps them).
pub(crate) fn select_keyed<'a>(
    keyed: Vec<Keyed<'a>>,
    order: RecallOrder,
    limit: usize,
) -> Vec<&'a Entry> {
    let chosen = match order {
        RecallOrder::MostRecent => return most_recent(keyed.into_iter(), limit),
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

/// Whether timestamp `a` is at or after `b` (both RFC 3339, compared as instants); a timestamp
/// that does not parse is never at or after anything.
pub fn instant_at_or_after(a: &str, b: &str) -> bool {
    match (parsed(a), parsed(b)) {
        (Some(a), Some(b)) => a >= b,
        _ => false,
    }
}

/// [`format_entry`] with ` (since YYYY-MM-DD)` appended when `dates` is on
/// (`userMemoryConfig.answers.dates`, behaviour §8.6): the UTC date of the entry's `updatedAt`. A
/// timestamp that does not parse adds nothing (the line stays behaviour §2.5's).
pub fn format_entry_with(entry: &Entry, dates: bool) -> String {
    let line = format_entry(entry);
    match dates.then(|| since_date(&entry.updated_at)).flatten() {
        Some(date) => format!("{line} (since {date})"),
        None => line,
    }
}

/// The UTC calendar date (`YYYY-MM-DD`) of an RFC 3339 timestamp.
pub fn since_date(ts: &str) -> Option<String> {
    let (secs, _) = parsed(ts)?;
    let at = chrono::DateTime::<chrono::Utc>::from_timestamp(secs, 0)?;
    // The RFC 3339 writer the crate already uses (not `format("%Y-%m-%d")`: chrono's strftime
    // would be 10 KB more wasm), cut after the date. Years past 9999 are not RFC 3339 dates.
    let text = at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    text.get(..10)
        .filter(|d| d.as_bytes().get(4) == Some(&b'-'))
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chrono_instant(ts: &str) -> Option<Instant> {
        DateTime::<FixedOffset>::parse_from_rfc3339(ts)
            .ok()
            .map(|t| (t.timestamp(), t.timestamp_subsec_nanos()))
    }

    #[test]
    fn since_date_is_the_utc_calendar_date() {
        assert_eq!(
            since_date("2026-03-01T23:30:00-02:00").as_deref(),
            Some("2026-03-02")
        );
        assert_eq!(
            since_date("2026-03-01T00:00:00.000Z").as_deref(),
            Some("2026-03-01")
        );
        assert_eq!(
            since_date("0001-01-01T00:00:00Z").as_deref(),
            Some("0001-01-01")
        );
        assert_eq!(
            since_date("9999-12-31T23:59:59+00:00").as_deref(),
            Some("9999-12-31")
        );
        assert_eq!(since_date("not a time"), None);
    }

    #[test]
    fn fast_instant_agrees_with_chrono() {
        let mut checked = 0;
        for year in [1970, 1999, 2000, 2024, 2026, 2100, 2400, 9999] {
            for month in [0, 1, 2, 3, 12, 13] {
                for day in [0, 1, 28, 29, 30, 31, 32] {
                    for time in [
                        "00:00:00", "23:59:59", "12:34:56", "24:00:00", "23:60:00", "23:59:60",
                    ] {
                        for frac in ["", ".5", ".123", ".123456789", ".1234567891", "."] {
                            for zone in ["Z", "+00:00", "-05:30", "+14:00", "z", "+0000", "+24:00"]
                            {
                                let ts =
                                    format!("{year:04}-{month:02}-{day:02}T{time}{frac}{zone}");
                                if let Some(fast) = fast_instant(&ts) {
                                    assert_eq!(Some(fast), chrono_instant(&ts), "{ts}");
                                }
                                assert_eq!(parsed(&ts), chrono_instant(&ts), "{ts}");
                                checked += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 10_000);
        for odd in [
            "",
            "2026",
            "2026-01-01",
            "2026-01-01 10:00:00Z",
            "２０２６-01-01T00:00:00Z",
        ] {
            assert_eq!(parsed(odd), chrono_instant(odd), "{odd}");
        }
    }
}
