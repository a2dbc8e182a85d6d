//! Storage layout (behaviour §1.1): `<rootFolder>/<userId>/memory.md`, with the user id checked
//! before any path is built from it.

use crate::error::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};

/// The default root folder.
pub const DEFAULT_ROOT_FOLDER: &str = "user-memory";

/// The profile file name inside the user's folder.
pub const MEMORY_FILE_NAME: &str = "memory.md";

/// Longest accepted user id, in UTF-8 bytes: the longest file name every bundled storage can
/// hold (Linux, macOS and Windows file systems allow 255).
pub const MAX_USER_ID_BYTES: usize = 255;

/// Windows device names, which cannot name a folder there (with or without an extension).
const WINDOWS_DEVICE_NAMES: [&str; 4] = ["con", "prn", "aux", "nul"];

/// Check an untrusted user id (behaviour §1.1): `E_INVALID_USER_ID` when it
/// - is empty or only whitespace, or starts or ends with whitespace (folder names that differ
///   only in edge whitespace are indistinguishable to people, and Windows drops trailing spaces);
/// - is `.` or `..`, or contains `/`, `\` or a control character;
/// - is over 255 UTF-8 bytes;
/// - is a Windows device name (`CON`, `PRN`, `AUX`, `NUL`, `COM0`–`COM9`, `LPT0`–`LPT9`, any case,
///   also followed by an extension such as `nul.txt`), which no Windows folder can have.
///
/// Not refused, on purpose: other punctuation (`auth0|5f7c…`, `system:x` and e-mail addresses are
/// real ids), and Unicode spellings that differ only in normalisation (NFC `é` vs NFD `e` +
/// U+0301): ids are compared byte for byte, and normalising them would need Unicode tables in the
/// wasm. A host whose ids are not already canonical normalises them before passing them (for
/// example `id.normalize('NFC')`); on a file system that normalises names (macOS) two spellings
/// would otherwise reach the same folder.
pub fn validate_user_id(user_id: &str) -> Result<()> {
    let problem = if user_id.trim().is_empty() {
        Some("is empty or only whitespace")
    } else if user_id.trim() != user_id {
        Some("starts or ends with whitespace")
    } else if user_id == "." || user_id == ".." {
        Some("is `.` or `..`")
    } else if user_id.contains(['/', '\\']) {
        Some("contains `/` or `\\`")
    } else if user_id.chars().any(char::is_control) {
        Some("contains a control character")
    } else if user_id.len() > MAX_USER_ID_BYTES {
        Some("is longer than 255 bytes")
    } else if is_windows_device_name(user_id) {
        Some("is a reserved device name on Windows")
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

fn is_windows_device_name(name: &str) -> bool {
    let stem = name.split('.').next().unwrap_or(name).trim_end();
    let lower = stem.to_ascii_lowercase();
    if WINDOWS_DEVICE_NAMES.contains(&lower.as_str()) {
        return true;
    }
    let bytes = lower.as_bytes();
    bytes.len() == 4
        && (lower.starts_with("com") || lower.starts_with("lpt"))
        && bytes.get(3).is_some_and(u8::is_ascii_digit)
}

/// Check a configured root folder (behaviour §1.1) and return it without trailing `/`: `E_CONFIG`
/// (`rootFolder`) when it is empty, absolute, contains an empty, `.` or `..` segment, a backslash
/// or a control character. Nested roots such as `memory/users` are allowed. The same rule serves
/// [`memory_path`] and the `ContextMemory` configuration.
pub fn validate_root_folder(root_folder: &str) -> Result<&str> {
    let root = root_folder.trim_end_matches('/');
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
    Ok(root)
}

/// The profile path of a user: `<root>/<userId>/memory.md`. `root_folder` defaults to
/// `user-memory` and is checked by [`validate_root_folder`]; the id by [`validate_user_id`].
pub fn memory_path(user_id: &str, root_folder: Option<&str>) -> Result<String> {
    validate_user_id(user_id)?;
    let root = validate_root_folder(root_folder.unwrap_or(DEFAULT_ROOT_FOLDER))?;
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
/// (folder resolution is unreliable until they are renamed or removed); `None` otherwise. No
/// configured name → [`DEFAULT_ROOT_FOLDER`].
pub fn check_memory_roots(roots: &[RootInfo], configured_name: Option<&str>) -> Option<String> {
    let configured_name = configured_name.unwrap_or(DEFAULT_ROOT_FOLDER);
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
