//! Dream's counters and duration summary (behaviour §3 item 4), kept by the host across runs and
//! written in the Prometheus text format (0.0.4): Micrometer's `dream.*` meters under a prefix
//! (default `memcore_`; a host with dashboards on other names passes its own, e.g. `eddi_`), dots
//! as underscores, counters with `_total`, the duration in seconds as a summary (`_count`, `_sum`)
//! plus its `_max` gauge.

use super::report::DreamReport;
use crate::error::Error;
use std::cell::Cell;
use std::fmt::Write;

/// The prefix of every metric name unless the host chooses another.
pub const DEFAULT_METRIC_PREFIX: &str = "memcore_";

/// Whether `prefix` can begin a Prometheus metric name: `[a-zA-Z_:][a-zA-Z0-9_:]*`, non-empty,
/// at most 64 bytes.
pub fn is_metric_prefix(prefix: &str) -> bool {
    let mut bytes = prefix.bytes();
    match bytes.next() {
        Some(b) if b.is_ascii_alphabetic() || b == b'_' || b == b':' => {}
        _ => return false,
    }
    prefix.len() <= 64 && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b':')
}

/// Counters across runs. Single-threaded (wasm): plain cells.
#[derive(Debug)]
pub struct DreamMetrics {
    prefix: String,
    users_processed: Cell<u64>,
    entries_pruned: Cell<u64>,
    contradictions_found: Cell<u64>,
    entries_summarized: Cell<u64>,
    cycles_failed: Cell<u64>,
    summarization_failed: Cell<u64>,
    duration_count: Cell<u64>,
    duration_sum_ms: Cell<u64>,
    duration_max_ms: Cell<u64>,
}

/// The values of [`DreamMetrics`] at one moment. JSON (camelCase): `{ usersProcessed, … }`.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricsSnapshot {
    /// Runs that processed a user (refused and restricted runs do not count).
    pub users_processed: u64,
    /// Stale entries deleted.
    pub entries_pruned: u64,
    /// Contradictions found.
    pub contradictions_found: u64,
    /// Net entries removed by consolidation.
    pub entries_summarized: u64,
    /// Runs that were refused or ended with an error.
    pub cycles_failed: u64,
    /// Summarisation model calls that failed (transient or not).
    pub summarization_failed: u64,
    /// Processed runs timed.
    pub duration_count: u64,
    /// Their total duration, in seconds.
    pub duration_sum_seconds: f64,
    /// The longest, in seconds.
    pub duration_max_seconds: f64,
}

fn add(cell: &Cell<u64>, n: u64) {
    cell.set(cell.get().saturating_add(n));
}

impl Default for DreamMetrics {
    fn default() -> Self {
        Self {
            prefix: DEFAULT_METRIC_PREFIX.to_owned(),
            users_processed: Cell::default(),
            entries_pruned: Cell::default(),
            contradictions_found: Cell::default(),
            entries_summarized: Cell::default(),
            cycles_failed: Cell::default(),
            summarization_failed: Cell::default(),
            duration_count: Cell::default(),
            duration_sum_ms: Cell::default(),
            duration_max_ms: Cell::default(),
        }
    }
}

impl DreamMetrics {
    /// Fresh counters named `memcore_dream_*`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Fresh counters named `<prefix>dream_*` (e.g. `"eddi_"`); a prefix that
    /// cannot begin a Prometheus name is an `E_ARGUMENT` error.
    pub fn with_prefix(prefix: &str) -> Result<Self, Error> {
        if !is_metric_prefix(prefix) {
            return Err(Error::argument(
                "DreamMetrics",
                "options.prefix",
                "a Prometheus name prefix like \"memcore_\" ([a-zA-Z_:][a-zA-Z0-9_:]*, at most 64 bytes)",
            ));
        }
        Ok(Self {
            prefix: prefix.to_owned(),
            ..Self::default()
        })
    }

    /// The prefix of the metric names.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Count one run from its report: `processed` when the run got past its checks and the
    /// restriction (its duration is then observed).
    pub fn record(&self, report: &DreamReport, processed: bool, model_failures: u64) {
        add(&self.entries_pruned, report.pruned);
        add(
            &self.contradictions_found,
            report.contradictions.len() as u64,
        );
        add(&self.entries_summarized, report.summarized);
        add(&self.summarization_failed, model_failures);
        if report.error.is_some() {
            add(&self.cycles_failed, 1);
        }
        if processed {
            add(&self.users_processed, 1);
            add(&self.duration_count, 1);
            add(&self.duration_sum_ms, report.duration_ms);
            self.duration_max_ms
                .set(self.duration_max_ms.get().max(report.duration_ms));
        }
    }

    /// The current values.
    pub fn snapshot(&self) -> MetricsSnapshot {
        MetricsSnapshot {
            users_processed: self.users_processed.get(),
            entries_pruned: self.entries_pruned.get(),
            contradictions_found: self.contradictions_found.get(),
            entries_summarized: self.entries_summarized.get(),
            cycles_failed: self.cycles_failed.get(),
            summarization_failed: self.summarization_failed.get(),
            duration_count: self.duration_count.get(),
            duration_sum_seconds: self.duration_sum_ms.get() as f64 / 1000.0,
            duration_max_seconds: self.duration_max_ms.get() as f64 / 1000.0,
        }
    }

    /// The Prometheus text exposition (format 0.0.4): `# HELP` and `# TYPE` lines, then the
    /// samples, every line ending in `\n`.
    pub fn prometheus(&self) -> String {
        let s = self.snapshot();
        let p = &self.prefix;
        let mut out = String::new();
        let counters = [
            (
                "users_processed",
                "Users whose memories a Dream cycle processed.",
                s.users_processed,
            ),
            (
                "entries_pruned",
                "Stale memory entries deleted by Dream.",
                s.entries_pruned,
            ),
            (
                "contradictions_found",
                "Keys whose entries hold distinct values, found by Dream.",
                s.contradictions_found,
            ),
            (
                "entries_summarized",
                "Memory entries removed by Dream consolidation (net).",
                s.entries_summarized,
            ),
            (
                "cycles_failed",
                "Dream cycles refused or ended with an error.",
                s.cycles_failed,
            ),
            (
                "summarization_failed",
                "Dream summarisation model calls that failed.",
                s.summarization_failed,
            ),
        ];
        for (name, help, value) in counters {
            let _ = write!(
                out,
                "# HELP {p}dream_{name}_total {help}\n# TYPE {p}dream_{name}_total counter\n{p}dream_{name}_total {value}\n"
            );
        }
        let _ = write!(
            out,
            "# HELP {p}dream_duration_seconds Duration of Dream cycles.\n\
             # TYPE {p}dream_duration_seconds summary\n\
             {p}dream_duration_seconds_count {}\n\
             {p}dream_duration_seconds_sum {}\n\
             # HELP {p}dream_duration_seconds_max The longest Dream cycle.\n\
             # TYPE {p}dream_duration_seconds_max gauge\n\
             {p}dream_duration_seconds_max {}\n",
            s.duration_count, s.duration_sum_seconds, s.duration_max_seconds
        );
        out
    }
}
