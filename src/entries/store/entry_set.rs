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
use crate::entries::visibility::{is_reserved_key, Audience, Viewer};
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
}

/// Who may be shown an entry, known without reading it: a ranked search decides most entries
/// from this byte of its [`SearchRow`] and reads the entry only for `Scoped` ones shown to an
/// agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// A `_gdpr_` key: shown to nobody.
    Hidden,
    /// A global entry: shown to the user and to every agent of the user.
    Global,
    /// A `self` or `group` entry (or an unreadable visibility): the entry decides.
    Scoped,
}

/// What a ranked search reads of one entry, in a column of its own beside the entries (a
/// search over 10,000 entries walks about 1 MB of these instead of the entries themselves).
#[derive(Debug, Clone)]
struct SearchRow {
    /// The id's first 16 bytes as an integer, what a ranking's ties compare first.
    id_prefix: u128,
    reach: Reach,
    /// The entry's vector: the [`Vectors`] of the model that made it (behaviour §8.2), its slot
    /// there, and its squared norm (computed once, so a hybrid search reads each vector for one
    /// dot product); cleared when the key or the value changes. (A search compares one integer
    /// per entry, not the model id's text.)
    vector: Option<(u32, u32, i64)>,
    /// The entry analysed for BM25 in the first language a ranked search asked for (made on
    /// first use; replaced with the entry, so never stale).
    analyzed: std::cell::OnceCell<(Language, AnalyzedDoc)>,
}

impl SearchRow {
    fn of(item: &Indexed) -> Self {
        let reach = if item.reserved {
            Reach::Hidden
        } else if item.visibility == Some(Visibility::Global) {
            Reach::Global
        } else {
            Reach::Scoped
        };
        SearchRow {
            id_prefix: id_prefix(&item.entry.id),
            reach,
            vector: None,
            analyzed: std::cell::OnceCell::new(),
        }
    }
}

impl Indexed {
    fn new(entry: Entry) -> Self {
        Indexed {
            at: parsed(&entry.updated_at),
            visibility: Visibility::parse(&entry.visibility),
            reserved: is_reserved_key(&entry.key),
            key_folded: fold(&entry.key).into_owned(),
            value_folded: fold(&value_text(&entry.value)).into_owned(),
            entry,
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
    /// The entries' vectors, one [`Vectors`] per model id and length (few: one per embedder
    /// the set has seen).
    models: Vec<Vectors>,
    /// What a ranked search reads of `items[i]` ([`SearchRow`]).
    rows: Vec<SearchRow>,
    /// The user of every entry, while they all have one (the in-memory store keeps one set per
    /// user): a search then checks the owner once, not once per entry.
    owner: Owner,
}

/// The vectors of one model (and one length) in one contiguous block, one fixed-size slot per
/// entry: a hybrid search streams them in order instead of chasing one allocation per entry.
#[derive(Debug, Clone)]
struct Vectors {
    model: String,
    len: usize,
    data: Vec<i8>,
    /// Slots made so far.
    slots: u32,
    /// Slots given back (the entry changed or went), reused first.
    free: Vec<u32>,
}

impl Vectors {
    fn get(&self, slot: u32) -> Option<&[i8]> {
        let at = (slot as usize).checked_mul(self.len)?;
        self.data.get(at..at.checked_add(self.len)?)
    }

    /// Put `vector` (of this block's length) in a free slot; `None` past 2³² slots.
    fn put(&mut self, vector: &[i8]) -> Option<u32> {
        match self.free.pop() {
            Some(slot) => {
                let at = (slot as usize).checked_mul(self.len)?;
                self.data
                    .get_mut(at..at + self.len)?
                    .copy_from_slice(vector);
                Some(slot)
            }
            None => {
                let slot = self.slots;
                self.slots = slot.checked_add(1)?;
                self.data.extend_from_slice(vector);
                Some(slot)
            }
        }
    }
}

/// Whose entries a set holds ([`EntrySet::owner`]).
#[derive(Debug, Clone, Default)]
enum Owner {
    /// None yet (an empty set).
    #[default]
    Nobody,
    /// Every entry is this user's.
    One(String),
    /// Entries of more than one user have been held (until the set is empty again).
    Several,
}

/// Above this many Bloom candidates per shown slot, a search walks the recency index (many hits:
/// it stops after `limit`) instead of testing every candidate and keeping the newest.
const WALK_ABOVE_CANDIDATES_PER_SLOT: usize = 4;

impl EntrySet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// The blocks of `model`'s vectors (one per length; one in practice).
    fn model_blocks(&self, model: &str) -> Vec<u32> {
        (0u32..)
            .zip(&self.models)
            .filter(|(_, block)| block.model == model)
            .map(|(at, _)| at)
            .collect()
    }

    /// The vector a row holds, when it is of one of `blocks`.
    fn vector_of(&self, row: &SearchRow, blocks: &[u32]) -> Option<(&[i8], i64)> {
        let (block, slot, norm) = row.vector?;
        if !blocks.contains(&block) {
            return None;
        }
        Some((self.models.get(block as usize)?.get(slot)?, norm))
    }

    /// Give a row's vector slot back to its block.
    fn release(models: &mut [Vectors], vector: Option<(u32, u32, i64)>) {
        if let Some((block, slot, _)) = vector {
            if let Some(block) = models.get_mut(block as usize) {
                block.free.push(slot);
                // A block nobody uses any more (a model replaced by another) gives its memory
                // back.
                if block.free.len() == block.slots as usize {
                    block.data = Vec::new();
                    block.free = Vec::new();
                    block.slots = 0;
                }
            }
        }
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
        self.owner = match std::mem::take(&mut self.owner) {
            Owner::Nobody => Owner::One(entry.user_id.clone()),
            Owner::One(user) if user == entry.user_id => Owner::One(user),
            _ => Owner::Several,
        };
        let indexed = Indexed::new(entry);
        let mut row = SearchRow::of(&indexed);
        let key = indexed.recency_key();
        let pairs = indexed.pairs();
        let (key_text, reserved) = (indexed.entry.key.clone(), indexed.reserved);
        let index = match self.by_id.get(&indexed.entry.id).copied() {
            Some(i) => match (
                self.items.get_mut(i),
                self.pairs.get_mut(i),
                self.rows.get_mut(i),
            ) {
                (Some(item), Some(item_pairs), Some(item_row)) => {
                    self.recency.remove(&item.recency_key());
                    if item.entry.key == indexed.entry.key
                        && item.entry.value == indexed.entry.value
                    {
                        row.vector = item_row.vector.take();
                    }
                    Self::release(&mut self.models, item_row.vector.take());
                    *item_row = row;
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
                self.rows.push(row);
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
        let row = self.rows.swap_remove(i);
        Self::release(&mut self.models, row.vector);
        if self.items.is_empty() {
            self.owner = Owner::Nobody;
        }
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
        self.store_vector(at, write.model, write.vector)
    }

    /// Store `vector` of `model` for entry `id` as the entry is now (a load of rows and vectors
    /// read together); `false` for an unknown id.
    pub fn put_current_vector(&mut self, id: &str, model: &str, vector: &[i8]) -> bool {
        match self.by_id.get(id) {
            Some(&at) => self.store_vector(at, model, vector),
            None => false,
        }
    }

    fn store_vector(&mut self, at: usize, model: &str, vector: &[i8]) -> bool {
        let len = vector.len();
        let block = match self
            .models
            .iter()
            .position(|b| b.model == model && b.len == len)
        {
            Some(block) => block,
            None => {
                self.models.push(Vectors {
                    model: model.to_string(),
                    len,
                    data: Vec::new(),
                    slots: 0,
                    free: Vec::new(),
                });
                self.models.len() - 1
            }
        };
        let Some(row) = self.rows.get_mut(at) else {
            return false;
        };
        Self::release(&mut self.models, row.vector.take());
        let (Some(vectors), Ok(index)) = (self.models.get_mut(block), u32::try_from(block)) else {
            return false;
        };
        let Some(slot) = vectors.put(vector) else {
            return false;
        };
        row.vector = Some((index, slot, norm2(vector)));
        true
    }

    /// The vector of entry `id` when `model` made it.
    pub fn vector(&self, id: &str, model: &str) -> Option<&[i8]> {
        let row = self.by_id.get(id).and_then(|&i| self.rows.get(i))?;
        self.vector_of(row, &self.model_blocks(model))
            .map(|(v, _)| v)
    }

    /// Every entry with its vector of `model` (`None`: none, or another model's), in no
    /// particular order.
    pub fn with_vectors<'a>(
        &'a self,
        model: &'a str,
    ) -> impl Iterator<Item = (&'a Entry, Option<&'a [i8]>)> + 'a {
        let blocks = self.model_blocks(model);
        self.items
            .iter()
            .zip(&self.rows)
            .map(move |(item, row)| (&item.entry, self.vector_of(row, &blocks).map(|(v, _)| v)))
    }

    /// The entries `audience` is shown, each with its vector of `model` and that vector's
    /// squared norm (as [`EntrySet::with_vectors`]), its analysed form in `analyzer`'s language
    /// (cached in the set for the next search; another language than the cached one is
    /// analysed afresh: `None`) and its id's prefix, in no particular order. Visibility is
    /// decided from the search column ([`SearchRow`]) for most entries, and by
    /// [`Audience::shows_parsed`] from the entry itself for the others.
    pub fn ranked<'a>(
        &'a self,
        model: Option<&'a str>,
        analyzer: &'a Analyzer,
        audience: Audience<'a>,
    ) -> impl Iterator<Item = RankedItem<'a>> + 'a {
        let blocks = model.map(|m| self.model_blocks(m)).unwrap_or_default();
        // The owner is checked once when every entry has the same one, else per entry.
        let owned = matches!(&self.owner, Owner::One(user) if user == audience.user_id());
        let sole = matches!(&self.owner, Owner::One(_) | Owner::Nobody);
        self.rows
            .iter()
            .enumerate()
            .filter(move |&(i, row)| {
                let shown_by_row = match (row.reach, audience) {
                    (Reach::Hidden, _) => Some(false),
                    (_, _) if sole && !owned => Some(false),
                    (Reach::Global, _) | (Reach::Scoped, Audience::Owner(_)) if owned => Some(true),
                    _ => None,
                };
                shown_by_row.unwrap_or_else(|| {
                    self.items.get(i).is_some_and(|item| {
                        audience.shows_parsed(&item.entry, item.visibility, item.reserved)
                    })
                })
            })
            .filter_map(move |(i, row)| {
                let item = self.items.get(i)?;
                let vector = self.vector_of(row, &blocks);
                let (language, doc) = row.analyzed.get_or_init(|| {
                    let doc =
                        AnalyzedDoc::new(analyzer, &item.entry.key, &value_text(&item.entry.value));
                    (analyzer.language(), doc)
                });
                let doc = (*language == analyzer.language()).then_some(doc);
                Some((&item.entry, vector, doc, row.id_prefix))
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
