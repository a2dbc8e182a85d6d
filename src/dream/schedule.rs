//! Checking a Dream schedule before it is stored (behaviour §3): it is marked
//! `metadata.dreamType == "dream_consolidation"`, names a real `userId` (the cycle consolidates
//! exactly that user's memories) and the firing `agentId`; it needs no message (it dispatches to
//! Dream, not to a conversation). The cron expression belongs to the schedule — the agent's
//! `dream.schedule` is only a hint and is never read — so a `cronExpression`, when present, must
//! be a non-blank string (its syntax is the scheduler's to check).

use super::input::{is_real_user_id, SCHEDULER_PLACEHOLDER_USER_ID};
use crate::entries::write_rules::Violation;
use serde_json::Value;

/// The `metadata.dreamType` marker of a Dream schedule.
pub const DREAM_SCHEDULE_TYPE: &str = "dream_consolidation";

fn violation(field: &str, message: String) -> Violation {
    Violation {
        field: field.to_string(),
        message,
    }
}

/// Every problem of a Dream schedule, in field order (empty → valid).
pub fn validate_dream_schedule(schedule: &Value) -> Vec<Violation> {
    let Some(map) = schedule.as_object() else {
        return vec![violation("", "must be a JSON object".to_string())];
    };
    let mut problems = Vec::new();
    let marker = map
        .get("metadata")
        .and_then(|m| m.get("dreamType"))
        .and_then(Value::as_str);
    if marker != Some(DREAM_SCHEDULE_TYPE) {
        problems.push(violation(
            "metadata.dreamType",
            format!("must be \"{DREAM_SCHEDULE_TYPE}\" for a Dream schedule"),
        ));
    }
    let user = map.get("userId").and_then(Value::as_str);
    if !is_real_user_id(user) {
        problems.push(violation(
            "userId",
            format!("is required: the real user whose memories the cycle consolidates (not blank, not '{SCHEDULER_PLACEHOLDER_USER_ID}')"),
        ));
    }
    let agent = map.get("agentId").and_then(Value::as_str);
    if agent.map_or(true, |a| a.trim().is_empty()) {
        problems.push(violation(
            "agentId",
            "is required: the agent whose userMemoryConfig.dream settings the cycle applies"
                .to_string(),
        ));
    }
    match map.get("cronExpression") {
        None | Some(Value::Null) => {}
        Some(Value::String(cron)) if !cron.trim().is_empty() => {}
        Some(_) => problems.push(violation(
            "cronExpression",
            "must be a non-blank cron expression when given".to_string(),
        )),
    }
    problems
}
