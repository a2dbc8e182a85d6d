//! The arguments of one run (behaviour §3: `dream({ userId, agentId, config, now })`), decoded and
//! checked by the core: what is misuse throws (`E_CONFIG`, `E_ARGUMENT`), what a schedule can
//! get wrong (no real user, no agent, Dream disabled) is a refusal the report carries.

use super::report::{DreamError, DreamErrorCode};
use crate::entries::config::{parse_user_memory_config, UserMemoryConfig};
use crate::entries::memory_tools::store_timeout_ms;
use crate::error::{Error, Result};
use crate::json::Time;
use crate::turn::config::MAX_TIMEOUT_MS;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;

/// The user id the schedule surface assigns when none was given: never a real user.
pub const SCHEDULER_PLACEHOLDER_USER_ID: &str = "system:scheduler";

/// The default deadline of one model call, in milliseconds (the turn pipeline's).
pub const DEFAULT_MODEL_TIMEOUT_MS: u64 = 60_000;

/// The model's price in USD per million tokens. JSON: `{ "inputPerMTok": 0.15, "outputPerMTok": 0.6 }`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Price {
    /// USD per million prompt tokens.
    pub input_per_m_tok: f64,
    /// USD per million completion tokens.
    pub output_per_m_tok: f64,
}

/// What the host passes (JSON, camelCase): `{ userId, agentId, config, now, price?,
/// storeTimeoutMs?, modelTimeoutMs? }`. `userId` and `agentId` may be absent or `null` (a
/// refusal, not an error: a schedule without them is misconfigured data); `config` is the
/// agent's `userMemoryConfig`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DreamInput {
    /// The user whose memories are maintained.
    #[serde(default)]
    pub user_id: Option<String>,
    /// The firing agent: whose `dream` settings apply and whose entries are maintained.
    #[serde(default)]
    pub agent_id: Option<String>,
    /// The agent's `userMemoryConfig` (absent → defaults, where Dream is disabled).
    #[serde(default)]
    pub config: Option<Value>,
    /// The instant the run measures staleness against and stamps on what it writes.
    pub now: Time,
    /// The model's price; absent → the documented estimate rate.
    #[serde(default)]
    pub price: Option<Price>,
    /// Deadline of each store call (1 ms – 1 h, default 10 s).
    #[serde(default)]
    pub store_timeout_ms: Option<u64>,
    /// Deadline of each model call (1 ms – 1 h, default 60 s).
    #[serde(default)]
    pub model_timeout_ms: Option<u64>,
}

/// A checked run: the real ids, the parsed configuration and the deadlines.
#[derive(Debug, Clone, PartialEq)]
pub struct DreamRun {
    /// The user.
    pub user_id: String,
    /// The firing agent.
    pub agent_id: String,
    /// The agent's configuration, defaults filled.
    pub config: UserMemoryConfig,
    /// The run's instant.
    pub now: DateTime<Utc>,
    /// The model's price, if configured.
    pub price: Option<Price>,
    /// Store call deadline (ms).
    pub store_ms: u64,
    /// Model call deadline (ms).
    pub model_ms: u64,
}

/// Whether `user_id` names a real user: not absent, not blank, not the scheduler's placeholder.
pub fn is_real_user_id(user_id: Option<&str>) -> bool {
    user_id.is_some_and(|id| !id.trim().is_empty() && id != SCHEDULER_PLACEHOLDER_USER_ID)
}

impl DreamInput {
    /// Check the input. `Err` is misuse (an invalid configuration, price or deadline:
    /// `E_CONFIG` with the path); `Ok(Err(refusal))` is a run that must not start.
    pub fn check(&self) -> Result<std::result::Result<DreamRun, DreamError>> {
        let config = match &self.config {
            None | Some(Value::Null) => UserMemoryConfig::default(),
            Some(value) => parse_user_memory_config(value)?,
        };
        if let Some(price) = self.price {
            for (path, n) in [
                ("price.inputPerMTok", price.input_per_m_tok),
                ("price.outputPerMTok", price.output_per_m_tok),
            ] {
                if !(n.is_finite() && n >= 0.0) {
                    return Err(Error::config(
                        path,
                        "must be a number ≥ 0 (USD per million tokens)",
                    ));
                }
            }
        }
        let store_ms = store_timeout_ms(self.store_timeout_ms)?;
        let model_ms = self.model_timeout_ms.unwrap_or(DEFAULT_MODEL_TIMEOUT_MS);
        if !(1..=MAX_TIMEOUT_MS).contains(&model_ms) {
            return Err(Error::config(
                "modelTimeoutMs",
                format!("must be between 1 and {MAX_TIMEOUT_MS} milliseconds; got {model_ms}"),
            ));
        }
        let user = self.user_id.as_deref();
        if !is_real_user_id(user) {
            return Ok(Err(refusal(
                DreamErrorCode::NoUser,
                format!(
                    "Dream needs the real user whose memories it maintains (got {}); set `userId` on the schedule",
                    shown(user)
                ),
            )));
        }
        if let Err(refused) = crate::profile::paths::validate_user_id(user.unwrap_or_default()) {
            return Ok(Err(refusal(DreamErrorCode::NoUser, refused.message)));
        }
        let agent = self.agent_id.as_deref().filter(|a| !a.trim().is_empty());
        let Some(agent) = agent else {
            return Ok(Err(refusal(
                DreamErrorCode::NoAgent,
                "Dream needs the firing agent (`agentId`): its dream settings apply and its memories are maintained".to_string(),
            )));
        };
        if !config.dream.enabled {
            return Ok(Err(refusal(
                DreamErrorCode::Disabled,
                format!("agent '{agent}' has Dream disabled (userMemoryConfig.dream.enabled is not true), but a dream run was started for it"),
            )));
        }
        Ok(Ok(DreamRun {
            user_id: user.unwrap_or_default().to_string(),
            agent_id: agent.to_string(),
            config,
            now: self.now.0,
            price: self.price,
            store_ms,
            model_ms,
        }))
    }
}

fn shown(id: Option<&str>) -> String {
    match id {
        None => "none".to_string(),
        Some(id) => format!("'{id}'"),
    }
}

fn refusal(code: DreamErrorCode, message: String) -> DreamError {
    DreamError { code, message }
}
