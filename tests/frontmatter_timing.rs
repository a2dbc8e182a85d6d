//! Native timings of the frontmatter reader and writer for the report, not a test of speed: run
//! with `cargo test --release --test frontmatter_timing -- --ignored --nocapture`.

use memcore::profile::format::Frontmatter;
use memcore::profile::frontmatter::{read_frontmatter_of, render_frontmatter};
use std::hint::black_box;
use std::time::Instant;

const CANONICAL: &str = "---\nuser_id: user_123\nschema_version: 1\nlast_updated: 2026-06-17T12:00:00+00:00\nturn_count: 12\n---\n";

/// The best of a few runs of `rounds` calls, per call (the machine is shared and noisy).
fn per_call(rounds: u32, mut f: impl FnMut()) -> std::time::Duration {
    (0..5)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..rounds {
                f();
            }
            start.elapsed() / rounds
        })
        .min()
        .unwrap_or_default()
}

#[test]
#[ignore = "timing report, run explicitly"]
fn report_frontmatter_read_and_render_timings() {
    let frontmatter = read_frontmatter_of(CANONICAL);
    assert_eq!(frontmatter.turn_count, 12);
    assert_eq!(render_frontmatter(&frontmatter), CANONICAL);
    let rounds = 20_000;
    let read = per_call(rounds, || {
        black_box(read_frontmatter_of(black_box(CANONICAL)));
    });
    let render = per_call(rounds, || {
        black_box(render_frontmatter(black_box(&frontmatter)));
    });
    let parsed: Frontmatter = frontmatter.clone();
    let round_trip = per_call(rounds, || {
        black_box(read_frontmatter_of(&render_frontmatter(black_box(&parsed))));
    });
    println!("canonical 4-key frontmatter: read {read:?}, render {render:?}, render+read {round_trip:?} per call");
}
