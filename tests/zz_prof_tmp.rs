#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]
use memcore::profile;
#[test]
#[ignore]
fn prof_parse() {
    let text = std::fs::read_to_string("/tmp/within.md").unwrap();
    let body = &text[text.find("\n---\n").unwrap() + 5..];
    for _ in 0..200000 {
        std::hint::black_box(profile::parse_profile(std::hint::black_box(body)));
    }
}
#[test]
#[ignore]
fn prof_times() {
    let text = std::fs::read_to_string("/tmp/within.md").unwrap();
    let p = profile::parse_profile(&text);
    let t = std::time::Instant::now();
    for _ in 0..20000 {
        std::hint::black_box(profile::parse_profile(std::hint::black_box(&text)));
    }
    eprintln!("parse {:?}", t.elapsed() / 20000);
    let t = std::time::Instant::now();
    for _ in 0..20000 {
        std::hint::black_box(profile::render_profile(std::hint::black_box(&p.profile)));
    }
    eprintln!("render {:?}", t.elapsed() / 20000);
    let t = std::time::Instant::now();
    for _ in 0..20000 {
        std::hint::black_box(profile::render_body(std::hint::black_box(&p.profile)));
    }
    eprintln!("render_body {:?}", t.elapsed() / 20000);
}
