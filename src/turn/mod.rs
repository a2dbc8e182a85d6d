//! The turn pipeline of profile memory (behaviour §1.7, §1.9, §1.10): [`config`] (validated
//! `ContextMemory` configuration), [`prompts`] (gate and consolidation requests), [`answers`]
//! (reading their answers), [`context_memory`] (`ContextMemory`: load and the settings functions),
//! [`after_turn`] (the post-answer turn) and [`report`] (outcomes as data).

pub mod after_turn;
pub mod answers;
pub mod config;
pub mod context_memory;
#[cfg(feature = "entry-memory")]
mod learning;
pub mod prompts;
pub mod report;

pub use after_turn::{TurnInput, UPDATING_NOTICE};
pub use answers::{parse_consolidation, parse_gate_decision, Consolidation, GateDecision};
pub use config::ContextMemoryConfig;
pub use context_memory::{ContextMemory, LoadInput, NoEntries, TurnHost};
pub use prompts::{build_consolidation_prompt, build_consolidation_prompt_at, build_gate_prompt};
pub use report::{LoadOutcome, LoadResult, TurnOutcome, TurnReport, TurnTimings, TurnUsage};
