//! Tool attachment (behaviour §2.3): whether the four memory tools are attached to an agent's LLM
//! task, and the warning that names every missing part.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Whether the four memory tools are attached to an agent's LLM task (behaviour §2.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAttachment {
    /// `true` only when all four conditions hold.
    pub attached: bool,
    /// Names every missing part when the tools are not attached although something asked for
    /// them; `None` when attached or when nothing asked for memory tools at all.
    pub warning: Option<String>,
}

/// Decide whether the memory tools are attached: agent `enableMemoryTools: true` **and** an agent
/// `userMemoryConfig` object **and** task `enableBuiltInTools: true` **and** the task's
/// `builtInToolsWhitelist` absent/`null` or containing `"usermemory"`.
///
/// The warning is `User memory tools not attached: <part>; <part>.` listing every missing part.
/// When none of the agent-side parts is set and the whitelist does not name `usermemory`, the
/// agent simply does not use memory tools and there is no warning (a warning on every agent would
/// be noise).
pub fn resolve_memory_tools(agent: &Value, llm_task: &Value) -> ToolAttachment {
    let flag_on = agent.get("enableMemoryTools").and_then(Value::as_bool) == Some(true);
    let has_config = agent.get("userMemoryConfig").is_some_and(Value::is_object);
    let built_ins_on = llm_task.get("enableBuiltInTools").and_then(Value::as_bool) == Some(true);
    let whitelist = llm_task
        .get("builtInToolsWhitelist")
        .filter(|v| !v.is_null());
    let names_usermemory = whitelist
        .and_then(Value::as_array)
        .is_some_and(|items| items.iter().any(|i| i.as_str() == Some("usermemory")));
    let whitelist_ok = whitelist.is_none() || names_usermemory;

    let mut missing = Vec::new();
    if !flag_on {
        missing.push("the agent's enableMemoryTools is not true");
    }
    if !has_config {
        missing.push("the agent has no userMemoryConfig");
    }
    if !built_ins_on {
        missing.push("the LLM task's enableBuiltInTools is not true");
    }
    if !whitelist_ok {
        missing.push("the LLM task's builtInToolsWhitelist does not contain \"usermemory\"");
    }
    if missing.is_empty() {
        return ToolAttachment {
            attached: true,
            warning: None,
        };
    }
    let asked = flag_on || has_config || names_usermemory;
    ToolAttachment {
        attached: false,
        warning: asked.then(|| format!("User memory tools not attached: {}.", missing.join("; "))),
    }
}
