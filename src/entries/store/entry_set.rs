//! One user's entries with what recall and search need precomputed: the parsed `updatedAt` and
//! the lowercased key and value text. In-process stores keep their entries in an [`EntrySet`] and
//! lend it to the core ([`super::EntryStore::with_entries`]), so a recall or search over
//! 10,000 entries parses and lowercases nothing and copies only what it returns.

use crate::entries::config::RecallOrder;
use crate::entries::entry::Entry;
use crate::entries::recall::{most_recent, parsed, select_keyed, Instant, Keyed};
use crate::entries::search::value_text;
use std::collections::HashMap;

#[derive(Debug, Clone)]
struct Indexed {
    entry: Entry,
    at: Option<Instant>,
    key_lower: String,
    value_lower: String,
    /// Which byte pairs occur in the lowercased key and value (a 128-bit Bloom filter): a term
    /// whose pairs are not all here cannot occur, so most entries are rejected with two ANDs.
    pairs: Pairs,
}

impl Indexed {
    fn new(entry: Entry) -> Self {
        let key_lower = entry.key.to_lowercase();
        let value_lower = value_text(&entry.value).to_lowercase();
        let mut pairs = Pairs::default();
        pairs.add(&key_lower);
        pairs.add(&value_lower);
        Indexed {
            at: parsed(&entry.updated_at),
            key_lower,
            value_lower,
            pairs,
            entry,
        }
    }
}

/// A 128-bit Bloom filter over the adjacent byte pairs of some texts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Pairs([u64; 2]);

impl Pairs {
    fn add(&mut self, text: &str) {
        for pair in text.as_bytes().windows(2) {
            if let [a, b] = pair {
                let h = (u32::from(*a) << 8 | u32::from(*b)).wrapping_mul(0x9E37_79B1) >> 25;
                let (word, bit) = ((h >> 6) as usize, h & 63);
                if let Some(w) = self.0.get_mut(word) {
                    *w |= 1u64 << bit;
                }
            }
        }
    }

    /// Whether every pair of `other` may be in `self`.
    fn covers(self, other: Pairs) -> bool {
        other.0[0] & !self.0[0] == 0 && other.0[1] & !self.0[1] == 0
    }
}

/// A set of entries indexed by id, with precomputed recall and search keys.
#[derive(Debug, Clone, Default)]
pub struct EntrySet {
    items: Vec<Indexed>,
    by_id: HashMap<String, usize>,
}

impl EntrySet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The entries, in no particular order.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.items.iter().map(|i| &i.entry)
    }

    /// One entry by id.
    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.by_id
            .get(id)
            .and_then(|&i| self.items.get(i))
            .map(|i| &i.entry)
    }

    /// Insert, or replace the entry with the same id.
    pub fn upsert(&mut self, entry: Entry) {
        let indexed = Indexed::new(entry);
        match self.by_id.get(&indexed.entry.id).copied() {
            Some(i) => {
                if let Some(slot) = self.items.get_mut(i) {
                    *slot = indexed;
                }
            }
            None => {
                self.by_id
                    .insert(indexed.entry.id.clone(), self.items.len());
                self.items.push(indexed);
            }
        }
    }

    /// Remove by id; the removed entry.
    pub fn remove(&mut self, id: &str) -> Option<Entry> {
        let i = self.by_id.remove(id)?;
        if i >= self.items.len() {
            return None;
        }
        let removed = self.items.swap_remove(i);
        if let Some(moved) = self.items.get(i) {
            self.by_id.insert(moved.entry.id.clone(), i);
        }
        Some(removed.entry)
    }

    /// Add one to an entry's access count (`updatedAt` untouched); `false` for an unknown id.
    pub fn increment_access(&mut self, id: &str) -> bool {
        match self.by_id.get(id).and_then(|&i| self.items.get_mut(i)) {
            Some(item) => {
                item.entry.access_count = item.entry.access_count.saturating_add(1);
                true
            }
            None => false,
        }
    }

    /// Recall: the entries passing `shown`, ordered and cut as
    /// [`crate::entries::recall::select_for_recall`] does.
    pub fn recall(
        &self,
        shown: impl Fn(&Entry) -> bool,
        order: RecallOrder,
        limit: usize,
    ) -> Vec<&Entry> {
        let keyed = self
            .items
            .iter()
            .filter(|i| shown(&i.entry))
            .map(|i| Keyed {
                entry: &i.entry,
                at: i.at,
            });
        match order {
            RecallOrder::MostRecent => most_recent(keyed, limit),
            RecallOrder::MostAccessed => select_keyed(keyed.collect(), order, limit),
        }
    }

    /// Search: the entries passing `shown` whose key or value contains every (lowercased) term,
    /// most recent first — the same result as [`crate::entries::search::matches_terms`] + recall order.
    pub fn search(
        &self,
        terms: &[String],
        shown: impl Fn(&Entry) -> bool,
        limit: usize,
    ) -> Vec<&Entry> {
        if terms.is_empty() {
            return Vec::new();
        }
        let wanted = terms.iter().fold(Pairs::default(), |mut acc, t| {
            acc.add(t);
            acc
        });
        let keyed = self
            .items
            .iter()
            .filter(|i| {
                i.pairs.covers(wanted)
                    && terms
                        .iter()
                        .all(|t| contains(&i.key_lower, t) || contains(&i.value_lower, t))
                    && shown(&i.entry)
            })
            .map(|i| Keyed {
                entry: &i.entry,
                at: i.at,
            })
            .collect();
        select_keyed(keyed, RecallOrder::MostRecent, limit)
    }
}

/// Substring test for the short texts of entries. `str::contains` builds a Two-Way searcher per
/// call, which costs more than the search itself on a 20-byte key; scanning for the first byte
/// and comparing is faster here and gives the same answer (UTF-8 is self-synchronising, so a
/// byte match of a whole UTF-8 needle is a character match).
fn contains(hay: &str, needle: &str) -> bool {
    let (hay, needle) = (hay.as_bytes(), needle.as_bytes());
    let Some((&first, rest)) = needle.split_first() else {
        return true;
    };
    let mut from = 0;
    while let Some(offset) = hay
        .get(from..)
        .and_then(|h| h.iter().position(|&b| b == first))
    {
        let at = from + offset + 1;
        if hay.get(at..at + rest.len()) == Some(rest) {
            return true;
        }
        from = at;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::contains;

    #[test]
    fn contains_agrees_with_str_contains() {
        let hays = [
            "",
            "a",
            "dog_name",
            "ddog",
            "straße",
            "東京の支店",
            "aaab",
            "abab",
            "xyz",
        ];
        let needles = [
            "", "a", "dog", "og_", "ß", "東京", "支店", "aab", "bab", "zz", "京の",
        ];
        for hay in hays {
            for needle in needles {
                assert_eq!(
                    contains(hay, needle),
                    hay.contains(needle),
                    "{hay:?} ⊇ {needle:?}"
                );
            }
        }
    }
}
