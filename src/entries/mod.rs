//! Entry memory (SPEC §2): key/value facts about a user written by agents, scoped by visibility.

pub mod model;

pub use model::Entry;
