//! Entry memory (behaviour §2): key/value facts about a user written by agents, scoped by
//! visibility.
//!
//! Modules follow the behaviour reference's concepts: [`entry`] (§2.1), [`config`] (§2.2–2.3),
//! [`visibility`] (§2.4, identity and the group context), [`search`] and [`recall`] (§2.5 matching
//! and ordering), [`tools`] (§2.5, the four LLM tools), [`write_rules`] (§2.6), [`properties`]
//! (§2.7), [`mcp_tools`] (§2.8, the MCP tools' definitions and the rules met before one runs) and
//! [`store`] (§5, the entry store trait, the indexed entry set and the in-memory store);
//! [`reserved`] is the reserved-key check on keys that come in (§8.1); [`index_columns`] derives
//! the columns a SQL store indexes (recency key, reserved flag, search text) and its search
//! prefilter from those rules.

pub mod attachment;
pub mod author;
pub mod capacity;
pub mod config;
pub mod embedding;
pub mod entry;
pub mod episode;
pub mod history;
pub mod index_columns;
pub mod limit;
pub mod mcp_tools;
pub mod memories;
pub mod memory_tools;
pub mod operations;
pub mod ownership;
pub mod properties;
pub mod recall;
pub mod relevant;
pub mod reserved;
mod reserved_folding;
pub mod restore;
pub mod search;
pub mod store;
pub mod tools;
pub mod visibility;
pub mod write_rules;

pub use config::{
    parse_user_memory_config, resolve_memory_tools, DreamConfig, Guardrails, OnCapReached,
    RecallOrder, SummarizeGroupBy, ToolAttachment, UserMemoryConfig, Visibility,
};
pub use entry::{Entry, EntryWrite};
pub use memory_tools::MemoryTools;
pub use reserved::names_reserved_key;
pub use store::{EntrySet, EntryStore, InMemoryEntryStore};
