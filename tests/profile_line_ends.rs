//! Parsing and rendering cost work linear in the text for every line-end style (issue 19: a
//! text whose lines end in `\r` was quadratic through the package). Measured as bytes and
//! allocations, not time: this test binary counts every allocation. The JS half of the same
//! property (the transport rebuilding lines from positions) is `tests/js/probe-core.test.mjs`.

use memcore::profile::*;
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// A profile of about `bytes` whose lines end in `end` (or, for `"mixed"`, in each style in
/// turn).
fn profile(bytes: usize, end: &str) -> String {
    let ends = if end == "mixed" {
        vec!["\n", "\r\n", "\r"]
    } else {
        vec![end]
    };
    let mut text = String::with_capacity(bytes + 256);
    let head = [
        "---",
        "user_id: u1",
        "turn_count: 3",
        "---",
        "",
        "# User Memory",
        "",
        "## Identity",
    ];
    for (i, line) in head.iter().enumerate() {
        text.push_str(line);
        text.push_str(ends[i % ends.len()]);
    }
    let mut i = 0;
    while text.len() < bytes {
        text.push_str(&format!("- fact number {i} about the user's work"));
        text.push_str(ends[i % ends.len()]);
        i += 1;
    }
    text
}

/// `(bytes allocated, allocations)` while parsing, rendering and reading the body of `text`.
fn work(text: &str) -> (usize, usize) {
    let region = Region::new(GLOBAL);
    let parsed = parse_profile(text);
    let rendered = render_profile(&parsed.profile);
    let body = profile_body(text);
    let change = region.change();
    drop((parsed, rendered, body));
    (change.bytes_allocated, change.allocations)
}

#[test]
fn every_line_end_style_costs_work_linear_in_the_text() {
    for end in ["\n", "\r\n", "\r", "mixed"] {
        let mut per_byte = Vec::new();
        for size in [256 * 1024, 1024 * 1024, 4 * 1024 * 1024] {
            let text = profile(size, end);
            let (bytes, allocations) = work(&text);
            let lines = text.matches(['\n', '\r']).count();
            // Each line is a few allocations (its own copy, the vectors growing): a bound per
            // line and per byte, the same at every size.
            assert!(
                allocations <= 8 * lines + 1_000,
                "{end:?} at {size}: {allocations} allocations for {lines} lines"
            );
            assert!(
                bytes <= 24 * text.len(),
                "{end:?} at {size}: {bytes} bytes allocated for {} bytes",
                text.len()
            );
            per_byte.push(bytes as f64 / text.len() as f64);
        }
        // Linear: the cost per byte does not grow with the text (×16 from first to last).
        assert!(
            per_byte[2] < 1.5 * per_byte[0],
            "{end:?}: bytes allocated per input byte {per_byte:?}"
        );
    }
}
