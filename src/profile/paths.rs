//! Storage layout (SPEC §1.1): `<rootFolder>/<userId>/memory.md`, with the user id checked before
//! any path is built from it.

use crate::error::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};

/// The default root folder.
pub const DEFAULT_ROOT_FOLDER: &str = "user-memory";

/// The profile file name inside the user's folder.
pub const MEMORY_FILE_NAME: &str = "memory.md";

/// Longest accepted user id, in UTF-8 bytes.
pub const MAX_USER_ID_BYTES: usize = 256;

/// Check an untrusted user id: `E_INVALID_USER_ID` when it is empty, `.` or `..`, contains `/`,
/// `\` or a control character, or is over 256 UTF-8 bytes.
pub fn validate_user_id(user_id: &str) -> Result<()> {
    let problem = if user_id.is_empty() {
        Some("is empty")
    } else if user_id == "." || user_id == ".." {
        Some("is `.` or `..`")
    } else if user_id.contains(['/', '\\']) {
        Some("contains `/` or `\\`")
    } else if user_id.chars().any(char::is_control) {
        Some("contains a control character")
    } else if user_id.len() > MAX_USER_ID_BYTES {
        Some("is longer than 256 bytes")
    } else {
        None
    };
    match problem {
        None => Ok(()),
        Some(problem) => Err(Error::new(
            ErrorCode::InvalidUserId,
            format!("the user id {problem}; pass the authenticated user's id, which must name a single folder"),
        )
        .with_details(serde_json::json!({ "bytes": user_id.len() }))),
    }
}

/// The profile path of a user: `<root>/<userId>/memory.md`. `root_folder` defaults to
/// `user-memory`; trailing `/` are removed. The root is configuration, but the path built from it
/// must still stay inside the host's storage: an empty root, an absolute one, a `.` or `..`
/// segment, a backslash or a control character is `E_CONFIG` (`rootFolder`). Nested roots such
/// as `memory/users` are allowed.
pub fn memory_path(user_id: &str, root_folder: Option<&str>) -> Result<String> {
    validate_user_id(user_id)?;
    let root = root_folder
        .unwrap_or(DEFAULT_ROOT_FOLDER)
        .trim_end_matches('/');
    if root.trim().is_empty() {
        return Err(Error::config(
            "rootFolder",
            "must not be empty (the default is `user-memory`)",
        ));
    }
    let bad_segment = root
        .split('/')
        .any(|segment| segment.is_empty() || segment == "." || segment == "..");
    if bad_segment || root.contains('\\') || root.chars().any(char::is_control) {
        return Err(Error::config(
            "rootFolder",
            format!("`{root}` must be a relative folder name without `.`/`..` segments, backslashes or control characters"),
        ));
    }
    Ok(format!("{root}/{user_id}/{MEMORY_FILE_NAME}"))
}

/// One root folder as the host sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RootInfo {
    /// Folder name.
    pub name: String,
    /// Whether the folder is active (not deleted or archived).
    pub active: bool,
    /// The host's id of the folder, when it has one.
    #[serde(default)]
    pub id: Option<String>,
}

/// A warning naming the duplicates when more than one active root has the configured name
/// (folder resolution is unreliable until they are renamed or removed); `None` otherwise.
pub fn check_memory_roots(roots: &[RootInfo], configured_name: &str) -> Option<String> {
    let duplicates: Vec<String> = roots
        .iter()
        .filter(|root| root.active && root.name == configured_name)
        .map(|root| match &root.id {
            Some(id) => format!("`{}` (id {id})", root.name),
            None => format!("`{}`", root.name),
        })
        .collect();
    if duplicates.len() < 2 {
        return None;
    }
    Some(format!(
        "{} active memory root folders are named `{configured_name}`: {}. Folder resolution is \
         unreliable until the duplicates are renamed or removed.",
        duplicates.len(),
        duplicates.join(", ")
    ))
}
