use memcore::profile::*;

const SEED: &str = "---\nuser_id: user_123\nschema_version: 1\nlast_updated: 2026-06-17T12:00:00+00:00\nturn_count: 12\n---\n\n# User Memory\n\n## Identity\n- Works as a credit risk analyst at a Swiss private bank, based in Zurich (CET).\n- Native German speaker; communicates with the assistant in English.\n\n## Communication Preferences\n- Prefers concise answers with concrete examples.\n- Wants tables for numeric comparisons instead of prose.\n\n## Work Context\n- Preparing the quarterly IFRS 9 impairment report.\n- Migrating team reporting from Excel to a Python-based pipeline.\n\n## Skills & Expertise\n_(empty)_\n\n## Recent Topics\n- 2026-06-17 11:40 UTC: Discussed expected-credit-loss staging rules.\n\n## Follow-ups\n- Wants to revisit the scenario-weighting approach next week.\n";

#[test]
fn seed_example_is_canonical() {
    let parsed = parse_profile(SEED);
    assert_eq!(parsed.diagnostics, vec![]);
    assert_eq!(render_profile(&parsed.profile), SEED);
    assert_eq!(parsed.profile.frontmatter.turn_count, 12);
    println!("{}", serde_json::to_string_pretty(&parsed).unwrap());
}
