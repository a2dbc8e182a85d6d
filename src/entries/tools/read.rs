//! `recallMemories`, `searchMemory` and `forgetFact` (behaviour §2.5): visible entries only, recall
//! order and format.

use super::args::{text_arg, unreserved_key, TextArg};
use super::session::{failed, ToolAnswer, ToolSession};
use crate::entries::config::{RecallOrder, SearchMode};
use crate::entries::entry::Entry;
use crate::entries::history::Versioned;
use crate::entries::recall::{format_entry_with, select_for_recall};
use crate::entries::search::modes::{ranked_search, SearchHosts};
use crate::entries::search::{matches_terms, search_terms};
use crate::entries::store::unique;
use crate::entries::store::{with_key, EntryStore, RecallQuery};
use crate::entries::visibility::Audience;
use crate::host::{Clock, Embedder, Logger, Timer};
use serde_json::{Map, Value};

/// Answer of a recall with nothing visible (behaviour reference).
pub const NO_MEMORIES: &str = "No memories found for this user.";

/// The entries a tool may show ([`crate::entries::visibility::Viewer::shows`]).
fn shown(session: &ToolSession, entries: Vec<Entry>) -> Vec<Entry> {
    let viewer = session.viewer();
    entries.into_iter().filter(|e| viewer.shows(e)).collect()
}

fn limit(session: &ToolSession) -> usize {
    usize::try_from(session.config.max_recall_entries).unwrap_or(usize::MAX)
}

pub(crate) async fn recall_memories<S: EntryStore>(session: &ToolSession, store: &S) -> ToolAnswer {
    let (order, max) = (session.config.recall_order, limit(session));
    let dates = session.config.answers.dates;
    // In place, only the ids and the answer leave the borrow: nothing else is copied.
    let in_place = store.with_entries(&session.user_id, |set| {
        Recalled::of(&set.recall(&session.viewer(), order, max), dates)
    });
    let recalled = match in_place {
        Some(recalled) => recalled,
        None => {
            let query = RecallQuery {
                user_id: &session.user_id,
                agent_id: &session.agent_id,
                group_id: session.group.as_deref().filter(|g| !g.is_empty()),
                order,
                limit: max,
            };
            // Pushed down when the store can; whatever it returns is filtered, ordered and cut
            // again here, so a store can over-return but never widen what an agent sees.
            let candidates = match store.recall(&query).await {
                Ok(Some(found)) => found,
                Ok(None) => match store.list(&session.user_id).await {
                    Ok(entries) => entries,
                    Err(e) => return failed("recall", &e),
                },
                Err(e) => return failed("recall", &e),
            };
            let shown = shown(session, unique(candidates));
            Recalled::of(&select_for_recall(&shown, order, max), dates)
        }
    };
    if recalled.ids.is_empty() {
        return ToolAnswer::say(NO_MEMORIES);
    }
    if let Err(e) = store.increment_access(&recalled.ids).await {
        return failed("recall", &e);
    }
    ToolAnswer::say(recalled.listing)
}

/// What a recall or search keeps of the chosen entries: their ids and the answer's lines.
struct Recalled {
    ids: Vec<String>,
    listing: String,
}

impl Recalled {
    fn of(chosen: &[&Entry], dates: bool) -> Self {
        Recalled {
            ids: chosen.iter().map(|e| e.id.clone()).collect(),
            listing: listing(chosen, dates),
        }
    }
}

pub(crate) async fn search_memory<S: EntryStore, E: Embedder, T: Timer, L: Logger>(
    session: &ToolSession,
    store: &S,
    search: &SearchHosts<'_, E, T, L>,
    map: &Map<String, Value>,
) -> ToolAnswer {
    let query = match text_arg(map, "query") {
        TextArg::Missing => String::new(),
        TextArg::Text(t) | TextArg::NotText(t) => t,
    };
    let none = ToolAnswer::say(format!("No memories matching '{query}' found."));
    let config = &session.config.search;
    if config.mode != SearchMode::Terms {
        let viewer = session.viewer();
        let limit = usize::try_from(config.limit).unwrap_or(usize::MAX);
        let found = ranked_search(
            store,
            search,
            &session.user_id,
            &query,
            config,
            limit,
            Audience::Viewer(viewer),
        )
        .await;
        return match found {
            Ok(found) if found.is_empty() => none,
            Ok(found) => ToolAnswer::say(listing(
                &found.iter().collect::<Vec<_>>(),
                session.config.answers.dates,
            )),
            Err(e) => failed("search", &e),
        };
    }
    let terms = search_terms(&query);
    if terms.is_empty() {
        return none;
    }
    let dates = session.config.answers.dates;
    let in_place = store.with_entries(&session.user_id, |set| {
        Recalled::of(
            &set.search(&terms, &session.viewer(), limit(session)),
            dates,
        )
    });
    let found = match in_place {
        Some(found) => found,
        None => {
            let candidates = match store.search(&session.user_id, &query).await {
                Ok(Some(found)) => found,
                Ok(None) => match store.list(&session.user_id).await {
                    Ok(all) => all,
                    Err(e) => return failed("search", &e),
                },
                Err(e) => return failed("search", &e),
            };
            let matching: Vec<Entry> = shown(session, unique(candidates))
                .into_iter()
                .filter(|e| matches_terms(&terms, e))
                .collect();
            Recalled::of(
                &select_for_recall(&matching, RecallOrder::MostRecent, limit(session)),
                dates,
            )
        }
    };
    if found.ids.is_empty() {
        return none;
    }
    ToolAnswer::say(found.listing)
}

/// The recall/search answer: one `• key = value [category, visibility]` line per entry.
fn listing(entries: &[&Entry], dates: bool) -> String {
    let lines: Vec<String> = entries
        .iter()
        .map(|e| format_entry_with(e, dates))
        .collect();
    lines.join("\n")
}

pub(crate) async fn forget_fact<S: EntryStore, C: Clock>(
    session: &ToolSession,
    store: &Versioned<'_, S, C>,
    map: &Map<String, Value>,
) -> ToolAnswer {
    let key = match unreserved_key(map) {
        Ok(k) => k,
        Err(answer) => return ToolAnswer::say(answer),
    };
    let entries = match with_key(store, &session.user_id, &key).await {
        Ok(e) => e,
        Err(e) => return failed("forget", &e),
    };
    let visible: Vec<Entry> = shown(session, entries)
        .into_iter()
        .filter(|e| e.key == key)
        .collect();
    let own = visible.iter().find(|e| {
        e.visibility != "global" && e.source_agent_id.as_deref() == Some(session.agent_id.as_str())
    });
    let target = own.or_else(|| visible.iter().find(|e| e.visibility == "global"));
    let not_found = ToolAnswer::say(format!("No memory with key '{key}' found."));
    let Some(target) = target else {
        return not_found;
    };
    store.holding(target);
    match store.delete(&target.id).await {
        Ok(true) => ToolAnswer::wrote(format!("✅ Forgotten: {key}")),
        Ok(false) => not_found,
        Err(e) => failed("forget", &e),
    }
}
