//! Version ids and the versions' own methods: a version's id is its content (FNV-1a over
//! entry, instants, state, author, reason), and the newest-first order.

use super::*;

/// 64-bit FNV-1a, fed field by field (each field followed by a 0xFF byte, which UTF-8 never
/// holds, so field boundaries cannot shift).
struct Fnv(u64);

impl Fnv {
    fn feed(&mut self, text: &str) {
        for byte in text.bytes().chain(std::iter::once(0xFF)) {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

impl Version {
    /// The version of `old`, ended at `until` by `author` for `reason`, its next state in
    /// `superseded_by`.
    pub fn of(
        old: &Entry,
        until: String,
        author: &Author,
        reason: Reason,
        superseded_by: Option<&str>,
    ) -> Version {
        let mut v = Version {
            id: String::new(),
            entry_id: old.id.clone(),
            user_id: old.user_id.clone(),
            key: old.key.clone(),
            value: old.value.clone(),
            category: old.category.clone(),
            visibility: old.visibility.clone(),
            source_agent_id: old.source_agent_id.clone(),
            group_ids: old.group_ids.clone(),
            source_conversation_id: old.source_conversation_id.clone(),
            created_at: old.created_at.clone(),
            valid_from: old.updated_at.clone(),
            valid_until: until,
            author: author.clone(),
            reason,
            superseded_by: superseded_by.map(str::to_string),
        };
        v.id = v.content_id();
        v
    }

    /// The id this version's content gives it: `<entryId>~<16 hex digits>` of a hash over every
    /// field but the id. A version read back (an import) is genuine only when its id is this.
    pub fn content_id(&self) -> String {
        format!("{}~{:016x}", self.entry_id, self.content_hash())
    }

    fn content_hash(&self) -> u64 {
        fn json<T: Serialize>(value: &T) -> String {
            serde_json::to_string(value).unwrap_or_default()
        }
        let mut h = Fnv(0xcbf2_9ce4_8422_2325);
        for part in [
            self.entry_id.clone(),
            self.user_id.clone(),
            self.key.clone(),
            json(&self.value),
            self.category.clone(),
            self.visibility.clone(),
            json(&self.source_agent_id),
            json(&self.group_ids),
            json(&self.source_conversation_id),
            self.created_at.clone(),
            self.valid_from.clone(),
            self.valid_until.clone(),
            json(&self.author),
            json(&self.reason),
            json(&self.superseded_by),
        ] {
            h.feed(&part);
        }
        h.0
    }

    /// The entry this version was: its state, created and updated as then (access count 0, not
    /// marked conflicted).
    pub fn as_entry(&self) -> Entry {
        Entry {
            id: self.entry_id.clone(),
            user_id: self.user_id.clone(),
            key: self.key.clone(),
            value: self.value.clone(),
            category: self.category.clone(),
            visibility: self.visibility.clone(),
            source_agent_id: self.source_agent_id.clone(),
            group_ids: self.group_ids.clone(),
            source_conversation_id: self.source_conversation_id.clone(),
            conflicted: false,
            access_count: 0,
            created_at: self.created_at.clone(),
            updated_at: self.valid_from.clone(),
            written_by: None,
        }
    }
}

/// Newest first: `validUntil` descending, then id descending (ties are broken by id).
pub fn newest_first(versions: &mut [Version]) {
    crate::order::sort_by(versions, |a, b| {
        let at = |v: &Version| parsed(&v.valid_until);
        at(b)
            .cmp(&at(a))
            .then_with(|| b.valid_until.cmp(&a.valid_until))
            .then_with(|| b.id.cmp(&a.id))
    });
}
