//! One user's entries with what recall and search need precomputed: the parsed `updatedAt` and
//! visibility, the `_gdpr_` flag, the folded key and value text, and a recency index. In-process
//! stores keep their entries in an [`EntrySet`] and lend it to the core
//! ([`super::EntryStore::with_entries`]), so a recall or search over 10,000 entries parses and
//! lowercases nothing and copies only what it returns.
//!
//! The rules are not repeated here: visibility is [`Viewer`]'s, matching is
//! [`matches_folded`], the order is [`newest_first`]. The set only keeps their inputs ready and
//! walks its entries newest first, so a `most_recent` recall or a search with many hits stops
//! after `limit` shown entries instead of ordering them all.

use crate::entries::config::{RecallOrder, Visibility};
use crate::entries::entry::Entry;
use crate::entries::recall::{newest_first, parsed, select_keyed, Instant, Keyed, Stamp};
use crate::entries::search::analyzer::{Analyzer, Language};
use crate::entries::search::bm25::AnalyzedDoc;
use crate::entries::search::vectors::norm2;
use crate::entries::search::{fold, id_prefix, matches_folded, value_text};
use crate::entries::store::VectorWrite;
use crate::entries::visibility::{is_reserved_key, Viewer};
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};

#[derive(Debug, Clone)]
struct Indexed {
    entry: Entry,
    at: Option<Instant>,
    visibility: Option<Visibility>,
    reserved: bool,
    key_folded: String,
    value_folded: String,
    /// The entry's vector, the model that made it (SPEC §8.2) and its squared norm (computed
    /// once, so a hybrid search reads each vector for one dot product), cleared when the key or
    /// the value changes.
    /// (The model is an index into [`EntrySet::models`]: a search compares one integer per
    /// entry, not the model id's text.)
    vector: Option<(u32, Vec<i8>, i64)>,
    /// The entry analysed for BM25 in the first language a ranked search asked for (made on
    /// first use; replaced with the entry, so never stale).
    analyzed: std::cell::OnceCell<(Language, AnalyzedDoc)>,
    /// The id's first 16 bytes as an integer, what a ranking's ties compare first.
    id_prefix: u128,
}

impl Indexed {
    fn new(entry: Entry) -> Self {
        Indexed {
            id_prefix: id_prefix(&entry.id),
            at: parsed(&entry.updated_at),
            visibility: Visibility::parse(&entry.visibility),
            reserved: is_reserved_key(&entry.key),
            key_folded: fold(&entry.key).into_owned(),
            value_folded: fold(&value_text(&entry.value)).into_owned(),
            entry,
            vector: None,
            analyzed: std::cell::OnceCell::new(),
        }
    }

    fn shown_to(&self, viewer: &Viewer) -> bool {
        viewer.shows_parsed(&self.entry, self.visibility, self.reserved)
    }

    fn matches(&self, terms: &[String]) -> bool {
        matches_folded(terms, &self.key_folded, &self.value_folded)
    }

    fn pairs(&self) -> Pairs {
        let mut pairs = Pairs::default();
        pairs.add(&self.key_folded);
        pairs.add(&self.value_folded);
        pairs
    }

    fn recency_key(&self) -> RecencyKey {
        RecencyKey {
            at: self.at,
            raw: self.entry.updated_at.clone(),
            id: self.entry.id.clone(),
        }
    }
}

/// A position in the recency index: what [`newest_first`] compares, owned.
#[derive(Debug, Clone)]
struct RecencyKey {
    at: Option<Instant>,
    raw: String,
    id: String,
}

impl RecencyKey {
    fn stamp(&self) -> Stamp<'_> {
        Stamp {
            at: self.at,
            raw: &self.raw,
            id: &self.id,
        }
    }
}

impl PartialEq for RecencyKey {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for RecencyKey {}
impl PartialOrd for RecencyKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for RecencyKey {
    fn cmp(&self, other: &Self) -> Ordering {
        newest_first(&self.stamp(), &other.stamp())
    }
}

/// A 128-bit Bloom filter over the adjacent byte pairs of some texts: a term whose pairs are not
/// all in an entry's filter cannot occur in it.
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
        let [a, b] = self.0;
        let [x, y] = other.0;
        (x & !a) | (y & !b) == 0
    }
}

/// One entry as a ranked search reads it ([`EntrySet::ranked`]): the entry, its vector of the
/// model with the vector's squared norm, and its BM25 analysis when cached in that language.
pub type RankedItem<'a> = (
    &'a Entry,
    Option<(&'a [i8], i64)>,
    Option<&'a AnalyzedDoc>,
    u128,
);

/// A set of entries indexed by id and by recency, with precomputed recall and search keys.
#[derive(Debug, Clone, Default)]
pub struct EntrySet {
    items: Vec<Indexed>,
    /// The Bloom pairs of `items[i]`, kept apart so a search rejects most entries by scanning
    /// 16 bytes each.
    pairs: Vec<Pairs>,
    by_id: HashMap<String, usize>,
    /// Each key to the indexes in `items` of the entries with it (identity lookups and the
    /// "unchanged" test look entries up by key on every write).
    by_key: HashMap<String, Vec<usize>>,
    /// How many entries have a `_gdpr_` key (the count toward `maxEntriesPerUser` leaves them
    /// out).
    reserved: usize,
    /// Every entry, newest first ([`newest_first`]), to its index in `items`.
    recency: BTreeMap<RecencyKey, usize>,
    /// The model ids of the entries' vectors (few: one per embedder the set has seen).
    models: Vec<String>,
}

/// Above this many Bloom candidates per shown slot, a search walks the recency index (many hits:
/// it stops after `limit`) instead of testing every candidate and keeping the newest.
const WALK_ABOVE_CANDIDATES_PER_SLOT: usize = 4;

impl EntrySet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    fn model_index(&self, model: &str) -> Option<u32> {
        let at = self.models.iter().position(|m| m == model)?;
        u32::try_from(at).ok()
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

    /// Number of entries that count toward `maxEntriesPerUser` (all but `_gdpr_` keys).
    pub fn counted(&self) -> usize {
        self.items.len() - self.reserved
    }

    /// The entries with exactly this key, in no particular order.
    pub fn with_key<'a>(&'a self, key: &str) -> impl Iterator<Item = &'a Entry> + 'a {
        self.by_key
            .get(key)
            .into_iter()
            .flatten()
            .filter_map(|&i| self.items.get(i))
            .map(|i| &i.entry)
    }

    fn index_key(&mut self, key: &str, reserved: bool, index: usize) {
        self.by_key.entry(key.to_string()).or_default().push(index);
        self.reserved += usize::from(reserved);
    }

    fn unindex_key(&mut self, key: &str, reserved: bool, index: usize) {
        if let Some(indexes) = self.by_key.get_mut(key) {
            indexes.retain(|&i| i != index);
            if indexes.is_empty() {
                self.by_key.remove(key);
            }
        }
        self.reserved = self.reserved.saturating_sub(usize::from(reserved));
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
        let mut indexed = Indexed::new(entry);
        let key = indexed.recency_key();
        let pairs = indexed.pairs();
        let (key_text, reserved) = (indexed.entry.key.clone(), indexed.reserved);
        let index = match self.by_id.get(&indexed.entry.id).copied() {
            Some(i) => match (self.items.get_mut(i), self.pairs.get_mut(i)) {
                (Some(item), Some(item_pairs)) => {
                    self.recency.remove(&item.recency_key());
                    if item.entry.key == indexed.entry.key
                        && item.entry.value == indexed.entry.value
                    {
                        indexed.vector = item.vector.take();
                    }
                    let old = std::mem::replace(item, indexed);
                    *item_pairs = pairs;
                    if old.entry.key != key_text || old.reserved != reserved {
                        self.unindex_key(&old.entry.key, old.reserved, i);
                        self.index_key(&key_text, reserved, i);
                    }
                    i
                }
                _ => return,
            },
            None => {
                let i = self.items.len();
                self.by_id.insert(indexed.entry.id.clone(), i);
                self.items.push(indexed);
                self.pairs.push(pairs);
                self.index_key(&key_text, reserved, i);
                i
            }
        };
        self.recency.insert(key, index);
    }

    /// Remove by id; the removed entry.
    pub fn remove(&mut self, id: &str) -> Option<Entry> {
        let i = self.by_id.remove(id)?;
        if i >= self.items.len() {
            return None;
        }
        let last = self.items.len() - 1;
        let removed = self.items.swap_remove(i);
        self.pairs.swap_remove(i);
        self.recency.remove(&removed.recency_key());
        self.unindex_key(&removed.entry.key, removed.reserved, i);
        if let Some(moved) = self.items.get(i) {
            self.by_id.insert(moved.entry.id.clone(), i);
            if let Some(index) = self.recency.get_mut(&moved.recency_key()) {
                *index = i;
            }
            if let Some(indexes) = self.by_key.get_mut(&moved.entry.key) {
                for index in indexes.iter_mut().filter(|index| **index == last) {
                    *index = i;
                }
            }
        }
        Some(removed.entry)
    }

    /// Add one to an entry's access count (`updatedAt` and so the recency index untouched);
    /// `false` for an unknown id.
    pub fn increment_access(&mut self, id: &str) -> bool {
        match self.by_id.get(id).and_then(|&i| self.items.get_mut(i)) {
            Some(item) => {
                item.entry.access_count = item.entry.access_count.saturating_add(1);
                true
            }
            None => false,
        }
    }

    /// Store a vector for entry `write.id` while it still has `write.key` and `write.value`;
    /// `false` when it is gone or changed.
    pub fn put_vector(&mut self, write: &VectorWrite<'_>) -> bool {
        let Some(&at) = self.by_id.get(write.id) else {
            return false;
        };
        match self.items.get(at) {
            Some(item) if item.entry.key == write.key && item.entry.value == *write.value => {}
            _ => return false,
        }
        let model = match self.models.iter().position(|m| m == write.model) {
            Some(at) => at,
            None => {
                self.models.push(write.model.to_string());
                self.models.len() - 1
            }
        };
        let Some(item) = self.items.get_mut(at) else {
            return false;
        };
        item.vector = Some((
            u32::try_from(model).unwrap_or(u32::MAX),
            write.vector.to_vec(),
            norm2(write.vector),
        ));
        true
    }

    /// The vector of entry `id` when `model` made it.
    pub fn vector(&self, id: &str, model: &str) -> Option<&[i8]> {
        let item = self.by_id.get(id).and_then(|&i| self.items.get(i))?;
        let model = self.model_index(model)?;
        match &item.vector {
            Some((m, v, _)) if *m == model => Some(v),
            _ => None,
        }
    }

    /// Every entry with its vector of `model` (`None`: none, or another model's), in no
    /// particular order.
    pub fn with_vectors<'a>(
        &'a self,
        model: &'a str,
    ) -> impl Iterator<Item = (&'a Entry, Option<&'a [i8]>)> + 'a {
        let model = self.model_index(model);
        self.items.iter().map(move |item| {
            let vector = match (&item.vector, model) {
                (Some((m, v, _)), Some(model)) if *m == model => Some(v.as_slice()),
                _ => None,
            };
            (&item.entry, vector)
        })
    }

    /// Every entry with its vector of `model` and that vector's squared norm (as
    /// [`EntrySet::with_vectors`]) and its analysed form in `analyzer`'s language, cached in the
    /// set for the next search (another language than the cached one is analysed afresh:
    /// `None`).
    pub fn ranked<'a>(
        &'a self,
        model: Option<&'a str>,
        analyzer: &'a Analyzer,
    ) -> impl Iterator<Item = RankedItem<'a>> + 'a {
        let model = model.and_then(|m| self.model_index(m));
        self.items.iter().map(move |item| {
            let vector = match (&item.vector, model) {
                (Some((m, v, n)), Some(model)) if *m == model => Some((v.as_slice(), *n)),
                _ => None,
            };
            let (language, doc) = item.analyzed.get_or_init(|| {
                let doc =
                    AnalyzedDoc::new(analyzer, &item.entry.key, &value_text(&item.entry.value));
                (analyzer.language(), doc)
            });
            let doc = (*language == analyzer.language()).then_some(doc);
            (&item.entry, vector, doc, item.id_prefix)
        })
    }

    /// The entries `viewer` is shown, in no particular order.
    pub fn shown<'a>(&'a self, viewer: &'a Viewer<'a>) -> impl Iterator<Item = &'a Entry> + 'a {
        self.items
            .iter()
            .filter(move |item| item.shown_to(viewer))
            .map(|item| &item.entry)
    }

    /// The entries newest first, with their Bloom pairs.
    fn newest(&self) -> impl Iterator<Item = (&Indexed, Pairs)> {
        self.recency.values().filter_map(|&i| {
            let item = self.items.get(i)?;
            Some((item, self.pairs.get(i).copied()?))
        })
    }

    /// Recall: the entries `viewer` is shown, ordered and cut as
    /// [`crate::entries::recall::select_for_recall`] does.
    pub fn recall(&self, viewer: &Viewer, order: RecallOrder, limit: usize) -> Vec<&Entry> {
        match order {
            RecallOrder::MostRecent => self
                .newest()
                .filter(|(item, _)| item.shown_to(viewer))
                .take(limit)
                .map(|(item, _)| &item.entry)
                .collect(),
            RecallOrder::MostAccessed => {
                select_keyed(keyed(self.items.iter(), viewer), order, limit)
            }
        }
    }

    /// Search: the entries `viewer` is shown that match every (folded) term, most recent first,
    /// at most `limit` — the same result as [`crate::entries::search::matches_terms`] and the
    /// `most_recent` order. Few candidates (the usual search) are tested and the newest kept;
    /// many are found by walking newest first until `limit` match.
    pub fn search(&self, terms: &[String], viewer: &Viewer, limit: usize) -> Vec<&Entry> {
        if terms.is_empty() {
            return Vec::new();
        }
        let wanted = terms.iter().fold(Pairs::default(), |mut acc, t| {
            acc.add(t);
            acc
        });
        let candidates: Vec<usize> = self
            .pairs
            .iter()
            .enumerate()
            .filter(|(_, pairs)| pairs.covers(wanted))
            .map(|(i, _)| i)
            .collect();
        if candidates.len() > limit.saturating_mul(WALK_ABOVE_CANDIDATES_PER_SLOT) {
            return self
                .newest()
                .filter(|(item, pairs)| {
                    pairs.covers(wanted) && item.matches(terms) && item.shown_to(viewer)
                })
                .take(limit)
                .map(|(item, _)| &item.entry)
                .collect();
        }
        let matching = candidates
            .into_iter()
            .filter_map(|i| self.items.get(i))
            .filter(|item| item.matches(terms));
        select_keyed(keyed(matching, viewer), RecallOrder::MostRecent, limit)
    }
}

/// The items `viewer` is shown, with their instants, for a selection that orders them all.
fn keyed<'a>(items: impl Iterator<Item = &'a Indexed>, viewer: &Viewer) -> Vec<Keyed<'a>> {
    items
        .filter(|item| item.shown_to(viewer))
        .map(|item| Keyed {
            entry: &item.entry,
            at: item.at,
        })
        .collect()
}
