//! The harness shared by memcore's fuzz targets (`fuzz_targets/`, driven by `scripts/fuzz.sh`;
//! docs/internals/fuzzing.md).
//!
//! Every target runs its work through [`check`], which holds each input to three properties
//! beyond the target's own: no panic (libFuzzer saves the input of any panic or abort), and work
//! **linear in the input**, measured on every input — the bytes and the number of allocations the
//! call makes (a counting global allocator, [`CountingAlloc`]) and its wall time — against bounds
//! of the form `A * input_len + B` ([`Bound`]). A quadratic loop that allocates shows at a few
//! KiB; one that does not allocate shows in time at the lengths the long run reaches (the time
//! bound is loose and re-measured before it fails, so a noisy machine does not fail it). The
//! slowest input of a run and the peak work per input byte are written to the directory named
//! by `MEMCORE_FUZZ_REPORT`, for the driver's summary; with `MEMCORE_FUZZ_TRACE` set, each input
//! is timed at least twice (the fastest counts) and its work printed to stderr (the driver's run
//! of the hostile inputs, which compares the work of one input family at two sizes).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Instant;

static BYTES: AtomicU64 = AtomicU64::new(0);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

/// The system allocator, counting what the fuzzed call asks of it: every allocation's bytes,
/// and every growing reallocation as a new allocation of its new size (a copy of that size, at
/// worst). Shrinking and freeing cost nothing. libFuzzer's own C++ allocations bypass it.
pub struct CountingAlloc;

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; the counters
// are plain atomics and never allocate.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded as received (see above).
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded as received.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as received.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: forwarded as received.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// The work one call did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Work {
    /// Bytes allocated (growing reallocations counted at their new size).
    pub bytes: u64,
    /// Allocations (growing reallocations included).
    pub allocations: u64,
    /// Wall time, in nanoseconds.
    pub nanos: u64,
}

/// The most work a call may do for an input of `len` bytes: `per_byte * len + base`, for bytes
/// allocated and for allocations. Each target calibrates its own (the constants and how they were
/// chosen are in docs/internals/fuzzing.md): ample for the linear work its inputs cost, far too small for
/// quadratic work at the lengths the fuzzer reaches.
#[derive(Debug, Clone, Copy)]
pub struct Bound {
    /// Bytes allocated per input byte.
    pub bytes_per_byte: u64,
    /// Bytes allocated for any input (fixed costs: tables, a seeded store, messages).
    pub bytes_base: u64,
    /// Allocations per input byte.
    pub allocations_per_byte: u64,
    /// Allocations for any input.
    pub allocations_base: u64,
}

/// Wall time any call may take, in nanoseconds, whatever its length (start-up of a lazily built
/// table, a preempted process on a shared machine).
pub const TIME_BASE_NANOS: u64 = 250_000_000;

/// Wall time per input byte, in nanoseconds. Built for fuzzing (coverage counters, comparison
/// tracing, debug assertions) the targets run 20–30× slower than in release: up to ~5 µs per byte
/// was measured on the 1 MiB hostile inputs of a loaded machine (~30–170 ns per byte
/// uninstrumented), so 20 µs is a margin of 4×. It is a backstop against gross super-linear time (quadratic work
/// on 1 MiB is 10¹² steps: far beyond the 21 s this allows); the precise check of time is the
/// driver's comparison of one hostile family at two sizes, and of work the allocation bounds.
pub const TIME_PER_BYTE_NANOS: u64 = 20_000;

/// How often a call that overran the time bound is re-measured before it fails: the fastest of
/// the runs counts, so one preemption is not a finding.
pub const TIME_RETRIES: usize = 3;

/// Inputs shorter than this do not enter the peak work-per-byte report (their work is mostly the
/// fixed `base`).
pub const PEAK_MIN_LEN: usize = 4096;

/// Run `body(data)` measured, hold its work to `bound` and to the time bound, and report it.
/// Panics (a finding libFuzzer saves) when a bound is exceeded.
pub fn check(target: &str, data: &[u8], bound: &Bound, body: impl Fn(&[u8])) {
    let work = measure(|| body(data));
    let len = data.len() as u64;
    let max_bytes = bound.bytes_per_byte * len + bound.bytes_base;
    let max_allocations = bound.allocations_per_byte * len + bound.allocations_base;
    assert!(
        work.bytes <= max_bytes,
        "{target}: super-linear allocation: {} bytes for a {len}-byte input (bound {max_bytes} = {} * len + {})",
        work.bytes,
        bound.bytes_per_byte,
        bound.bytes_base
    );
    assert!(
        work.allocations <= max_allocations,
        "{target}: super-linear allocation count: {} allocations for a {len}-byte input (bound {max_allocations} = {} * len + {})",
        work.allocations,
        bound.allocations_per_byte,
        bound.allocations_base
    );
    let trace = std::env::var_os("MEMCORE_FUZZ_TRACE").is_some();
    // Time is held to its bound only when asked (the long run of `make bench`): the tests'
    // verdicts never depend on how busy the machine is; work is counted, not timed.
    let timed = std::env::var_os("MEMCORE_FUZZ_TIME").is_some();
    let max_nanos = TIME_PER_BYTE_NANOS * len + TIME_BASE_NANOS;
    let mut nanos = work.nanos;
    let at_least = usize::from(trace);
    for run in 0..TIME_RETRIES {
        if (nanos <= max_nanos || !timed) && run >= at_least {
            break;
        }
        nanos = nanos.min(measure(|| body(data)).nanos);
    }
    assert!(
        !timed || nanos <= max_nanos,
        "{target}: super-linear time: {nanos} ns (fastest of {} runs) for a {len}-byte input (bound {max_nanos} ns)",
        TIME_RETRIES + 1
    );
    let work = Work { nanos, ..work };
    if trace {
        // One line the driver reads (scripts/fuzz.sh compares the work of two sizes).
        eprintln!(
            "memcore-fuzz work: len={len} bytes={} allocations={} nanos={}",
            work.bytes, work.allocations, work.nanos
        );
    }
    report(data, work);
}

/// The work of one call of `f`.
pub fn measure(f: impl FnOnce()) -> Work {
    let bytes = BYTES.load(Ordering::Relaxed);
    let allocations = ALLOCATIONS.load(Ordering::Relaxed);
    let start = Instant::now();
    f();
    let nanos = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
    Work {
        bytes: BYTES.load(Ordering::Relaxed) - bytes,
        allocations: ALLOCATIONS.load(Ordering::Relaxed) - allocations,
        nanos,
    }
}

/// The extremes seen so far in this process.
struct Extremes {
    slowest_nanos: u64,
    peak_bytes_per_byte: f64,
    peak_allocations_per_byte: f64,
}

static EXTREMES: Mutex<Extremes> = Mutex::new(Extremes {
    slowest_nanos: 0,
    peak_bytes_per_byte: 0.0,
    peak_allocations_per_byte: 0.0,
});

/// Write a new extreme to `$MEMCORE_FUZZ_REPORT`: `slowest` (the input) and `slowest.txt`, and
/// `peak.txt` (the most bytes and allocations per input byte among inputs of at least
/// [`PEAK_MIN_LEN`] bytes). New extremes are rare after the first seconds, so this costs nothing.
fn report(data: &[u8], work: Work) {
    let Ok(dir) = std::env::var("MEMCORE_FUZZ_REPORT") else {
        return;
    };
    let Ok(mut extremes) = EXTREMES.lock() else {
        return;
    };
    let dir = std::path::Path::new(&dir);
    if work.nanos > extremes.slowest_nanos {
        extremes.slowest_nanos = work.nanos;
        // A report is best effort: a full disk must not read as a finding.
        let _ = std::fs::write(dir.join("slowest"), data);
        let _ = std::fs::write(
            dir.join("slowest.txt"),
            format!(
                "nanos={} len={} bytes={} allocations={}\n",
                work.nanos,
                data.len(),
                work.bytes,
                work.allocations
            ),
        );
    }
    if data.len() >= PEAK_MIN_LEN {
        let len = data.len() as f64;
        let bytes = work.bytes as f64 / len;
        let allocations = work.allocations as f64 / len;
        if bytes > extremes.peak_bytes_per_byte || allocations > extremes.peak_allocations_per_byte
        {
            extremes.peak_bytes_per_byte = extremes.peak_bytes_per_byte.max(bytes);
            extremes.peak_allocations_per_byte =
                extremes.peak_allocations_per_byte.max(allocations);
            let _ = std::fs::write(
                dir.join("peak.txt"),
                format!(
                    "bytes_per_byte={:.2} allocations_per_byte={:.3}\n",
                    extremes.peak_bytes_per_byte, extremes.peak_allocations_per_byte
                ),
            );
        }
    }
}

/// The input as text. The boundary only ever receives valid UTF-8 (JS strings); invalid bytes
/// become U+FFFD so every input still reaches the parser.
pub fn text_of(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

struct NoopWake;

impl Wake for NoopWake {
    fn wake(self: std::sync::Arc<Self>) {}
}

/// Run a future that is ready at once (the core's async code over the in-memory store, as the
/// integration tests drive it). Panics if it is not: that would be a harness bug.
pub fn ready<F: Future>(future: F) -> F::Output {
    let waker = Waker::from(std::sync::Arc::new(NoopWake));
    let mut future = std::pin::pin!(future);
    match future.as_mut().poll(&mut Context::from_waker(&waker)) {
        Poll::Ready(value) => value,
        Poll::Pending => panic!("an in-memory call was not ready at once"),
    }
}

/// A clock that moves one second forward on every read, from 2026-01-01T00:00:00Z.
pub struct SteppingClock(Cell<i64>);

impl Default for SteppingClock {
    fn default() -> Self {
        SteppingClock(Cell::new(1_767_225_600))
    }
}

impl memcore::host::Clock for SteppingClock {
    fn now(&self) -> chrono::DateTime<chrono::Utc> {
        let seconds = self.0.get();
        self.0.set(seconds + 1);
        chrono::DateTime::from_timestamp(seconds, 0).unwrap_or_default()
    }
}

/// Entry ids `id1`, `id2`, …
#[derive(Default)]
pub struct CountingIds(Cell<u64>);

impl memcore::host::IdSource for CountingIds {
    fn new_id(&self) -> String {
        self.0.set(self.0.get() + 1);
        format!("id{}", self.0.get())
    }
}

/// JSON values equal up to float rounding: serde_json (without its `float_roundtrip` feature)
/// may read a float written by another float's shortest form one unit in the last place off, so
/// a round trip through text is compared with this, not `==`.
pub fn same_json(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            _ if x == y => true,
            (Some(x), Some(y)) => (x - y).abs() <= f64::EPSILON * 4.0 * x.abs().max(y.abs()),
            _ => false,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && same_json(vx, vy))
        }
        _ => a == b,
    }
}
