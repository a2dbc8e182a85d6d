//! The `ContextMemory` configuration (SPEC §1.4, §1.7, issue 4): every field optional, validated
//! with an `E_CONFIG` error that names the field path.

use crate::error::{Error, Result};
use crate::profile::fit::{validate_max_tokens, DEFAULT_MAX_TOKENS};
use crate::profile::paths::DEFAULT_ROOT_FOLDER;
use crate::profile::tokens::Encoding;
use serde::{Deserialize, Serialize};

/// The default number of re-consolidations after a version conflict.
pub const DEFAULT_MAX_CONFLICT_RETRIES: u32 = 3;
/// The largest accepted `maxConflictRetries`: each retry is a model call.
pub const MAX_CONFLICT_RETRIES_LIMIT: u32 = 20;

/// Configuration of [`super::ContextMemory`]. JSON (all optional):
/// `{ "maxTokens": 2000, "gateEnabled": true, "rootFolder": "user-memory",
///    "encoding": "o200k_base", "reasoningModel": false, "maxConflictRetries": 3 }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ContextMemoryConfig {
    /// The profile budget in tokens, whole file counted (500–8000).
    pub max_tokens: usize,
    /// Whether the cheap UPDATE/NOOP gate runs before a consolidation.
    pub gate_enabled: bool,
    /// The storage root folder (not empty, no `..` segment).
    pub root_folder: String,
    /// The built-in encoding the host's counter is expected to match (`o200k_base` or
    /// `cl100k_base`); the counter itself is passed to [`super::ContextMemory::new`].
    pub encoding: String,
    /// The model thinks before answering: the gate gets 64 output tokens instead of 4.
    pub reasoning_model: bool,
    /// How often a turn re-reads and re-consolidates after losing a conditional write (0–20).
    pub max_conflict_retries: u32,
}

impl Default for ContextMemoryConfig {
    fn default() -> Self {
        ContextMemoryConfig {
            max_tokens: DEFAULT_MAX_TOKENS,
            gate_enabled: true,
            root_folder: DEFAULT_ROOT_FOLDER.to_string(),
            encoding: Encoding::default().name().to_string(),
            reasoning_model: false,
            max_conflict_retries: DEFAULT_MAX_CONFLICT_RETRIES,
        }
    }
}

impl ContextMemoryConfig {
    /// Check every field; the first problem is an `E_CONFIG` error naming its field path.
    pub fn validate(&self) -> Result<()> {
        validate_max_tokens(self.max_tokens)?;
        let root = self.root_folder.trim_end_matches('/');
        if root.trim().is_empty() {
            return Err(Error::config(
                "rootFolder",
                "must not be empty (the default is `user-memory`)",
            ));
        }
        if root.split(['/', '\\']).any(|segment| segment == "..") {
            return Err(Error::config(
                "rootFolder",
                "must not contain a `..` segment; name a folder inside the storage",
            ));
        }
        if root.chars().any(char::is_control) {
            return Err(Error::config(
                "rootFolder",
                "must not contain control characters",
            ));
        }
        if Encoding::parse(&self.encoding).is_err() {
            return Err(Error::config(
                "encoding",
                format!(
                    "must be `o200k_base` or `cl100k_base`; got `{}`",
                    self.encoding
                ),
            ));
        }
        if self.max_conflict_retries > MAX_CONFLICT_RETRIES_LIMIT {
            return Err(Error::config(
                "maxConflictRetries",
                format!(
                    "must be between 0 and {MAX_CONFLICT_RETRIES_LIMIT} (default \
                     {DEFAULT_MAX_CONFLICT_RETRIES}); got {}",
                    self.max_conflict_retries
                ),
            ));
        }
        Ok(())
    }
}
