//! The turn pipeline of profile memory (SPEC §1.7, §1.9, §1.10): [`config`] (validated
//! `ContextMemory` configuration), [`prompts`] (gate and consolidation requests), [`parse`]
//! (reading their answers), [`pipeline`] (`ContextMemory`: load and the settings functions),
//! [`after_turn`] (the post-answer turn) and [`report`] (outcomes as data).

pub mod after_turn;
pub mod config;
pub mod parse;
pub mod pipeline;
pub mod prompts;
pub mod report;

pub use after_turn::{TurnInput, UPDATING_NOTICE};
pub use config::ContextMemoryConfig;
pub use parse::{parse_consolidation, parse_gate_decision, Consolidation, GateDecision};
pub use pipeline::{ContextMemory, TurnHosts};
pub use prompts::{build_consolidation_prompt, build_gate_prompt};
pub use report::{LoadOutcome, LoadResult, TurnOutcome, TurnReport, TurnTimings, TurnUsage};
