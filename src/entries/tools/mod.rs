//! The four LLM tools (behaviour §2.5): `rememberFact`, `recallMemories`, `searchMemory`,
//! `forgetFact`. Answers are byte-exact strings of the behaviour reference; [`call_tool`] never
//! fails — expected problems and store failures are tool answers, so nothing throws into the model
//! loop.
//!
//! Answers the behaviour reference does not define (exact wording):
//! - unknown tool: [`unknown_tool_answer`] →
//!   `⚠️ Unknown memory tool 'X'. Available tools: rememberFact, recallMemories, searchMemory, forgetFact.`
//! - arguments that are neither an object, `null`, nor a JSON string holding an object:
//!   [`INVALID_ARGUMENTS`] → `⚠️ Invalid arguments: expected a JSON object with the tool's parameters.`
//! - key given as a JSON object or array: [`KEY_NOT_TEXT`] → `⚠️ Key must be text.`
//! - value missing, `null`, or a blank string: [`VALUE_EMPTY`] → `⚠️ Value must not be empty.`
//! - cap reached under `evict_oldest` when the agent's own entries are not enough:
//!   `⚠️ Memory capacity reached (C/M). Cannot store more facts: only K of this agent's own memories can be evicted, N needed.`
//! - processing restricted (behaviour §4.3, global `_gdpr_processing_restricted` present):
//!   [`RESTRICTED`] → `⚠️ Memory processing is restricted for this user. Nothing new is stored.`
//!
//! Argument leniency (model output is messy): a JSON *string* holding an object is parsed; a
//! number or boolean key/category/visibility/query is used as its JSON text (`42`, `true`);
//! category and visibility are trimmed and matched case-insensitively (a category is stored in
//! the configured spelling); a missing category is `fact`, a missing visibility is `self`;
//! extra arguments are ignored; values may be any JSON (strings are stored untrimmed).
//! `recallMemories` ignores its arguments entirely.
//!
//! Further decisions: `_gdpr_` entries are never listed by recall/search; `forgetFact` is not a
//! write for `maxWritesPerTurn` (it is erasure, which behaviour §4.3 keeps available even under a
//! restriction); search results use recall ordering `most_recent` and at most
//! `maxRecallEntries` lines and do not increment access counts; the capacity count is taken from
//! the `list` the write resolves against.

mod args;
mod definitions;
mod history;
mod read;
mod remember;
mod session;

pub use crate::rights::{is_restricted, RESTRICTION_KEY};
pub use definitions::{tool_definitions, tool_definitions_for};
pub use history::NO_HISTORY_KEPT;
pub use read::NO_MEMORIES;
pub use session::{
    failure_answer, unknown_tool_answer, unknown_tool_answer_for, ToolAnswer, ToolSession,
    INVALID_ARGUMENTS, KEY_EMPTY, KEY_NOT_TEXT, RESERVED, RESTRICTED, VALUE_EMPTY,
};

use super::embedding::store_vectors;
use super::history::{Author, AuthorKind, Versioned};
use super::store::EntryStore;
use crate::host::{Host, Hosts};
use args::tool_args;
pub(crate) use read::forget_fact as forget_fact_of;
use read::{forget_fact, recall_memories, search_memory};
pub(crate) use remember::remember_fact as remember_fact_of;
use remember::remember_fact;
use serde_json::Value;

/// The tool names, in definition order.
pub const TOOL_NAMES: [&str; 4] = [
    "rememberFact",
    "recallMemories",
    "searchMemory",
    "forgetFact",
];

/// The fifth tool (behaviour §8.6): the past values of one key, offered when history is on.
pub const HISTORY_TOOL: &str = "memoryHistory";

/// Whether a session with `config` offers [`HISTORY_TOOL`]: when its history is on.
pub fn offers_history(config: &super::config::UserMemoryConfig) -> bool {
    config.history.enabled
}

/// Run one tool call. Never fails: every problem is an answer (behaviour §2.5, §6). `args` is
/// `None` when the host could not read the model's arguments as JSON at all (a cycle, a getter that
/// throws): the tools that need arguments answer [`INVALID_ARGUMENTS`]. With an embedder
/// configured in `hosts`, `rememberFact` stores the vector of what it wrote and `searchMemory` in
/// `hybrid` mode embeds its query (behaviour §8.2); embedding failures never change an answer:
/// they are logged (`memory.embedding.failed`, `memory.search.lexical-only`). The tools call no
/// model.
pub async fn call_tool<S, H, M>(
    session: &mut ToolSession,
    hosts: &Hosts<'_, S, H, M>,
    name: &str,
    args: Option<&Value>,
) -> ToolAnswer
where
    S: EntryStore,
    H: Host,
{
    // Every change a tool makes is kept in the entry's history (behaviour §8.3), by this agent.
    let author = Author::new(AuthorKind::Agent, Some(&session.agent_id));
    let history = session.config.history.clone();
    let store = hosts.entries;
    let versioned = Versioned::new(store, hosts.host, &history, &author);
    match name {
        "rememberFact" => {
            let answer = remember_fact(session, &versioned, hosts.host, hosts.host, args).await;
            if let (Some(written), Some(embedding)) = (&answer.entry, &hosts.embedding()) {
                store_vectors(store, embedding, hosts.host, std::slice::from_ref(written)).await;
            }
            answer.answer
        }
        "recallMemories" => recall_memories(session, store).await,
        "searchMemory" => match tool_args(args) {
            Some(map) => search_memory(session, store, &hosts.search(), &map).await,
            None => ToolAnswer::say(INVALID_ARGUMENTS),
        },
        "forgetFact" => match tool_args(args) {
            Some(map) => forget_fact(session, &versioned, &map).await,
            None => ToolAnswer::say(INVALID_ARGUMENTS),
        },
        HISTORY_TOOL if offers_history(&session.config) => match tool_args(args) {
            Some(map) => history::memory_history(session, store, &map).await,
            None => ToolAnswer::say(INVALID_ARGUMENTS),
        },
        other => ToolAnswer::say(unknown_tool_answer_for(
            other,
            offers_history(&session.config),
        )),
    }
}
