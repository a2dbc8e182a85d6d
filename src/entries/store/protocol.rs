//! The entry store protocol, written once (behaviour §5): a small [`EntryStore`] (five methods
//! every store has) over six capability traits, each a group of optional methods whose default
//! answers "this store cannot" (`None` / `false`), so the core falls back to its own rule.
//!
//! | capability | methods (JS names) |
//! | --- | --- |
//! | [`PushDown`] | `countUser`, `search`, `recall`, `findByKey`, `oldestOwn` |
//! | [`AtomicWrites`] | `insertWithinCap`, `insertAll` |
//! | [`VectorStore`] | `vectors`, `putVectors`, `unembedded` |
//! | [`HistoryStore`] | `appendHistory`, `writeWithHistory`, `deleteWithHistory`, `insertWithHistory`, `versions`, `auditLog`, `eraseHistory`, `versionsByAuthor`, `historySize`, `idHolders` |
//! | [`EpisodeStore`] | `putEpisodes`, `episodes`, `deleteEpisodes` |
//! | [`InProcess`] | `searchIndex` (and the in-process `with_entries`) |
//!
//! One table ([`store_protocol!`]) lists every method with its JS name; the traits, the list of
//! JS names the JS adapter accepts ([`REQUIRED_METHODS`], [`OPTIONAL_METHODS`], handed to JS by
//! `coreConstants`), and every wrapper's forwarding ([`forward_store!`]: the deadline wrapper,
//! the versioned store, the binding's store reference) are generated from it, so a method added
//! to the table reaches every wrapper or fails to compile. A store opts into a capability by
//! implementing its trait (`impl VectorStore for MyStore {}` keeps every default).

use super::EntrySet;
use crate::error::Result;

/// The protocol's table: hands every trait, its doc, its supertraits and its methods
/// (`"jsName" fn name(args) -> answer [= default];`) to the traits' definition (`define`, here
/// only) or to [`forward_store!`] (`forward …`).
#[macro_export]
#[doc(hidden)]
macro_rules! store_protocol {
    (@emit define $args:tt $($table:tt)*) => {
        define_traits! { $args $($table)* }
    };
    (@emit forward $args:tt $($table:tt)*) => {
        $crate::forward_store! { $args $($table)* }
    };
    ($kind:ident $($arg:tt)*) => {
        $crate::store_protocol! { @emit $kind ($($arg)*)
            /// Entry storage (behaviour §2, §5): the five methods every store has. Async without a
            /// `Send` bound, like the other host traits: in wasm everything runs on one thread and
            /// JS-backed futures are not `Send`. The capability traits it requires are optional
            /// groups; implementing one with no methods keeps its defaults ("this store cannot").
            EntryStore: PushDown + AtomicWrites + VectorStore + HistoryStore + EpisodeStore + InProcess {
                /// Every entry of one user.
                "list" fn list(user_id: &str) -> Vec<$crate::entries::entry::Entry>;
                /// One entry by id.
                "get" fn get(id: &str) -> Option<$crate::entries::entry::Entry>;
                /// Insert or replace the entry with this id.
                "upsert" fn upsert(entry: &$crate::entries::entry::Entry) -> ();
                /// Delete by id; `true` when something was deleted.
                "delete" fn delete(id: &str) -> bool;
                /// Add one to the access count of each id.
                "incrementAccess" fn increment_access(ids: &[String]) -> ();
            }
            /// Optional pushed-down queries: the core's reads run inside the store (a SQL
            /// `WHERE`); each default answers `None` and the core reads `list` instead.
            PushDown {
                /// A count of the user's entries excluding `_gdpr_` keys; `None` → the core counts
                /// from `list`.
                "countUser" fn count_user(user_id: &str) -> Option<usize> = None;
                /// A *superset* of the user's entries that may match `query` (e.g. a SQL `ILIKE`
                /// prefilter); `None` → the core searches the result of `list`. The core always
                /// re-applies its own matching and visibility to what is returned, so an adapter
                /// may over-approximate but must not drop a match.
                "search" fn search(user_id: &str, query: &str) -> Option<Vec<$crate::entries::entry::Entry>> = None;
                /// The entries the query's agent may see, in its order, at most `limit`
                /// (`most_accessed`: the union of the top `limit` by access and by recency);
                /// `None` → the core recalls from `list`. A superset is safe: the core re-applies
                /// visibility, order and limit.
                "recall" fn recall(query: &$crate::entries::store::RecallQuery<'_>) -> Option<Vec<$crate::entries::entry::Entry>> = None;
                /// Every entry of the user with exactly this key (any agent, any visibility);
                /// `None` → the core looks in `list`. The core keeps only the user's entries with
                /// that key from what is returned.
                "findByKey" fn find_by_key(user_id: &str, key: &str) -> Option<Vec<$crate::entries::entry::Entry>> = None;
                /// Eviction candidates: the agent's own non-`_gdpr_` entries, least recently
                /// updated first, at most `limit`; `None` → the core picks from `list`. The core
                /// re-checks ownership and order.
                "oldestOwn" fn oldest_own(query: &$crate::entries::store::OwnQuery<'_>) -> Option<Vec<$crate::entries::entry::Entry>> = None;
            }
            /// Optional atomic writes: one transaction where the core would otherwise take
            /// several steps (not atomic across processes).
            AtomicWrites {
                /// A capped insert of a new entry (one transaction: delete `evict`, then write
                /// unless the user holds `max_entries` non-`_gdpr_` entries); `None` → the core
                /// deletes and upserts itself.
                "insertWithinCap" fn insert_within_cap(entry: &$crate::entries::entry::Entry, max_entries: u64, evict: &[String]) -> Option<$crate::entries::store::CapWrite> = None;
                /// An insert of new entries (an import, behaviour §4.3): every entry written in one
                /// transaction, or none — an id already stored fails the whole call. With
                /// `profile` (the store is also the profile storage the import writes to) the
                /// profile is created in the same transaction, create-only. `Ok(false)` → the
                /// store has no such operation; the core checks the ids, upserts one at a time and
                /// deletes what it wrote when one fails.
                "insertAll" fn insert_all(entries: &[$crate::entries::entry::Entry], profile: Option<$crate::entries::store::ProfileInsert<'_>>) -> bool = false;
            }
            /// Optional vectors (behaviour §8.2). A store that keeps vectors clears an entry's
            /// vector when its key or value changes and deletes it with the entry.
            VectorStore {
                /// The user's stored vectors made by `model`; `None` → the store keeps no vectors
                /// (hybrid search then ranks lexically).
                "vectors" fn vectors(user_id: &str, model: &str) -> Option<Vec<$crate::entries::store::StoredVector>> = None;
                /// Store vectors, each only while its entry still has the key and value it was
                /// made from; the number written, or `None` when the store keeps no vectors.
                "putVectors" fn put_vectors(rows: &[$crate::entries::store::VectorWrite<'_>]) -> Option<usize> = None;
                /// Entries with no vector of `query.model` (none, or another model's), ids
                /// ascending after `query.after`, at most `query.limit`; `None` → the store cannot
                /// say (the core compares `list` with `vectors` for one user).
                "unembedded" fn unembedded(query: &$crate::entries::store::UnembeddedQuery<'_>) -> Option<Vec<$crate::entries::entry::Entry>> = None;
            }
            /// Optional history (behaviour §8.3): versions, the audit log, erasure and entry-id
            /// ownership. A store without it keeps no history (writes then behave as before
            /// history existed).
            HistoryStore {
                /// In one transaction where the store can, append the versions (one whose id is
                /// already stored is skipped) and the audit records (numbered by the store,
                /// ascending), then apply the retention ([`HistoryAppend`](crate::entries::history::HistoryAppend)). Called before the
                /// change it records, and with nothing to append to apply the retention alone.
                /// `false`: the store keeps no history.
                "appendHistory" fn append_history(append: &$crate::entries::history::HistoryAppend<'_>) -> bool = false;
                /// A write with its history in one step where the store can (one transaction, one
                /// statement or one batch): `append` as [`HistoryStore::append_history`] takes it,
                /// then `entry` as [`EntryStore::upsert`] writes it — both or neither. `false`: the
                /// store has no such operation; the core appends, then upserts.
                "writeWithHistory" fn write_with_history(entry: &$crate::entries::entry::Entry, append: &$crate::entries::history::HistoryAppend<'_>) -> bool = false;
                /// A delete with its history in one step where the store can: `append` as
                /// [`HistoryStore::append_history`] takes it, then the entry `id` deleted as
                /// [`EntryStore::delete`] does — both or neither. `Some(deleted)`; `None`: the store
                /// has no such operation, and the core appends, then deletes.
                "deleteWithHistory" fn delete_with_history(id: &str, append: &$crate::entries::history::HistoryAppend<'_>) -> Option<bool> = None;
                /// A capped insert with its history in one step where the store can: as
                /// [`AtomicWrites::insert_within_cap`] (delete `evict`, then write unless the user
                /// holds `max_entries` non-`_gdpr_` entries), and when it writes, `append` as
                /// [`HistoryStore::append_history`] takes it — both or neither (a refused insert
                /// appends nothing). `None`: the store has no such operation; the core appends,
                /// then inserts.
                "insertWithHistory" fn insert_with_history(entry: &$crate::entries::entry::Entry, max_entries: u64, evict: &[String], append: &$crate::entries::history::HistoryAppend<'_>) -> Option<$crate::entries::store::CapWrite> = None;
                /// The versions of `query.user_id` (of one entry, or whose key was `query.key`),
                /// any order; `None` when the store keeps no history. The core re-checks the
                /// owner, entry and key of what is returned.
                "versions" fn versions(query: &$crate::entries::history::VersionQuery<'_>) -> Option<Vec<$crate::entries::history::Version>> = None;
                /// The audit records the query names, in `seq` order; `None` when the store keeps
                /// none.
                "auditLog" fn audit_log(query: &$crate::entries::history::AuditQuery<'_>) -> Option<Vec<$crate::entries::history::AuditRecord>> = None;
                /// Erase the user's history (Art. 17) in one transaction — every version and every
                /// audit record of `user_id` — rename what names the user in the rest of the
                /// history ([`HistoryRenames`](crate::entries::history::HistoryRenames): `actor.id` of other users' audit records, and the
                /// versions given), and append `record` (the erasure's own record, the one that
                /// stays, under its own `userId`: the erased user's `sha256:` name). Answers what
                /// was removed and renamed; `None` when the store keeps no history.
                "eraseHistory" fn erase_history(user_id: &str, record: &$crate::entries::history::AuditRecord, renames: &$crate::entries::history::HistoryRenames) -> Option<$crate::entries::history::HistoryErasure> = None;
                /// The versions of any user whose `author.id` is `author_id` (an erasure renames
                /// them, [`HistoryRenames`](crate::entries::history::HistoryRenames)); `None` when the store cannot say. The core re-checks
                /// the author.
                "versionsByAuthor" fn versions_by_author(author_id: &str) -> Option<Vec<$crate::entries::history::Version>> = None;
                /// How many versions and audit records the store keeps of the user.
                "historySize" fn history_size(user_id: &str) -> Option<$crate::entries::history::HistorySize> = None;
                /// Ownership lookup (an entry id belongs to one user, behaviour §8.3): for each of
                /// `ids` the store holds — as a current entry, or as the entry of kept versions —
                /// who holds it, one [`IdHolder`](crate::entries::store::IdHolder) per (id, user, current) pair, any order; `None`
                /// → the core asks [`EntryStore::get`] for each id (current entries only, so
                /// another user's deleted entry's id is then not seen).
                "idHolders" fn id_holders(ids: &[String]) -> Option<Vec<$crate::entries::store::IdHolder>> = None;
            }
            /// Optional episodes (behaviour §8.6): the conversation kept as searchable messages.
            EpisodeStore {
                /// Store those whose id is not stored yet (an episode's id is its content); the
                /// number written, or `None` when the store keeps no episodes.
                "putEpisodes" fn put_episodes(episodes: &[$crate::entries::episode::Episode]) -> Option<usize> = None;
                /// The ones [`EpisodeQuery`](crate::entries::episode::EpisodeQuery) names, any order; `None` when the store keeps no
                /// episodes. The core re-checks the user, conversation and time.
                "episodes" fn episodes(query: &$crate::entries::episode::EpisodeQuery<'_>) -> Option<Vec<$crate::entries::episode::Episode>> = None;
                /// Delete the user's episodes from before `before` (retention), or all of them
                /// (`None`: erasure); the number deleted, or `None` when the store keeps no
                /// episodes.
                "deleteEpisodes" fn delete_episodes(user_id: &str, before: Option<&str>) -> Option<usize> = None;
            }
            /// Optional in-process access to a user's indexed entries, so recall and search parse
            /// and copy nothing but what they return. Its two methods are generic, so they are
            /// written out below rather than in this table.
            InProcess {
                @ "searchIndex";
            }
        }
    };
}

/// Generates the traits from the table.
macro_rules! define_traits {
    (()
        $(#[$doc:meta])*
        $required:ident: $first:ident $(+ $super:ident)* {
            $($(#[$rdoc:meta])* $rjs:literal fn $rm:ident($($ra:ident: $rt:ty),*) -> $rr:ty;)*
        }
        $(
            $(#[$cdoc:meta])*
            $cap:ident {
                $($(#[$mdoc:meta])* $js:literal fn $m:ident($($a:ident: $t:ty),*) -> $r:ty = $default:expr;)*
                $(@ $extra:literal;)?
            }
        )*
    ) => {
        $(#[$doc])*
        #[allow(async_fn_in_trait)]
        pub trait $required: $first $(+ $super)* {
            $($(#[$rdoc])* async fn $rm(&self, $($ra: $rt),*) -> Result<$rr>;)*
        }

        /// The JS names of [`EntryStore`]'s methods: every store adapter has them.
        pub const REQUIRED_METHODS: &[&str] = &[$($rjs),*];

        /// The JS names of the capability traits' methods: a store adapter may have any of them.
        pub const OPTIONAL_METHODS: &[&str] = &[$($($js,)* $($extra,)?)*];

        define_traits!(@capabilities $(
            $(#[$cdoc])* $cap { $($(#[$mdoc])* fn $m($($a: $t),*) -> $r = $default;)* }
        )*);
    };
    (@capabilities $($(#[$cdoc:meta])* $cap:ident { $($(#[$mdoc:meta])* fn $m:ident($($a:ident: $t:ty),*) -> $r:ty = $default:expr;)* })*) => {
        $(
            $(#[$cdoc])*
            #[allow(async_fn_in_trait)]
            pub trait $cap {
                $(
                    $(#[$mdoc])*
                    #[allow(unused_variables)]
                    async fn $m(&self, $($a: $t),*) -> Result<$r> {
                        Ok($default)
                    }
                )*
                capability_extras!($cap);
            }
        )*
    };
}

/// The methods of a capability that the table cannot carry (sync or generic ones), written once.
macro_rules! capability_extras {
    (HistoryStore) => {
        /// Whether the store keeps history (has [`HistoryStore::append_history`]): a write over a
        /// store that does not reads nothing more than before history existed.
        fn keeps_history(&self) -> bool {
            false
        }
    };
    (InProcess) => {
        /// Zero-copy access for in-process stores: run `f` over the user's indexed entries in
        /// place and return its result; `None` → the core falls back to `list`. Recall and search
        /// use it so that they parse and copy nothing but what they return.
        fn with_entries<R>(&self, _user_id: &str, _f: impl FnOnce(&EntrySet) -> R) -> Option<R> {
            None
        }
        /// The search index of a store that lives outside the process (behaviour §8.2; JS
        /// `searchIndex`): run `f` over an in-process mirror of the user's entries — with their
        /// vectors of `model` when one is given — that the store keeps current (the SQL adapters
        /// validate theirs by a revision the database bumps on every change). `Ok(None)` → the
        /// core lists the entries. The ranked search reads the entries it returns again with
        /// `get`, so a mirror that lags in `accessCount` (which no ranking reads) never shows a
        /// stale entry, and the core re-checks visibility on what `get` answers.
        async fn with_search_index<R>(
            &self,
            _user_id: &str,
            _model: Option<&str>,
            _f: impl FnOnce(&EntrySet) -> R,
        ) -> Result<Option<R>> {
            Ok(None)
        }
    };
    ($other:ident) => {};
}

store_protocol!(define);

/// Implements store traits for a wrapper by forwarding every method of the table:
///
/// - `forward_store!(field [S: EntryStore, C: Clock] Versioned<'_, S, C>, store: PushDown, …)`
///   — each call goes to `self.store`;
/// - `forward_store!(timed [H: EntryStore, T: Timer] Timed<'_, H, T>, host: EntryStore, …)` —
///   each call goes to `self.host` within the deadline, named `store.<jsName>`;
/// - `forward_store!(variants [] StoreRef, [StoreRef::Native, StoreRef::Host]: PushDown, …)` —
///   each call goes to the variant's store.
///
/// Only the capabilities named are implemented; a wrapper writes the others itself (the
/// versioned store its writes, the store reference its in-process access).
#[macro_export]
macro_rules! forward_store {
    ($mode:ident [$($g:tt)*] $ty:ty, $how:tt: $($cap:ident),+) => {
        $crate::store_protocol!(forward @table $mode [$($g)*] ($ty) $how [$($cap)+]);
    };
    ((@table $mode:ident $g:tt $ty:tt $how:tt [$($want:ident)+])
        $(#[$doc:meta])*
        $required:ident: $first:ident $(+ $super:ident)* {
            $($(#[$rdoc:meta])* $rjs:literal fn $rm:ident($($ra:ident: $rt:ty),*) -> $rr:ty;)*
        }
        $(
            $(#[$cdoc:meta])*
            $cap:ident {
                $($(#[$mdoc:meta])* $js:literal fn $m:ident($($a:ident: $t:ty),*) -> $r:ty = $default:expr;)*
                $(@ $extra:literal;)?
            }
        )*
    ) => {
        $crate::forward_store!(@each $mode $g $ty $how [$($want)+] {
            [$required { $($rjs fn $rm($($ra: $rt),*) -> $rr;)* }]
            $([$cap { $($js fn $m($($a: $t),*) -> $r;)* }])*
        });
    };
    (@each $mode:ident $g:tt $ty:tt $how:tt [$($want:ident)+] $table:tt) => {
        $($crate::forward_store!(@want $want $mode $g $ty $how $table);)+
    };
    // Pick the wanted capability out of the table.
    (@want $want:ident $mode:ident $g:tt $ty:tt $how:tt { $([$cap:ident $methods:tt])* }) => {
        $($crate::forward_store!(@if $want $cap $mode $g $ty $how $methods);)*
    };
    (@if EntryStore EntryStore $($rest:tt)*) => { $crate::forward_store!(@impl EntryStore $($rest)*); };
    (@if PushDown PushDown $($rest:tt)*) => { $crate::forward_store!(@impl PushDown $($rest)*); };
    (@if AtomicWrites AtomicWrites $($rest:tt)*) => { $crate::forward_store!(@impl AtomicWrites $($rest)*); };
    (@if VectorStore VectorStore $($rest:tt)*) => { $crate::forward_store!(@impl VectorStore $($rest)*); };
    (@if HistoryStore HistoryStore $($rest:tt)*) => { $crate::forward_store!(@impl HistoryStore $($rest)*); };
    (@if EpisodeStore EpisodeStore $($rest:tt)*) => { $crate::forward_store!(@impl EpisodeStore $($rest)*); };
    (@if InProcess InProcess $($rest:tt)*) => { $crate::forward_store!(@impl InProcess $($rest)*); };
    (@if $want:ident $other:ident $($rest:tt)*) => {};
    (@impl $cap:ident $mode:ident [$($g:tt)*] ($ty:ty) $how:tt
        { $($js:literal fn $m:ident($($a:ident: $t:ty),*) -> $r:ty;)* }
    ) => {
        impl<$($g)*> $crate::entries::store::$cap for $ty {
            $(
                async fn $m(&self, $($a: $t),*) -> $crate::error::Result<$r> {
                    $crate::forward_store!(@call $mode self $how $js $m($($a),*))
                }
            )*
            $crate::forward_store!(@extras $cap $mode self $how);
        }
    };
    (@call field $self:ident $field:ident $js:literal $m:ident $args:tt) => {
        $self.$field.$m $args.await
    };
    (@call timed $self:ident $field:ident $js:literal $m:ident $args:tt) => {
        $self.run(concat!("store.", $js), $self.$field.$m $args).await
    };
    (@call variants $self:ident [$($v:path),+] $js:literal $m:ident $args:tt) => {
        match $self {
            $($v(store) => store.$m $args.await,)+
        }
    };
    (@extras HistoryStore variants $self:ident [$($v:path),+]) => {
        fn keeps_history(&$self) -> bool {
            match $self {
                $($v(store) => store.keeps_history(),)+
            }
        }
    };
    (@extras HistoryStore $mode:ident $self:ident $field:ident) => {
        fn keeps_history(&$self) -> bool {
            $self.$field.keeps_history()
        }
    };
    (@extras InProcess $mode:ident $self:ident $field:ident) => {
        fn with_entries<R>(
            &$self,
            user_id: &str,
            f: impl FnOnce(&$crate::entries::store::EntrySet) -> R,
        ) -> Option<R> {
            $self.$field.with_entries(user_id, f)
        }
        async fn with_search_index<R>(
            &$self,
            user_id: &str,
            model: Option<&str>,
            f: impl FnOnce(&$crate::entries::store::EntrySet) -> R,
        ) -> $crate::error::Result<Option<R>> {
            let index = $self.$field.with_search_index(user_id, model, f);
            $crate::forward_store!(@index $mode $self index)
        }
    };
    (@index field $self:ident $index:ident) => {
        $index.await
    };
    (@index timed $self:ident $index:ident) => {
        $self.run("store.searchIndex", $index).await
    };
    (@extras InProcess variants $self:ident [$($v:path),+]) => {
        fn with_entries<R>(
            &$self,
            user_id: &str,
            f: impl FnOnce(&$crate::entries::store::EntrySet) -> R,
        ) -> Option<R> {
            match $self {
                $($v(store) => store.with_entries(user_id, f),)+
            }
        }
        async fn with_search_index<R>(
            &$self,
            user_id: &str,
            model: Option<&str>,
            f: impl FnOnce(&$crate::entries::store::EntrySet) -> R,
        ) -> $crate::error::Result<Option<R>> {
            match $self {
                $($v(store) => store.with_search_index(user_id, model, f).await,)+
            }
        }
    };
    (@extras $cap:ident $($rest:tt)*) => {};
}
