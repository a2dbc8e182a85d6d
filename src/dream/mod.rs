//! Dream maintenance (behaviour §3): background upkeep of one user's entries for one firing agent —
//! stale pruning, contradiction detection (read-only) and model-driven summarisation — with
//! every safety guarantee of behaviour §3 item 3, a report as data and Prometheus metrics.
//!
//! Modules follow the behaviour reference's concepts: [`input`] (the arguments and the refusals),
//! [`plan`] (pure: scope, stale entries, contradictions, groups with their [`prompt`]s), [`answer`]
//! (reading the model's JSON), [`writes`] (an answer → the exact ordered writes), [`apply`] (the
//! checked sequence over the store, with rollback), [`cost`] (cost per call, transient
//! failures), [`run`] (one run), [`report`], [`metrics`] and [`schedule`] (validating a Dream
//! schedule).

pub mod answer;
pub mod apply;
pub mod cost;
pub mod input;
pub mod log;
pub mod metrics;
pub mod plan;
pub mod prompt;
pub mod report;
pub mod run;
pub mod schedule;
pub mod writes;

pub use input::{DreamInput, Price};
pub use metrics::{is_metric_prefix, DreamMetrics, MetricsSnapshot, DEFAULT_METRIC_PREFIX};
pub use report::{
    Contradiction, DreamError, DreamErrorCode, DreamReport, SkipReason, SkippedGroup,
};
pub use run::dream;
pub use schedule::validate_dream_schedule;
