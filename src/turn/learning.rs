//! `ContextMemory`'s `learn` option (behaviour §8.6): a turn the gate let through also learns into
//! the entry store, with one gate for the profile and the facts.
//!
//! Decisions where the behaviour reference is silent:
//! - A turn learns when the gate answered `UPDATE` (also after failing open). With the gate off,
//!   a turn learns when it reached the consolidation (it was enabled, not restricted, not blank,
//!   and its profile could be read). A `NOOP` gate makes no extraction call.
//! - The learning runs after the profile's write, outside the profile's per-user lock (it has
//!   its own), so a slow extraction never delays the next turn's profile; its outcome never
//!   changes the turn's `outcome`: it is reported beside it, as `learned`.
//! - The turn's messages are the exchange: `userMessage` as `user`, `assistantMessage` as
//!   `assistant`; `conversationId` defaults to `turn`, `at` to now.

use super::after_turn::TurnInput;
use super::answers::GateDecision;
use super::context_memory::{ContextMemory, TurnHost};
use super::report::{TurnOutcome, TurnReport};
use crate::learn::{learn_from_turn, InputMessage, LearnInput, LearnReport};
use serde_json::Value;

/// The conversation id of a turn that names none.
pub const DEFAULT_CONVERSATION_ID: &str = "turn";

impl<H: TurnHost> ContextMemory<H> {
    /// Whether the turn of `report` learns (see the module documentation).
    pub(crate) fn learns_after(&self, report: &TurnReport) -> bool {
        if self.learning.is_none() {
            return false;
        }
        match report.gate {
            Some(decision) => decision == GateDecision::Update,
            None => {
                !self.config.gate_enabled
                    && report.attempts > 0
                    && !matches!(
                        report.outcome,
                        TurnOutcome::Disabled | TurnOutcome::Restricted
                    )
            }
        }
    }

    /// Learn from the turn into the entry store; `None` when there is nothing to learn into.
    pub(crate) async fn learn(&self, input: &TurnInput) -> Option<LearnReport> {
        let config = self.learning.as_ref()?;
        let learn = self.config.learn.as_ref()?;
        let store = self.entries()?;
        let model = self.model()?;
        let messages = [
            ("user", &input.user_message),
            ("assistant", &input.assistant_message),
        ]
        .into_iter()
        .map(|(role, text)| InputMessage {
            role: Value::from(role),
            content: Value::from(text.as_str()),
        })
        .collect();
        let learn_input = LearnInput {
            user_id: input.user_id.clone(),
            agent_id: learn.agent_id.clone(),
            group_id: input.group_id.clone(),
            conversation_id: input
                .conversation_id
                .clone()
                .filter(|c| !c.trim().is_empty())
                .unwrap_or_else(|| DEFAULT_CONVERSATION_ID.to_string()),
            messages,
            at: input.at.clone(),
        };
        let hosts = self.operation_hosts(&store, Some(&model));
        match learn_from_turn(&hosts, config, &learn_input).await {
            Ok(report) => Some(report),
            Err(error) => {
                let mut report = LearnReport::failed_with(crate::secrets::error_text(&error));
                report.reason = Some(format!(
                    "{}: {}",
                    error.code,
                    report.reason.unwrap_or_default()
                ));
                Some(report)
            }
        }
    }
}
