//! Legacy migration and privacy (behaviour §4): [`credentials`] (§4.2: detection and redaction) and
//! [`legacy`] (§4.1: the v5 properties migration, and the cleanup of entries an older migration
//! copied). Erasure, restriction and export (§4.3, GDPR Art. 15–20) are built elsewhere.

pub mod credentials;
pub mod legacy;

pub use credentials::{detect_credential, redact_text, redact_value, CredentialKind, Detection};
pub use legacy::{
    apply_properties_migration, plan_legacy_cleanup, plan_properties_migration, CleanupPlan,
    MigrationOptions, MigrationPlan, MigrationReport,
};
