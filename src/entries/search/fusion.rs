//! PLACEHOLDER (replaced by helper/rank at merge).
pub const RRF_K: f64 = 60.0;
pub fn rrf(lists: &[&[usize]], k: f64) -> Vec<(usize, f64)> {
    let mut m = std::collections::HashMap::new();
    for l in lists {
        for (r, &i) in l.iter().enumerate() {
            *m.entry(i).or_insert(0.0) += 1.0 / (k + r as f64 + 1.0);
        }
    }
    let mut v: Vec<(usize, f64)> = m.into_iter().collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}
