//! The profile side of the rights (behaviour §4.3): erase, export and import of a user's profile
//! `memory.md` in a profile store. The rules live here once; [`crate::turn::ContextMemory`] runs
//! them over its own storage (adding what only it knows: turns of the user still running write
//! nothing after an erase), and [`StoredProfiles`] runs them over any profile store — the SQL
//! stores, which are entry store and profile storage in one object, serve both sides of a request.

use crate::error::Result;
use crate::host::{ProfileStore, WriteOptions};
use crate::profile::paths::{memory_path, validate_root_folder, DEFAULT_ROOT_FOLDER};
use serde::Serialize;

/// The profile side of the rights, implemented by [`crate::turn::ContextMemory`] and by
/// [`StoredProfiles`].
#[allow(async_fn_in_trait)]
pub trait ProfileRights {
    /// Remove the profile and the user's folder.
    async fn erase_profile(&self, user_id: &str) -> Result<ProfileErasure>;
    /// The stored profile text, `None` without one.
    async fn export_profile(&self, user_id: &str) -> Result<Option<String>>;
    /// Write an exported text, create-only.
    async fn import_profile(&self, user_id: &str, text: &str) -> Result<()>;
    /// Where the user's profile is stored (an atomic import writes it with the entries when the
    /// entry store is this profile storage).
    fn profile_path(&self, user_id: &str) -> Result<String>;
}

/// What erasing a profile removed. JSON: `{ "removed", "folderRemoved" }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileErasure {
    /// A profile existed and was removed.
    pub removed: bool,
    /// The storage removed the user's folder.
    pub folder_removed: bool,
}

/// The profiles of a plain profile store under one root folder (`<root>/<userId>/memory.md`).
#[derive(Debug, Clone)]
pub struct StoredProfiles<S> {
    store: S,
    root_folder: String,
}

impl<S: ProfileStore> StoredProfiles<S> {
    /// The profiles of `store` under `root_folder` (default `user-memory`), checked by the
    /// root-folder rule of [`memory_path`] (`E_CONFIG`, path `rootFolder`).
    pub fn new(store: S, root_folder: Option<&str>) -> Result<Self> {
        let root = validate_root_folder(root_folder.unwrap_or(DEFAULT_ROOT_FOLDER))?;
        Ok(StoredProfiles {
            root_folder: root.to_string(),
            store,
        })
    }
}

impl<S: ProfileStore> ProfileRights for StoredProfiles<S> {
    async fn erase_profile(&self, user_id: &str) -> Result<ProfileErasure> {
        erase_profile(&self.store, &self.root_folder, user_id).await
    }
    async fn export_profile(&self, user_id: &str) -> Result<Option<String>> {
        export_profile(&self.store, &self.root_folder, user_id).await
    }
    async fn import_profile(&self, user_id: &str, text: &str) -> Result<()> {
        import_profile(&self.store, &self.root_folder, user_id, text).await
    }
    fn profile_path(&self, user_id: &str) -> Result<String> {
        memory_path(user_id, Some(&self.root_folder))
    }
}

/// Remove the profile at `path`; `true` when one existed (missing is not an error).
pub async fn remove_profile<S: ProfileStore>(store: &S, path: &str) -> Result<bool> {
    let existed = store.read(path).await?.is_some();
    store.remove(path).await?;
    Ok(existed)
}

/// Art. 17: remove the user's `memory.md`, then the user's folder where the storage has folders.
pub async fn erase_profile<S: ProfileStore>(
    store: &S,
    root_folder: &str,
    user_id: &str,
) -> Result<ProfileErasure> {
    let path = memory_path(user_id, Some(root_folder))?;
    let removed = remove_profile(store, &path).await?;
    let folder = path.strip_suffix("/memory.md").unwrap_or(&path);
    let folder_removed = store.remove_folder(folder).await?;
    Ok(ProfileErasure {
        removed,
        folder_removed,
    })
}

/// Art. 15/20: the stored profile text byte for byte, `None` without one.
pub async fn export_profile<S: ProfileStore>(
    store: &S,
    root_folder: &str,
    user_id: &str,
) -> Result<Option<String>> {
    let path = memory_path(user_id, Some(root_folder))?;
    Ok(store.read(&path).await?.map(|stored| stored.text))
}

/// Restore an exported profile text as is, create-only: a user who already has a profile gets
/// `E_VERSION_CONFLICT` (import restores into an empty store).
pub async fn import_profile<S: ProfileStore>(
    store: &S,
    root_folder: &str,
    user_id: &str,
    text: &str,
) -> Result<()> {
    let path = memory_path(user_id, Some(root_folder))?;
    store.ensure_root(root_folder).await?;
    store
        .write(&path, text, &WriteOptions::create_only())
        .await
        .map(drop)
}
