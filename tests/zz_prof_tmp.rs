#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]
use memcore::profile::{self, frontmatter};
use std::time::Instant;
fn t(name: &str, n: u32, mut f: impl FnMut()) {
    for _ in 0..200 {
        f();
    }
    let s = Instant::now();
    for _ in 0..n {
        f();
    }
    println!(
        "{name}: {:.2} µs",
        s.elapsed().as_secs_f64() * 1e6 / n as f64
    );
}
#[test]
#[ignore]
fn prof() {
    let text = std::fs::read_to_string("/tmp/within.md").unwrap();
    let split = frontmatter::split_frontmatter(&text);
    t("split", 5000, || {
        std::hint::black_box(frontmatter::split_frontmatter(&text));
    });
    t("read_frontmatter_of", 5000, || {
        std::hint::black_box(frontmatter::read_frontmatter_of(&text));
    });
    t("parse", 5000, || {
        std::hint::black_box(profile::parse_profile(&text));
    });
    let p = profile::parse_profile(&text);
    t("render", 5000, || {
        std::hint::black_box(profile::render_profile(&p.profile));
    });
    t("render_body", 5000, || {
        std::hint::black_box(profile::render_body(&p.profile));
    });
    t("render_frontmatter", 5000, || {
        std::hint::black_box(frontmatter::render_frontmatter(&p.profile.frontmatter));
    });
    t("json out", 5000, || {
        std::hint::black_box(serde_json::to_string(&p.profile).unwrap());
    });
    let j = serde_json::to_string(&p.profile).unwrap();
    t("json in", 5000, || {
        std::hint::black_box(serde_json::from_str::<profile::Profile>(&j).unwrap());
    });
    t("profile_body", 5000, || {
        std::hint::black_box(profile::profile_body(&text));
    });
    t("body lines only", 5000, || {
        let v: Vec<String> = split
            .body
            .lines()
            .map(|l| l.trim_end().to_string())
            .collect();
        std::hint::black_box(v);
    });
}
