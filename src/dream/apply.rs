//! The checked write sequences of a run over the host's [`EntryStore`] (every call under its
//! deadline, through [`crate::host::Timed`] in the caller): pruning, and one group's
//! consolidation — inserts, then in-place updates, then deletes, with a rollback when an
//! upsert fails. The run's [`EntryView`] follows every write that succeeded.

use super::log::RunLog;
use super::writes::{EntryView, GroupWrites};
use crate::entries::history::{Reason, Versioned};
use crate::entries::{Entry, EntryStore};
use crate::error::Error;
use crate::host::{Clock, LogLevel, Logger};

/// Delete the stale entries one by one; a failed delete is logged and the loop goes on. Returns
/// how many were deleted (a store answering "nothing was there" does not count). Each last
/// state is kept in the entry's history (reason `pruned`).
pub async fn prune<S: EntryStore, C: Clock, L: Logger>(
    store: &Versioned<'_, S, C>,
    stale: &[&Entry],
    log: &RunLog<'_, L>,
) -> u64 {
    let store = &store.because(Reason::Pruned);
    let mut pruned = 0;
    for entry in stale {
        match store.delete(&entry.id).await {
            Ok(true) => pruned += 1,
            Ok(false) => {}
            Err(error) => log.failed(
                LogLevel::Warn,
                "dream.prune.failed",
                ("entryId", &entry.id),
                &error,
            ),
        }
    }
    pruned
}

/// What a group's consolidation did.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    /// New entries inserted.
    pub inserted: u64,
    /// Originals deleted.
    pub deleted: u64,
    /// Originals whose delete failed, with the store's error: they stayed.
    pub kept: Vec<(String, Error)>,
}

/// Apply one group's writes: every insert, then every in-place update, then — only when all of
/// them succeeded — the deletes (a failed delete is logged; the loop goes on). When an upsert
/// fails, every original already overwritten (and the one that failed) is restored, every new
/// entry inserted (and the one that failed) is deleted, nothing of the group is deleted, and
/// the upsert's error is returned.
///
/// History (behaviour §8.3): every original updated or deleted is kept as a version (reason
/// `summarised`, superseded by the group's first consolidated entry); a rollback's restores are
/// versions of the consolidated states (reason `rolled_back`).
pub async fn apply_group<S: EntryStore, C: Clock, L: Logger>(
    store: &Versioned<'_, S, C>,
    writes: &GroupWrites,
    view: &mut EntryView,
    log: &RunLog<'_, L>,
) -> Result<Applied, Error> {
    let summary = writes
        .inserts
        .first()
        .or(writes.updates.first().map(|(_, consolidated)| consolidated))
        .map(|e| e.id.as_str());
    let rollback_store = store.because(Reason::RolledBack);
    let summarised = store.because(Reason::Summarised);
    let store = &match summary {
        Some(id) => summarised.superseded_by(id),
        None => summarised,
    };
    let rollback_store = &rollback_store;
    for (n, entry) in writes.inserts.iter().enumerate() {
        if let Err(error) = store.upsert(entry).await {
            let inserted = writes.inserts.get(..=n).unwrap_or_default();
            rollback(rollback_store, inserted, &[], view, log).await;
            return Err(error);
        }
        view.put(entry.clone());
    }
    for (n, (_, consolidated)) in writes.updates.iter().enumerate() {
        if let Err(error) = store.upsert(consolidated).await {
            let overwritten = writes.updates.get(..=n).unwrap_or_default();
            rollback(rollback_store, &writes.inserts, overwritten, view, log).await;
            return Err(error);
        }
        view.put(consolidated.clone());
    }
    let mut deleted = 0;
    let mut kept = Vec::new();
    for id in &writes.deletes {
        match store.delete(id).await {
            Ok(gone) => {
                deleted += u64::from(gone);
                view.remove(id);
            }
            Err(error) => {
                log.failed(
                    LogLevel::Warn,
                    "dream.delete.failed",
                    ("entryId", id),
                    &error,
                );
                kept.push((id.clone(), error));
            }
        }
    }
    Ok(Applied {
        inserted: writes.inserts.len() as u64,
        deleted,
        kept,
    })
}

/// Undo a group's upserts: originals back first (their facts return before anything else is
/// touched), then the new entries removed. Failures are logged; the rest is still undone.
async fn rollback<S: EntryStore, L: Logger>(
    store: &S,
    inserted: &[Entry],
    overwritten: &[(Entry, Entry)],
    view: &mut EntryView,
    log: &RunLog<'_, L>,
) {
    for (original, _) in overwritten {
        match store.upsert(original).await {
            Ok(()) => view.put(original.clone()),
            Err(error) => log.failed(
                LogLevel::Error,
                "dream.rollback.restore-failed",
                ("entryId", &original.id),
                &error,
            ),
        }
    }
    for entry in inserted {
        match store.delete(&entry.id).await {
            Ok(_) => view.remove(&entry.id),
            Err(error) => {
                // It may exist: later groups must see it.
                view.put(entry.clone());
                log.failed(
                    LogLevel::Error,
                    "dream.rollback.delete-failed",
                    ("entryId", &entry.id),
                    &error,
                );
            }
        }
    }
}
