//! The derived columns of the SQL stores and their search prefilter, from the core
//! (`memcore::entries::index_columns`), against `tests/vectors/sql/index-columns.json`: the bytes
//! the JS adapters computed before the core did, which existing databases hold — so a change
//! here would need a migration. `MEMCORE_INDEX_COLUMNS_VECTOR=<file>` replays another file of
//! the same shape (a larger generated corpus).

use memcore::entries::index_columns::{index_columns, search_prefilter, updated_sort};
use serde_json::Value;

fn vectors() -> Value {
    let path = std::env::var("MEMCORE_INDEX_COLUMNS_VECTOR").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/vectors/sql/index-columns.json"
        )
        .to_owned()
    });
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    memcore::json::from_str(&text).unwrap()
}

fn pairs(v: &Value, name: &str) -> Vec<Vec<Value>> {
    v[name]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_array().unwrap().clone())
        .collect()
}

#[test]
fn index_columns_are_the_bytes_existing_databases_hold() {
    let v = vectors();
    let mut checked = 0;
    for case in pairs(&v, "updatedSort") {
        let ts = case[0].as_str().unwrap();
        assert_eq!(
            updated_sort(ts),
            case[1].as_str().unwrap(),
            "updatedSort({ts:?})"
        );
        checked += 1;
    }
    for case in pairs(&v, "reserved") {
        let key = case[0].as_str().unwrap();
        let got = index_columns(key, "", "null").reserved;
        assert_eq!(got, case[1].as_bool().unwrap(), "reserved({key:?})");
        checked += 1;
    }
    for case in pairs(&v, "searchText") {
        let (key, json) = (case[0].as_str().unwrap(), case[1].as_str().unwrap());
        let got = index_columns(key, "", json).search_text;
        assert_eq!(
            got.as_deref(),
            case[2].as_str(),
            "searchText({key:?}, {json})"
        );
        checked += 1;
    }
    assert!(checked > 5000, "{checked}");
}

#[test]
fn search_prefilter_is_the_plan_the_statements_ran() {
    let v = vectors();
    for case in pairs(&v, "searchPrefilter") {
        let query = case[0].as_str().unwrap();
        let got = serde_json::to_value(search_prefilter(query)).unwrap();
        assert_eq!(got, case[1], "searchPrefilter({query:?})");
    }
}
