//! Entry memory (SPEC §2): key/value facts about a user written by agents, scoped by visibility.
//!
//! Modules follow the SPEC's concepts: [`config`] (§2.2–2.3), [`visibility`] (§2.4, identity and
//! the group context), [`search`] and [`recall`] (§2.5 matching and ordering), [`tools`] (§2.5, the
//! four LLM tools), [`write_rules`] (§2.6) and [`properties`] (§2.7).

pub mod config;
pub mod entry_set;
pub mod memory_store;
pub mod memory_tools;
pub mod model;
pub mod properties;
pub mod recall;
pub mod search;
pub mod tools;
pub mod visibility;
pub mod write_rules;

pub use config::{
    parse_user_memory_config, resolve_memory_tools, DreamConfig, Guardrails, OnCapReached,
    RecallOrder, SummarizeGroupBy, ToolAttachment, UserMemoryConfig, Visibility,
};
pub use memory_store::InMemoryEntryStore;
pub use memory_tools::{MemoryTools, ToolHosts};
pub use model::Entry;
