//! Hostile frontmatter costs work linear in its size: an alias bomb is kept as written and
//! never expanded, deep nesting stops at a bound, thousands of keys are no quadratic. Measured
//! as bytes allocated, not time: this test binary counts every allocation.

use memcore::profile::*;
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Bytes allocated while parsing and then rendering `text`, and the parse.
fn cost(text: &str) -> (usize, ParsedProfile) {
    let region = Region::new(GLOBAL);
    let parsed = parse_profile(text);
    let rendered = render_profile(&parsed.profile);
    let bytes = region.change().bytes_allocated;
    drop(rendered);
    (bytes, parsed)
}

fn block(yaml: &str) -> String {
    format!("---\n{yaml}---\n## Identity\n- a\n")
}

/// An alias bomb of about `bytes`: each anchor holds nine aliases of the one before
/// (expanded, the last would hold 9^levels strings).
fn alias_bomb(bytes: usize) -> String {
    let mut yaml = String::from("user_id: u1\nturn_count: 5\na0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    let mut level = 1;
    while yaml.len() < bytes {
        let refs = vec![format!("*a{}", level - 1); 9].join(",");
        yaml.push_str(&format!("a{level}: &a{level} [{refs}]\n"));
        level += 1;
    }
    yaml
}

/// Allocation per input byte stays flat when the input doubles (linear work) and small (an
/// expanded alias bomb would need 9^levels strings; the largest case here needs ~50 bytes per
/// input byte: one diagnostic per duplicate key).
fn assert_linear(name: &str, make: impl Fn(usize) -> String) {
    let small = block(&make(30 * 1024));
    let large = block(&make(60 * 1024));
    let (small_cost, _) = cost(&small);
    let (large_cost, _) = cost(&large);
    let per_byte = large_cost as f64 / large.len() as f64;
    assert!(
        per_byte < 64.0,
        "{name}: {large_cost} bytes allocated for {} bytes",
        large.len()
    );
    assert!(
        (large_cost as f64) < 2.6 * small_cost as f64,
        "{name}: {small_cost} → {large_cost} bytes allocated when the input doubles"
    );
}

#[test]
fn hostile_frontmatter_costs_linear_work() {
    // All in one test: the counter is global, and tests of one binary run in parallel.

    // An alias bomb is valid YAML (each alias names an earlier anchor): kept as written,
    // checked without expanding anything, written back as it was.
    let bomb = block(&alias_bomb(60 * 1024));
    assert!(bomb.len() < 64 * 1024 + 40);
    let (_, parsed) = cost(&bomb);
    let fm = &parsed.profile.frontmatter;
    assert_eq!((fm.user_id.as_deref(), fm.turn_count), (Some("u1"), 5));
    assert!(fm.extra.len() > 500, "{}", fm.extra.len());
    assert_eq!(
        fm.extra[1].value,
        "&a1 [*a0,*a0,*a0,*a0,*a0,*a0,*a0,*a0,*a0]"
    );
    assert!(parsed
        .diagnostics
        .iter()
        .all(|d| d.code != DiagnosticCode::InvalidYaml));
    let rendered = render_profile(&parsed.profile);
    assert!(rendered.len() < bomb.len() + 1_000);
    assert_eq!(render_profile(&parse_profile(&rendered).profile), rendered);
    assert_linear("alias bomb", alias_bomb);

    // One value with thousands of aliases.
    assert_linear("wide aliases", |bytes| {
        format!("a: &a [x]\nb: [{}]\n", vec!["*a"; bytes / 3].join(","))
    });

    // Nesting: flow, compact sequences, block mappings, in unknown and known keys. Refused
    // past the depth bound (`invalid-yaml`), kept as text.
    let deep_flow =
        |bytes: usize| format!("k: {}{}\n", "[".repeat(bytes / 2), "]".repeat(bytes / 2));
    assert_linear("deep flow", deep_flow);
    let (_, parsed) = cost(&block(&deep_flow(60 * 1024)));
    assert_eq!(parsed.diagnostics[0].code, DiagnosticCode::InvalidYaml);
    assert_linear("deep flow user_id", |bytes| {
        format!("user_id: {}\n", "[".repeat(bytes))
    });
    assert_linear("deep compact sequence", |bytes| {
        format!("k: \n{}x\n", "- ".repeat(bytes / 2))
    });
    assert_linear("deep block mapping", |bytes| {
        let mut yaml = String::from("k:\n");
        let mut depth = 1;
        while yaml.len() < bytes {
            yaml.push_str(&format!("{}a:\n", " ".repeat(depth)));
            depth += 1;
        }
        yaml
    });

    // Thousands of keys, duplicates among them; long quoted and commented values.
    assert_linear("many keys", |bytes| {
        (0..bytes / 12)
            .map(|i| format!("k{}: {i}\n", i % 3000))
            .collect()
    });
    assert_linear("long values", |bytes| {
        format!(
            "a: \"{}\"\nb: '{}'\nc: {}\n",
            "\\t x".repeat(bytes / 12),
            "'' y".repeat(bytes / 12),
            "z #".repeat(bytes / 9),
        )
    });
}
