//! Bindings for the MCP tools' definitions (behaviour §2.8): what `memcore/server` maps onto the
//! SDK.

use super::boundary::json_out;
use memcore::entries::mcp_tools::mcp_tool_definitions;
use memcore::error::Result;
use wasm_bindgen::prelude::*;

/// The nine MCP tools `[{ name, description, inputSchema, adminOnly, confirmation }]`, JSON.
#[wasm_bindgen(js_name = mcpToolDefinitions)]
pub fn mcp_tool_definitions_json() -> Result<String> {
    json_out(&mcp_tool_definitions())
}
