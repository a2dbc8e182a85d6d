//! `memoryHistory` (behaviour §8.6, "time for agents"): the past values of one key with their
//! dates, the fifth tool, offered beside the four of behaviour §2.5 when history is on.
//!
//! Answers (exact wording, memcore's; pinned by tests):
//! - `History of 'key' (newest first):` then one line per state the agent may see: the current
//!   state(s) `• key = value [category, visibility] (since YYYY-MM-DD)`, then each kept version
//!   `• key = value [category, visibility] (YYYY-MM-DD to YYYY-MM-DD, <reason>)` — from its
//!   `validFrom` to its `validUntil` (UTC dates), the reason that ended it (`updated`,
//!   `deleted`, `summarised`, …). At most `maxRecallEntries` lines.
//! - nothing visible: `No history for key 'key'.`
//! - a store that keeps no history: [`NO_HISTORY_KEPT`].
//! - the key rules of `forgetFact` (empty, not text, `_gdpr_` reserved) and its store failure
//!   answer, `❌ Failed to read memory: …`.
//!
//! A version is shown by the rule that shows an entry ([`crate::entries::visibility::Viewer`]):
//! the agent sees the past of what it could see then — another agent's private note stays
//! private after it changed. Reading history counts no access.

use super::args::unreserved_key;
use super::session::{failed, ToolAnswer, ToolSession};
use crate::entries::history::{entry_history, HistorySelector};
use crate::entries::recall::{format_entry, since_date};
use crate::entries::store::EntryStore;
use serde_json::{Map, Value};

/// The answer when the store keeps no history.
pub const NO_HISTORY_KEPT: &str = "⚠️ This memory keeps no history.";

pub(crate) async fn memory_history<S: EntryStore>(
    session: &ToolSession,
    store: &S,
    map: &Map<String, Value>,
) -> ToolAnswer {
    let key = match unreserved_key(map) {
        Ok(k) => k,
        Err(answer) => return ToolAnswer::say(answer),
    };
    let history = match entry_history(store, &session.user_id, HistorySelector::Key(&key)).await {
        Ok(Some(history)) => history,
        Ok(None) => return ToolAnswer::say(NO_HISTORY_KEPT),
        Err(e) => return failed("read", &e),
    };
    let viewer = session.viewer();
    let max = usize::try_from(session.config.max_recall_entries).unwrap_or(usize::MAX);
    let mut current: Vec<_> = history
        .current
        .iter()
        .filter(|e| e.key == key && viewer.shows(e))
        .collect();
    crate::order::sort_by(&mut current, |a, b| {
        crate::entries::recall::recency_cmp(a, b)
    });
    let mut lines: Vec<String> = current
        .into_iter()
        .map(|e| match since_date(&e.updated_at) {
            Some(date) => format!("{} (since {date})", format_entry(e)),
            None => format_entry(e),
        })
        .collect();
    for version in &history.versions {
        let then = version.as_entry();
        if then.key != key || !viewer.shows(&then) {
            continue;
        }
        let reason = serde_json::to_value(version.reason)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let span = match (
            since_date(&version.valid_from),
            since_date(&version.valid_until),
        ) {
            (Some(from), Some(until)) => format!("{from} to {until}, {reason}"),
            _ => reason,
        };
        lines.push(format!("{} ({span})", format_entry(&then)));
    }
    lines.truncate(max);
    if lines.is_empty() {
        return ToolAnswer::say(format!("No history for key '{key}'."));
    }
    ToolAnswer::say(format!(
        "History of '{key}' (newest first):\n{}",
        lines.join("\n")
    ))
}
